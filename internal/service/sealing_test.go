package service

import (
	"bytes"
	"context"
	"database/sql"
	"strings"
	"testing"

	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/store"
	"hush/internal/testclock"
	"hush/internal/testdb"
)

// rawDB opens a second handle on the test database, as someone holding a
// copy of it would.
func rawDB(t *testing.T, url string) *sql.DB {
	t.Helper()
	driver := "sqlite"
	if store.IsPostgresURL(url) {
		driver = "pgx"
	}
	db, err := sql.Open(driver, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// dump returns every value of every row of the tables that hold pushes.
func dump(t *testing.T, db *sql.DB) []byte {
	return testdb.Dump(t, db, "pushes", "push_files", "audit_logs", "sessions", "rate_events", "meta", "users")
}

// TestDatabaseAndMasterKeyCannotReadAnonymousPush plays the attacker who
// holds a copy of the database and the master key: the database holds no
// secret link, and the master key opens only the outer layer of an
// anonymous push, beneath which the token layer keeps the payload and the
// note sealed.
func TestDatabaseAndMasterKeyCannotReadAnonymousPush(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	s := newServiceOn(t, openTestStore(t, url), nil)
	const payload, note = "the vault code is 4 8 15 16 23 42", "for the night shift"
	tok := create(t, s, nil, push.CreateRequest{Payload: payload, Note: note})

	raw := dump(t, rawDB(t, url))
	for _, secret := range []string{tok, tok[8:], payload, note} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Fatalf("the database holds %q in clear", secret)
		}
	}
	// With the master key, every sealed value of the row opens only to
	// another ciphertext, and nothing derived from the row opens that.
	var key string
	var sealed, sealedNote []byte
	if err := rawDB(t, url).QueryRow(`SELECT token_key, payload, note FROM pushes`).Scan(&key, &sealed, &sealedNote); err != nil {
		t.Fatal(err)
	}
	for field, v := range map[string][]byte{"payload": sealed, "note": sealedNote} {
		inner, err := s.keys.Open(purposeFor(field), v, outerAD(key, field))
		if err != nil {
			t.Fatalf("the master key does not open the outer layer of %s: %v", field, err)
		}
		if bytes.Contains(inner, []byte(payload)) || bytes.Contains(inner, []byte(note)) {
			t.Fatalf("%s under the master layer is in clear", field)
		}
		for _, guess := range []string{key, key[:8], ""} {
			if _, err := secure.OpenWithKey(secure.TokenLayerKey(guess), inner, innerAD(guess, field)); err == nil {
				t.Fatalf("%s opened without the link", field)
			}
		}
	}
	// The link opens it.
	r, err := s.Retrieve(context.Background(), tok, "", nil, push.Meta{})
	if err != nil || r.Payload == nil || *r.Payload != payload {
		t.Fatalf("Retrieve = %+v, %v", r, err)
	}
}

// TestOwnedPushListsItsLink: an owned push keeps its link sealed under the
// master key, so its owner's lists show it (the owner's notes included).
func TestOwnedPushListsItsLink(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	s := newServiceOn(t, openTestStore(t, url), nil)
	u, err := s.store.CreateUser(context.Background(), "o@example.com", "h", t0)
	if err != nil {
		t.Fatal(err)
	}
	tok := create(t, s, u, push.CreateRequest{Payload: "p", Note: "owner's note"})
	if bytes.Contains(dump(t, rawDB(t, url)), []byte(tok)) {
		t.Fatal("the database holds an owned push's link in clear")
	}
	list, err := s.List(context.Background(), u, false, 1)
	if err != nil || len(list) != 1 || list[0].Push.URLToken != tok || list[0].Note != "owner's note" {
		t.Fatalf("List = %+v, %v", list, err)
	}
}

// TestMigrateTokens builds pushes as they were stored before links left
// the database (the clear token in legacy_token, values sealed under the
// master key against the token) and checks that the conversion keeps them
// readable by their links — a passphrase push too — adds the token layer,
// lists an owned push's link, and leaves no clear token behind.
func TestMigrateTokens(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	st := openTestStore(t, url)
	s := newServiceOn(t, st, testclock.New(t0.Add(push.Day)))
	ctx := context.Background()
	u, err := st.CreateUser(ctx, "o@example.com", "h", t0)
	if err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, url)
	salt := bytes.Repeat([]byte{1}, 16)
	passKey, err := s.passphraseKey(ctx, "open sesame", salt)
	if err != nil {
		t.Fatal(err)
	}
	oldSeal := func(purpose, token, field string, plain, passKey []byte) []byte {
		if passKey != nil {
			plain, err = secure.SealWithKey(passKey, plain, innerAD(token, field))
			if err != nil {
				t.Fatal(err)
			}
		}
		v, err := s.keys.Seal(purpose, plain, innerAD(token, field))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	insert := func(id int, token string, user any, payload, note, salt []byte) {
		t.Helper()
		_, err := db.Exec(`INSERT INTO pushes (id, legacy_token, kind, user_id, name, note, payload, passphrase_salt,
			expire_after_days, expire_after_views, retrieval_step, log_count, expires_at, created_at, updated_at)
			VALUES ($1, $2, 'text', $3, '', $4, $5, $6, 7, 5, 0, 1, $7, $8, $8)`,
			id, token, user, note, payload, salt, t0.Add(7*push.Day).UnixMilli(), t0.UnixMilli())
		if err != nil {
			t.Fatal(err)
		}
	}
	insert(101, "oldtokenAnon1", nil, oldSeal(purposePayload, "oldtokenAnon1", "payload", []byte("anon secret"), nil), nil, nil)
	insert(102, "oldtokenPass2", nil, oldSeal(purposePayload, "oldtokenPass2", "payload", []byte("pass secret"), passKey), nil, salt)
	insert(103, "oldtokenOwned3", u.ID, oldSeal(purposePayload, "oldtokenOwned3", "payload", []byte("owned secret"), nil),
		oldSeal(purposeNote, "oldtokenOwned3", "note", []byte("old note"), nil), nil)

	var progressed int
	n, err := MigrateTokens(ctx, st, s.keys, func(done, total int) { progressed = done })
	if err != nil || n != 3 || progressed != 3 {
		t.Fatalf("MigrateTokens = %d, %v (progress %d), want 3", n, err, progressed)
	}
	if n, err := MigrateTokens(ctx, st, s.keys, nil); err != nil || n != 0 {
		t.Fatalf("second MigrateTokens = %d, %v, want 0", n, err)
	}
	raw := dump(t, db)
	for _, tok := range []string{"oldtokenAnon1", "oldtokenPass2", "oldtokenOwned3"} {
		if bytes.Contains(raw, []byte(tok)) {
			t.Errorf("%s is still in the database", tok)
		}
	}
	for tok, want := range map[string]string{"oldtokenAnon1": "anon secret", "oldtokenOwned3": "owned secret"} {
		r, err := s.Retrieve(ctx, tok, "", nil, push.Meta{})
		if err != nil || r.Payload == nil || *r.Payload != want {
			t.Errorf("Retrieve(%s) = %+v, %v", tok, r, err)
		}
	}
	if _, err := s.Retrieve(ctx, "oldtokenPass2", "wrong", nil, push.Meta{IP: "192.0.2.1"}); err != ErrPassphrase {
		t.Errorf("wrong passphrase on a converted push: %v", err)
	}
	if r, err := s.Retrieve(ctx, "oldtokenPass2", "open sesame", nil, push.Meta{IP: "192.0.2.1"}); err != nil || r.Payload == nil || *r.Payload != "pass secret" {
		t.Errorf("right passphrase on a converted push: %+v, %v", r, err)
	}
	list, err := s.List(ctx, u, false, 1)
	if err != nil || len(list) != 1 || list[0].Push.URLToken != "oldtokenOwned3" || list[0].Note != "old note" {
		t.Fatalf("owner's list after conversion = %+v, %v", list, err)
	}
	// The converted values carry the token layer: the master key alone
	// opens them to ciphertext only.
	var sealed []byte
	if err := db.QueryRow(`SELECT payload FROM pushes WHERE id = 101`).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	inner, err := s.keys.Open(purposePayload, sealed, outerAD(secure.TokenKey("oldtokenAnon1"), "payload"))
	if err != nil || strings.Contains(string(inner), "anon secret") {
		t.Fatalf("converted payload under the master layer: %q, %v", inner, err)
	}
}
