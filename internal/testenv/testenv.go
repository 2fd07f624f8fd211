// Package testenv builds, for the tests of the packages above the service,
// a service over a fresh database of the engine under test
// (HUSH_TEST_ENGINE), with a settable clock and a file store in a temporary
// directory — the real parts, as `hush serve` wires them. It is imported by
// tests only.
package testenv

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"hush/internal/blob"
	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/service"
	"hush/internal/store"
	"hush/internal/testclock"
	"hush/internal/testdb"
)

// Start is the instant the clock of an Env shows at first.
var Start = time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)

// Env is a service and the parts it was built from.
type Env struct {
	DBURL    string // the database (a SQLite path or a PostgreSQL URL)
	Store    *store.Store
	Keys     *secure.Keyring
	Files    blob.FileStore
	FilesDir string
	Clock    *testclock.Clock
	Service  *service.Service
}

// New builds an Env with the default settings; configure, when set, may
// change the limits first. Everything is closed at the test's end.
func New(tb testing.TB, configure func(*service.Limits)) *Env {
	tb.Helper()
	return NewWithMail(tb, configure, nil)
}

// NewWithMail is New for a service that sends email through mailer (a real
// SMTP sender, e.g. to internal/mailtest's server): link dispatch and read
// receipts are on unless configure turns them off. The outbox is delivered
// when a test asks (Service.DeliverOutbox), at the Env's clock.
func NewWithMail(tb testing.TB, configure func(*service.Limits), mailer service.Mailer) *Env {
	tb.Helper()
	return NewWithDeps(tb, configure, func(d *service.Deps) { d.Mail = mailer })
}

// NewWithDeps is New with the service's dependencies changed by deps
// before it is built (an email sender, a webhook poster).
func NewWithDeps(tb testing.TB, configure func(*service.Limits), deps func(*service.Deps)) *Env {
	tb.Helper()
	ctx := context.Background()
	e := &Env{DBURL: testdb.URL(tb), Clock: testclock.New(Start), FilesDir: filepath.Join(tb.TempDir(), "files")}
	var err error
	if e.Store, err = store.Open(ctx, e.DBURL); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Store.Close() })
	if _, err := e.Store.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	if e.Keys, err = secure.NewKeyring(bytes.Repeat([]byte{7}, 32)); err != nil {
		tb.Fatal(err)
	}
	if e.Files, err = blob.NewDisk(e.FilesDir); err != nil {
		tb.Fatal(err)
	}
	// A cheap Argon2id: tests afford many derivations.
	d := service.Deps{Store: e.Store, Keys: e.Keys, Argon: secure.NewArgon(1, 64, 1, 4), Files: e.Files, Now: e.Clock.Now}
	if deps != nil {
		deps(&d)
	}
	limits := service.Limits{Settings: push.DefaultSettings()}
	limits.Settings.NotifyByEmail, limits.Settings.Receipts = d.Mail != nil, d.Mail != nil
	if configure != nil {
		configure(&limits)
	}
	e.Service = service.New(d, limits)
	return e
}

// User creates an account (with a password hash no password matches) and
// an API token for it, and returns both.
func (e *Env) User(tb testing.TB, email string) (*push.User, string) {
	tb.Helper()
	ctx := context.Background()
	u, err := e.Store.CreateUser(ctx, email, "not-a-real-hash", e.Clock.Now())
	if err != nil {
		tb.Fatal(err)
	}
	tok, err := e.Service.ReplaceToken(ctx, u)
	if err != nil {
		tb.Fatal(err)
	}
	return u, tok
}
