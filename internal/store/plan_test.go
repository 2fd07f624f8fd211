package store

import (
	"strings"
	"testing"
)

// queryPlan returns the steps of SQLite's plan for query.
func queryPlan(t *testing.T, s *Store, query string, args ...any) []string {
	t.Helper()
	rows, err := s.r.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return plan
}

// TestQueryPlansUseIndexes checks on SQLite that the reads which must stay
// fast with millions of pushes are answered from the index meant for them
// (the partial ones of migration 00007 included), never by a scan of pushes.
// The sweeper's statements have their own test (TestSweepQueriesUseIndexes).
func TestQueryPlansUseIndexes(t *testing.T) {
	s := newTestStore(t)
	if s.Engine() != "sqlite" {
		t.Skip("query plans are checked on SQLite")
	}
	for _, c := range []struct{ query, index string }{
		{`SELECT ` + pushColumns + ` FROM pushes WHERE token_key = $1`, "pushes_token_key"},
		{`SELECT ` + pushColumns + ` FROM pushes
			WHERE user_id = $1 AND expired = $2 ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`, "pushes_owner"},
		{`SELECT kind FROM audit_logs WHERE push_id = $1 ORDER BY id LIMIT $2 OFFSET $3`, "audit_logs_push"},
	} {
		args := []any{1, 0, 10, 0}[:strings.Count(c.query, "$")]
		text := strings.Join(queryPlan(t, s, c.query, args...), "; ")
		if !strings.Contains(text, c.index) || strings.Contains(text, "SCAN pushes") {
			t.Errorf("%s\nplan: %s\nwant it to use %s", strings.Join(strings.Fields(c.query), " "), text, c.index)
		}
	}
}
