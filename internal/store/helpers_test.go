package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"hush/internal/push"
	"hush/internal/testdb"
)

// t0 is the fixed instant every test builds on.
var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) { testdb.Main(m) }

// newTestStore opens a migrated store on a fresh database of the engine
// under test (HUSH_TEST_ENGINE).
func newTestStore(t *testing.T) *Store {
	t.Helper()
	return openTestStore(t, testdb.URL(t))
}

// openTestStore opens and migrates the store at a path or URL and closes it
// at cleanup.
func openTestStore(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open(%q): %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if _, err := s.Migrate(t.Context()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return s
}

// ev is an audit event of kind at time at with fixed client details.
func ev(kind push.EventKind, at time.Time) push.Event {
	return push.Event{Kind: kind, IP: "192.0.2.1", UserAgent: "test-agent", Referrer: "https://ref.example/", CreatedAt: at}
}

// testPush returns an anonymous 7-day, 5-view text push created at t0.
func testPush(token string) *push.Push {
	return &push.Push{
		TokenKey:         token,
		Kind:             push.KindText,
		PayloadSealed:    []byte("sealed:" + token),
		ExpireAfterDays:  7,
		ExpireAfterViews: 5,
		CreatedAt:        t0,
	}
}

// mustCreate inserts p with a creation event at p.CreatedAt.
func mustCreate(t *testing.T, s *Store, p *push.Push) *push.Push {
	t.Helper()
	if err := s.CreatePush(t.Context(), p, ev(push.EventCreation, p.CreatedAt)); err != nil {
		t.Fatalf("CreatePush(%q): %v", p.TokenKey, err)
	}
	if p.ID == 0 {
		t.Fatalf("CreatePush(%q) left ID 0", p.TokenKey)
	}
	return p
}

// createPush inserts testPush(token) after applying mod (which may be nil).
func createPush(t *testing.T, s *Store, token string, mod func(*push.Push)) *push.Push {
	t.Helper()
	p := testPush(token)
	if mod != nil {
		mod(p)
	}
	return mustCreate(t, s, p)
}

func mustLoad(t *testing.T, s *Store, token string) *push.Push {
	t.Helper()
	p, err := s.PushByKey(t.Context(), token)
	if err != nil {
		t.Fatalf("PushByKey(%q): %v", token, err)
	}
	return p
}

func mustAudit(t *testing.T, s *Store, id int64) []push.Event {
	t.Helper()
	list, err := s.AuditLog(t.Context(), id, 1_000_000, 0)
	if err != nil {
		t.Fatalf("AuditLog(%d): %v", id, err)
	}
	return list
}

// auditRows counts the audit_logs rows of a push straight from the table.
func auditRows(t *testing.T, s *Store, id int64) int {
	t.Helper()
	var n int
	if err := s.r.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM audit_logs WHERE push_id = $1`, id).Scan(&n); err != nil {
		t.Fatalf("count audit rows: %v", err)
	}
	return n
}

func mustUser(t *testing.T, s *Store, email string) *push.User {
	t.Helper()
	u, err := s.CreateUser(t.Context(), email, "hash:"+email, t0)
	if err != nil {
		t.Fatalf("CreateUser(%q): %v", email, err)
	}
	return u
}

func kinds(list []push.Event) string {
	out := ""
	for i, e := range list {
		if i > 0 {
			out += ","
		}
		out += e.Kind.String()
	}
	return out
}

func countKind(list []push.Event, k push.EventKind) int {
	n := 0
	for _, e := range list {
		if e.Kind == k {
			n++
		}
	}
	return n
}

func tokens(list []*push.Push) []string {
	out := make([]string, len(list))
	for i, p := range list {
		out[i] = p.TokenKey
	}
	return out
}

func tok(i int) string { return fmt.Sprintf("tok%04d", i) }

// claimView is ClaimView with its outcome as two values.
func claimView(ctx context.Context, s *Store, id int64, e push.Event) (bool, int, error) {
	c, err := s.ClaimView(ctx, id, e)
	return c.Claimed, c.ViewCount, err
}

// expireIfDue is ExpireIfDue reporting whether the call expired the push.
func expireIfDue(ctx context.Context, s *Store, id int64, now time.Time) (bool, error) {
	p, err := s.ExpireIfDue(ctx, id, now)
	return p != nil, err
}

// twoHandles opens two handles of one database, for races between
// instances.
func twoHandles(t *testing.T) []*Store {
	url := testdb.URL(t)
	return []*Store{openTestStore(t, url), openTestStore(t, url)}
}
