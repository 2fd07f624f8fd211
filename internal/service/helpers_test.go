package service

import (
	"bytes"
	"context"
	"testing"
	"time"

	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/store"
	"hush/internal/testclock"
	"hush/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// testKey is the master key of the test services.
var testKey = bytes.Repeat([]byte{7}, 32)

// newTestService returns a service on a fresh database of the engine under
// test, with a cheap Argon2id so that tests can afford many derivations.
func newTestService(t *testing.T, clock *testclock.Clock) *Service {
	t.Helper()
	st := openTestStore(t, testdb.URL(t))
	return newServiceOn(t, st, clock)
}

func openTestStore(t *testing.T, url string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return st
}

func newServiceOn(t *testing.T, st *store.Store, clock *testclock.Clock) *Service {
	t.Helper()
	keys, err := secure.NewKeyring(testKey)
	if err != nil {
		t.Fatal(err)
	}
	var now func() time.Time
	if clock != nil {
		now = clock.Now
	}
	return New(Deps{Store: st, Keys: keys, Argon: secure.NewArgon(1, 64, 1, 0), Now: now},
		Limits{Settings: push.DefaultSettings()})
}

// create stores a push for u and returns its url_token.
func create(t *testing.T, s *Service, u *push.User, req push.CreateRequest) string {
	t.Helper()
	c, err := s.Create(context.Background(), CreateInput{User: u, Request: &req, Meta: push.Meta{IP: "192.0.2.1"}})
	if err != nil {
		t.Fatalf("Create(%+v): %v", req, err)
	}
	return c.Push.URLToken
}

func ptr[T any](v T) *T { return &v }

func TestValidToken(t *testing.T) {
	for tok, want := range map[string]bool{
		"abc": true, "q3v9x0k1m2n4": true, "a_b-c": true,
		"": false, "a.b": false, "a/b": false, "a\x00": false, string(make([]byte, 129)): false,
	} {
		if got := ValidToken(tok); got != want {
			t.Errorf("ValidToken(%q) = %v", tok, got)
		}
	}
}
