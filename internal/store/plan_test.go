package store

import (
	"strings"
	"testing"
)

// TestQueryPlansUseIndexes checks on SQLite that the queries which must stay
// fast with millions of pushes are answered from an index, the partial
// indexes of migration 00007 included, rather than by a scan of pushes.
func TestQueryPlansUseIndexes(t *testing.T) {
	s := newTestStore(t)
	if s.Engine() != "sqlite" {
		t.Skip("query plans are checked on SQLite")
	}
	for _, c := range []struct{ query, index string }{
		{`SELECT ` + pushColumns + ` FROM pushes WHERE url_token = $1`, "sqlite_autoindex_pushes_1"},
		{`SELECT ` + pushColumns + ` FROM pushes
			WHERE user_id = $1 AND expired = $2 ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`, "pushes_owner"},
		{`SELECT id FROM pushes WHERE expired = 0 AND expires_at <= $1 LIMIT 500`, "pushes_active_expiry"},
		{`SELECT id FROM pushes WHERE expired = 1 AND user_id IS NULL AND expired_on <= $1 LIMIT 500`, "pushes_expired_on"},
		{`SELECT kind FROM audit_logs WHERE push_id = $1 ORDER BY id LIMIT $2 OFFSET $3`, "audit_logs_push"},
	} {
		args := []any{1, 0, 10, 0}[:strings.Count(c.query, "$")]
		rows, err := s.r.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+c.query, args...)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		text := strings.Join(plan, "; ")
		if !strings.Contains(text, c.index) || strings.Contains(text, "SCAN pushes") {
			t.Errorf("%s\nplan: %s\nwant it to use %s", strings.Join(strings.Fields(c.query), " "), text, c.index)
		}
	}
}
