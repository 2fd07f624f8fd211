package service

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hush/internal/push"
	"hush/internal/pwpush/pwpushtest"
	"hush/internal/secure"
	"hush/internal/testclock"
	"hush/internal/testdb"
)

// An imported account signs in with its Password Pusher password once; that
// sign-in replaces the bcrypt hash by an Argon2id one, without ending its
// sessions, and its API token works as it did.
func TestImportedUserSignsInAndIsUpgraded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newTestService(t, testclock.New(t0))
	hash, password := pwpushtest.BcryptVector(t, "utf8", 4)
	in := ImportUser{SourceID: 1, Email: " Carol@Example.ORG", PasswordHash: hash, APIToken: "s3cr3tT0kenForCarolX", CreatedAt: t0, UpdatedAt: t0}
	got, err := s.ImportUser(ctx, in)
	if err != nil || !got.Created || !got.Password || !got.Token {
		t.Fatalf("ImportUser = %+v, %v", got, err)
	}
	if u, err := s.UserByToken(ctx, "s3cr3tT0kenForCarolX"); err != nil || u.ID != got.ID {
		t.Fatalf("the imported token: %v %v", u, err)
	}
	before, _ := s.store.UserByID(ctx, got.ID)
	if _, err := s.SignIn(ctx, "carol@example.org", password+"x", push.Meta{IP: "192.0.2.1"}); push.ErrorCode(err) != push.CodeUnauthenticated {
		t.Fatalf("wrong password: %v", err)
	}
	if u, _ := s.store.UserByID(ctx, got.ID); u.PasswordHash != hash {
		t.Fatal("a failed sign-in changed the hash")
	}
	u, err := s.SignIn(ctx, "CAROL@example.org", password, push.Meta{IP: "192.0.2.1"})
	if err != nil || u.ID != got.ID {
		t.Fatalf("sign-in with the Password Pusher password: %v %v", u, err)
	}
	after, _ := s.store.UserByID(ctx, got.ID)
	if !secure.IsArgonHash(after.PasswordHash) || after.AuthEpoch != before.AuthEpoch {
		t.Fatalf("after the sign-in: hash %.12q, epoch kept %v", after.PasswordHash, after.AuthEpoch == before.AuthEpoch)
	}
	if left, _ := s.store.HasBcryptHashes(ctx); left {
		t.Error("a bcrypt hash is left")
	}
	for _, pw := range []string{password, password} { // and again, on the Argon2id hash
		if _, err := s.SignIn(ctx, "carol@example.org", pw, push.Meta{IP: "192.0.2.1"}); err != nil {
			t.Fatalf("sign-in after the upgrade: %v", err)
		}
	}
	if _, err := s.SignIn(ctx, "carol@example.org", "pässwörd", push.Meta{IP: "192.0.2.1"}); err == nil {
		t.Fatal("a wrong password signs in after the upgrade")
	}

	// Again: nothing changes, the account is reported as there.
	again, err := s.ImportUser(ctx, in)
	if err != nil || again.Created || again.ID != got.ID {
		t.Fatalf("second import = %+v, %v", again, err)
	}
	if u, _ := s.store.UserByID(ctx, got.ID); u.PasswordHash != after.PasswordHash {
		t.Fatal("a second import replaced the upgraded hash")
	}
	// An account whose hash Hush cannot check is imported without password.
	odd, err := s.ImportUser(ctx, ImportUser{SourceID: 2, Email: "sso@example.com", PasswordHash: "", APIToken: "tok-of-sso-user-1234"})
	if err != nil || !odd.Created || odd.Password || !odd.Token {
		t.Fatalf("account without a hash: %+v, %v", odd, err)
	}
	if _, err := s.SignIn(ctx, "sso@example.com", "", push.Meta{IP: "192.0.2.2"}); err == nil {
		t.Fatal("an account without a password signs in with an empty one")
	}
	if _, err := s.ImportUser(ctx, ImportUser{SourceID: 3, Email: "no at sign"}); push.ErrorCode(err) != push.CodeInvalid {
		t.Fatalf("an address without @: %v", err)
	}
}

// The checks of other password forms upgrade too: changing the password
// checks the current one, a bcrypt hash, and works.
func TestImportedUserChangesPassword(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newTestService(t, testclock.New(t0))
	hash, password := pwpushtest.BcryptVector(t, "ascii", 4)
	got, err := s.ImportUser(ctx, ImportUser{SourceID: 1, Email: "a@example.com", PasswordHash: hash})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := s.store.UserByID(ctx, got.ID)
	if _, err := s.ChangePassword(ctx, u, "not it", "new password", "new password", push.Meta{IP: "192.0.2.1"}); err == nil {
		t.Fatal("a wrong current password changed the password")
	}
	if _, err := s.ChangePassword(ctx, u, password, "new password", "new password", push.Meta{IP: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignIn(ctx, "a@example.com", "new password", push.Meta{IP: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
}

// Concurrent sign-ins at an account with a bcrypt hash take their slot
// before any bcrypt work: no more are evaluated than the limit allows.
func TestBcryptSignInsReservedBeforeWork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newTestService(t, testclock.New(t0))
	hash, password := pwpushtest.BcryptVector(t, "ascii", 5)
	if _, err := s.ImportUser(ctx, ImportUser{SourceID: 1, Email: "b@example.com", PasswordHash: hash}); err != nil {
		t.Fatal(err)
	}
	var wrong, refused, in atomic.Int32
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			pw := "wrong"
			if i == 29 {
				pw = password
			}
			_, err := s.SignIn(ctx, "b@example.com", pw, push.Meta{IP: "198.51.100.7"})
			switch push.ErrorCode(err) {
			case push.CodeUnauthenticated:
				wrong.Add(1)
			case push.CodeTooMany:
				refused.Add(1)
			default:
				if err != nil {
					t.Errorf("sign-in: %v", err)
				}
				in.Add(1)
			}
		})
	}
	wg.Wait()
	// The right one, when it got a slot, gave it back; a wrong one may then
	// have taken it.
	if wrong.Load() > signInPerClientEmail || wrong.Load()+in.Load() < signInPerClientEmail || in.Load() > 1 ||
		wrong.Load()+refused.Load()+in.Load() != 30 {
		t.Fatalf("30 at once: %d wrong, %d signed in, %d refused; want %d failures evaluated",
			wrong.Load(), in.Load(), refused.Load(), signInPerClientEmail)
	}
}

// While any account has a bcrypt hash, a sign-in costs the same whether
// the address is unknown, the account has a bcrypt hash or an Argon2id
// one: the time tells nothing.
func TestSignInTimeTellsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("bcrypt at Devise's cost")
	}
	ctx := context.Background()
	s := newTestService(t, testclock.New(t0))
	hash, _ := pwpushtest.BcryptVector(t, "ascii", secure.BcryptCost)
	if _, err := s.ImportUser(ctx, ImportUser{SourceID: 1, Email: "imported@example.com", PasswordHash: hash}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateUser(ctx, "native@example.com", "a native password"); err != nil {
		t.Fatal(err)
	}
	s.SignIn(ctx, "warm@example.com", "x", push.Meta{IP: "192.0.2.9"}) // makes the stand-in hashes
	took := map[string]time.Duration{}
	for i, email := range []string{"imported@example.com", "native@example.com", "nobody@example.com"} {
		d := time.Hour
		for j := range 5 {
			start := time.Now()
			_, err := s.SignIn(ctx, email, "a wrong password", push.Meta{IP: "192.0.2." + string(rune('1'+i)) + string(rune('0'+j))})
			d = min(d, time.Since(start))
			if push.ErrorCode(err) != push.CodeUnauthenticated {
				t.Fatalf("%s: %v", email, err)
			}
		}
		took[email] = d
	}
	t.Logf("wrong password, best of 5: %v", took)
	lo, hi := time.Hour, time.Duration(0)
	for _, d := range took {
		lo, hi = min(lo, d), max(hi, d)
	}
	if hi > 3*lo {
		t.Errorf("sign-in times differ by more than 3×: %v", took)
	}
}

// An imported push keeps its url_token, passphrase, note, owner, counts and
// audit log; it is sealed as Hush seals its own, and importing it again
// stores nothing.
func TestImportPush(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := testdb.URL(t)
	s := newServiceOn(t, openTestStore(t, url), testclock.New(t0))
	owner, err := s.ImportUser(ctx, ImportUser{SourceID: 1, Email: "o@example.com", APIToken: "owner-token-123456789"})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := s.store.UserByID(ctx, owner.ID)
	payload := "pässwörd 🔑"
	created := t0.Add(-2 * 24 * time.Hour)
	in := ImportPush{Token: "q2x7k0b9vyw1n3", Kind: push.KindText, Owner: owner.ID, Name: "db", Payload: &payload,
		Note: "the note", Passphrase: "open sesame", ExpireAfterDays: 7, ExpireAfterViews: 5, ViewCount: 2,
		DeletableByViewer: ptr(true), RetrievalStep: true, CreatedAt: created, UpdatedAt: created.Add(time.Hour),
		Events: []push.Event{{Kind: push.EventCreation, IP: "203.0.113.1", UserID: owner.ID, CreatedAt: created},
			{Kind: push.EventView, IP: "203.0.113.2", CreatedAt: created.Add(time.Minute)},
			{Kind: push.EventFailedView, IP: "203.0.113.3", CreatedAt: created.Add(2 * time.Minute)}}}
	if ok, err := s.ImportPush(ctx, in); !ok || err != nil {
		t.Fatalf("ImportPush = %v, %v", ok, err)
	}
	raw := dump(t, rawDB(t, url))
	for _, secret := range []string{in.Token, payload, "open sesame", "the note"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the database holds %q in clear", secret)
		}
	}
	if _, err := s.Retrieve(ctx, in.Token, "wrong", nil, push.Meta{IP: "192.0.2.1"}); err != ErrPassphrase {
		t.Fatalf("wrong passphrase: %v", err)
	}
	r, err := s.Retrieve(ctx, in.Token, "open sesame", nil, push.Meta{IP: "192.0.2.1"})
	if err != nil || r.Payload == nil || *r.Payload != payload || r.Push.ViewsRemaining() != 2 || r.Push.DaysRemaining(t0) != 5 {
		t.Fatalf("retrieve: %+v, %v", r, err)
	}
	list, err := s.List(ctx, u, false, 1)
	if err != nil || len(list) != 1 || list[0].Push.URLToken != in.Token || list[0].Note != "the note" || list[0].Push.Name != "db" {
		t.Fatalf("owner's list: %+v, %v", list, err)
	}
	_, events, err := s.Audit(ctx, in.Token, u, 1)
	if err != nil || len(events) != 5 || events[1].IP != "203.0.113.2" || !events[0].CreatedAt.Equal(created) {
		t.Fatalf("audit: %+v, %v", events, err)
	}
	if ok, err := s.ImportPush(ctx, in); ok || err != nil {
		t.Fatalf("second import = %v, %v", ok, err)
	}

	// An expired push: metadata, note and log, no secret.
	gone := ImportPush{Token: "deleted-by-owner", Kind: push.KindURL, Owner: owner.ID, Note: "kept",
		ExpireAfterDays: 7, ExpireAfterViews: 5, Deleted: true, ExpiredOn: created.Add(time.Hour),
		CreatedAt: created, UpdatedAt: created.Add(time.Hour), DeletableByViewer: ptr(true)}
	if ok, err := s.ImportPush(ctx, gone); !ok || err != nil {
		t.Fatalf("expired push: %v %v", ok, err)
	}
	r, err = s.Retrieve(ctx, gone.Token, "", nil, push.Meta{IP: "192.0.2.1"})
	if err != nil || r.Payload != nil || !r.Push.Expired || !r.Push.Deleted || r.Push.DeletableByViewer != nil {
		t.Fatalf("expired push: %+v, %v", r, err)
	}
	list, _ = s.List(ctx, u, true, 1)
	if len(list) != 1 || list[0].Push.URLToken != gone.Token || list[0].Note != "kept" {
		t.Fatalf("expired list: %+v", list)
	}
	for _, bad := range []string{"", "a.b", "a/b", strings.Repeat("x", 129)} {
		if _, err := s.ImportPush(ctx, ImportPush{Token: bad, Kind: push.KindText}); err != ErrImportToken {
			t.Errorf("token %q: %v", bad, err)
		}
	}
}
