package store

import (
	"testing"
	"time"

	"hush/internal/push"
)

func TestCreateUser(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	created := t0.Add(250 * time.Millisecond)
	u, err := s.CreateUser(t.Context(), "  Alice@Example.COM \t", "argon-hash", created)
	if err != nil {
		t.Fatalf("CreateUser: %v", err)
	}
	if u.ID == 0 || u.Email != "alice@example.com" || u.PasswordHash != "argon-hash" || !u.CreatedAt.Equal(created) {
		t.Fatalf("CreateUser = %+v", u)
	}

	for _, dup := range []string{"alice@example.com", "ALICE@EXAMPLE.COM", " alice@example.com "} {
		got, err := s.CreateUser(t.Context(), dup, "other", t0)
		if got != nil || push.ErrorCode(err) != push.CodeConflict {
			t.Errorf("CreateUser(%q) = %v, %v; want conflict", dup, got, err)
		}
	}

	other, err := s.CreateUser(t.Context(), "bob@example.com", "h2", t0)
	if err != nil || other.ID == u.ID {
		t.Fatalf("second user = %+v, %v", other, err)
	}

	for _, email := range []string{"alice@example.com", "ALICE@example.com", "  alice@EXAMPLE.com  "} {
		got, err := s.UserByEmail(t.Context(), email)
		if err != nil {
			t.Fatalf("UserByEmail(%q): %v", email, err)
		}
		if got.ID != u.ID || got.Email != u.Email || got.PasswordHash != u.PasswordHash || !got.CreatedAt.Equal(created) {
			t.Fatalf("UserByEmail(%q) = %+v, want %+v", email, got, u)
		}
	}
	for _, email := range []string{"carol@example.com", "", "alice@example.co"} {
		got, err := s.UserByEmail(t.Context(), email)
		if got != nil || push.ErrorCode(err) != push.CodeNotFound {
			t.Errorf("UserByEmail(%q) = %v, %v; want not found", email, got, err)
		}
	}
}

func TestReplaceToken(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	alice := mustUser(t, s, "alice@example.com")
	bob := mustUser(t, s, "bob@example.com")

	lookup := func(t *testing.T, digest string, want *push.User) {
		t.Helper()
		got, err := s.UserByTokenDigest(t.Context(), digest)
		if want == nil {
			if got != nil || push.ErrorCode(err) != push.CodeNotFound {
				t.Fatalf("UserByTokenDigest(%q) = %v, %v; want not found", digest, got, err)
			}
			return
		}
		if err != nil || got.ID != want.ID || got.Email != want.Email || got.PasswordHash != want.PasswordHash {
			t.Fatalf("UserByTokenDigest(%q) = %+v, %v; want %+v", digest, got, err, want)
		}
	}

	lookup(t, "d-alice-1", nil)
	if err := s.ReplaceToken(t.Context(), alice.ID, "d-alice-1", t0); err != nil {
		t.Fatalf("ReplaceToken: %v", err)
	}
	if err := s.ReplaceToken(t.Context(), bob.ID, "d-bob-1", t0); err != nil {
		t.Fatalf("ReplaceToken: %v", err)
	}
	lookup(t, "d-alice-1", alice)
	lookup(t, "d-bob-1", bob)

	if err := s.ReplaceToken(t.Context(), alice.ID, "d-alice-2", t0.Add(time.Hour)); err != nil {
		t.Fatalf("ReplaceToken again: %v", err)
	}
	lookup(t, "d-alice-1", nil)
	lookup(t, "d-alice-2", alice)
	lookup(t, "d-bob-1", bob) // another user's token survives

	// Re-issuing the same digest keeps it valid.
	if err := s.ReplaceToken(t.Context(), alice.ID, "d-alice-2", t0.Add(2*time.Hour)); err != nil {
		t.Fatalf("ReplaceToken same digest: %v", err)
	}
	lookup(t, "d-alice-2", alice)
	var n int
	if err := s.r.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM api_tokens WHERE user_id = $1`, alice.ID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("alice holds %d tokens, want 1", n)
	}
}
