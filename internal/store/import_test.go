package store

import (
	"testing"
)

// TestImportUserOnlyItsOwnAccount: a user copied in again is found by the
// account an import made for it, whatever that account's address now; an
// account no import made for the user — another's sign-up with the
// address — is Taken, never returned as the user's.
func TestImportUserOnlyItsOwnAccount(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	imp := func(source int64, email string) ImportedAccount {
		t.Helper()
		got, err := s.ImportUser(ctx, ImportedUser{SourceID: source, Email: email, CreatedAt: t0, UpdatedAt: t0})
		if err != nil {
			t.Fatalf("ImportUser(%d, %s): %v", source, email, err)
		}
		return got
	}
	a := imp(1, "A@example.com")
	if !a.Created || a.ID == 0 || a.Taken {
		t.Fatalf("first import: %+v", a)
	}
	for _, email := range []string{"a@example.com", "renamed@example.com"} {
		if got := imp(1, email); got != (ImportedAccount{ID: a.ID}) {
			t.Errorf("again as %s: %+v, want account %d", email, got, a.ID)
		}
	}
	squatter := newUser(t, s, "b@example.com")
	if got := imp(2, "B@example.com"); got != (ImportedAccount{Taken: true}) {
		t.Errorf("an address signed up by someone else: %+v (the account is %d)", got, squatter.ID)
	}
	if got := imp(3, "a@example.com"); got != (ImportedAccount{Taken: true}) {
		t.Errorf("another source user with the address of an imported account: %+v", got)
	}
	if _, err := s.ImportUser(ctx, ImportedUser{Email: "c@example.com"}); err == nil {
		t.Error("a user without a source id was imported")
	}
}
