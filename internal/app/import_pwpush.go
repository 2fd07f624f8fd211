package app

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"hush/internal/config"
	"hush/internal/push"
	"hush/internal/pwpush"
	"hush/internal/secure"
	"hush/internal/service"
	"hush/internal/store"
)

// importMarker is the meta entry that says an import-pwpush run filled the
// database: a later run may add to it, where any other non-empty database
// is refused.
const importMarker = "pwpush_import"

// importOptions are the flags of import-pwpush.
type importOptions struct {
	from, masterKey, masterKeyFile, storage string
	skipExpired                             bool
}

// importPwpush copies a Password Pusher deployment into the configured
// database and file store (docs/decisions.md, D28):
// hush import-pwpush --from DATABASE_URL [--pwpush-master-key K] [--pwpush-storage DIR].
func (e *env) importPwpush(ctx context.Context, args []string) error {
	var o importOptions
	cfg, err := e.adminFlags("import-pwpush", args, func(fs *flag.FlagSet) {
		fs.StringVar(&o.from, "from", "", "Password Pusher's DATABASE_URL (postgres://…) or SQLite file (required)")
		fs.StringVar(&o.masterKey, "pwpush-master-key", "", "Password Pusher's PWPUSH_MASTER_KEY (else PWPUSH_MASTER_KEY, else its default key)")
		fs.StringVar(&o.masterKeyFile, "pwpush-master-key-file", "", "a file holding Password Pusher's master key (as PWPUSH_MASTER_KEY_FILE)")
		fs.StringVar(&o.storage, "pwpush-storage", "", "Password Pusher's storage/ directory, where its Disk service keeps files")
		fs.BoolVar(&o.skipExpired, "skip-expired", false, "leave expired pushes behind (they are imported as expired records by default)")
	})
	if err != nil {
		return err
	}
	if o.from == "" {
		fmt.Fprintln(e.stderr, "usage: hush import-pwpush --from DATABASE [--pwpush-master-key K] [--pwpush-storage DIR] [--skip-expired]")
		return errUsage
	}
	im, err := e.newImporter(ctx, cfg, o)
	if err != nil {
		return oneLine(err)
	}
	defer im.close()
	return oneLine(im.run(ctx))
}

// oneLine joins the lines of an error's text (some drivers write several)
// so that bad input is reported on one line.
func oneLine(err error) error {
	if err == nil || !strings.ContainsAny(err.Error(), "\n\t") {
		return err
	}
	return errors.New(strings.Join(strings.Fields(err.Error()), " "))
}

// importer is one run of import-pwpush.
type importer struct {
	e        *env
	opts     importOptions
	src      *pwpush.Source
	keys     *pwpush.Keys // nil: the pushes cannot be decrypted
	noKeyWhy string       // why keys is nil
	storages *pwpush.Storages
	st       *store.Store
	svc      *service.Service
	now      time.Time
	users    map[int64]int64 // Password Pusher's user id → the Hush account an import made for it
	taken    map[int64]bool  // Password Pusher's user ids whose address an account no import made for them holds
	sum      importSummary
	progress *progressLine
}

// newImporter opens both sides and checks what is given, failing with one
// line for bad input: an unreadable source, a key that is malformed or does
// not decrypt, a database that holds what no import put there.
func (e *env) newImporter(ctx context.Context, cfg *config.Config, o importOptions) (*importer, error) {
	im := &importer{e: e, opts: o, now: time.Now().UTC(), users: map[int64]int64{}, taken: map[int64]bool{},
		progress: newProgressLine(e.stderr)}
	var err error
	if im.src, err = pwpush.Open(ctx, o.from); err != nil {
		return nil, err
	}
	if err := im.openKeys(ctx); err != nil {
		im.src.Close()
		return nil, err
	}
	if im.storages, err = e.pwpushStorages(ctx, o.storage); err != nil {
		im.src.Close()
		return nil, err
	}
	log := newLogger(e.stderr, cfg.LogFormat, cfg.LogLevel)
	if err := im.openTarget(ctx, cfg, log); err != nil {
		im.close()
		return nil, err
	}
	return im, nil
}

func (im *importer) close() {
	if im.st != nil {
		im.st.Close()
	}
	im.src.Close()
}

// openKeys chooses the master key of the source: the flag, the key file,
// PWPUSH_MASTER_KEY(_FILE), else Password Pusher's default key. A key that
// was given must decrypt; the default key may not, and then the pushes are
// left behind.
func (im *importer) openKeys(ctx context.Context) error {
	master, given, err := im.masterKey()
	if err != nil {
		return err
	}
	if !given {
		fmt.Fprintln(im.e.stderr, "no Password Pusher master key given: trying its default key")
	}
	keys, err := pwpush.ParseKeys(master, im.e.getenv("PWPUSH_MASTER_KEY_PREVIOUS"))
	if err != nil {
		return fmt.Errorf("Password Pusher %w", err)
	}
	err = im.src.CheckKeys(ctx, keys)
	switch {
	case err == nil:
		im.keys = keys
		return nil
	case !errors.Is(err, pwpush.ErrDecrypt) && !errors.Is(err, pwpush.ErrNotCiphertext):
		return err
	case given:
		return errors.New("the Password Pusher master key does not decrypt its pushes: give the PWPUSH_MASTER_KEY " +
			"it runs with (and PWPUSH_MASTER_KEY_PREVIOUS if it was rotated)")
	}
	im.noKeyWhy = "Password Pusher's default key does not decrypt them: run again with --pwpush-master-key " +
		"(its PWPUSH_MASTER_KEY) to import them"
	return nil
}

// masterKey returns the source's master key and whether one was given.
func (im *importer) masterKey() (string, bool, error) {
	file := im.opts.masterKeyFile
	switch {
	case im.opts.masterKey != "":
		return im.opts.masterKey, true, nil
	case file == "" && im.e.getenv("PWPUSH_MASTER_KEY") != "":
		return im.e.getenv("PWPUSH_MASTER_KEY"), true, nil
	case file == "":
		file = im.e.getenv("PWPUSH_MASTER_KEY_FILE")
	}
	if file == "" {
		return "", false, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", false, fmt.Errorf("read Password Pusher master key: %w", err)
	}
	return strings.TrimSpace(string(b)), true, nil
}

// pwpushStorages returns where the source's files are read: the Disk root
// given, and the S3 bucket of PWP__FILES__S3__BUCKET and its settings.
func (e *env) pwpushStorages(ctx context.Context, root string) (*pwpush.Storages, error) {
	if root != "" {
		if st, err := os.Stat(root); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("--pwpush-storage %s: not a directory", root)
		}
	}
	var bucket *pwpush.S3Bucket
	if b := e.getenv("PWP__FILES__S3__BUCKET"); b != "" {
		bucket = &pwpush.S3Bucket{Bucket: b, Endpoint: e.getenv("PWP__FILES__S3__ENDPOINT"),
			AccessKeyID: e.getenv("PWP__FILES__S3__ACCESS_KEY_ID"), SecretAccessKey: e.getenv("PWP__FILES__S3__SECRET_ACCESS_KEY"),
			Region: e.getenv("PWP__FILES__S3__REGION")}
	}
	st, err := pwpush.NewStorages(root, bucket)
	if err != nil {
		return nil, fmt.Errorf("Password Pusher's files: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, s3PingTimeout)
	defer cancel()
	if err := st.Ping(pctx); err != nil {
		return nil, fmt.Errorf("Password Pusher's S3 bucket (PWP__FILES__S3__*): %w", err)
	}
	return st, nil
}

// openTarget opens Hush's database (migrated, with its master key) and file
// store, and makes sure the database is empty or was filled by an earlier
// import.
func (im *importer) openTarget(ctx context.Context, cfg *config.Config, log *slog.Logger) error {
	keys, st, err := openKeyed(ctx, cfg, log, true)
	if err != nil {
		return err
	}
	im.st = st
	files, err := openFileStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	im.svc = service.New(service.Deps{Store: st, Keys: keys, Argon: secure.DefaultArgon(), Files: files},
		service.Limits{Settings: cfg.Push, MaxFileSize: cfg.MaxFileSize, MaxPushSize: cfg.MaxPushSize})
	users, pushes, err := st.Holdings(ctx)
	if err != nil {
		return err
	}
	marker, err := st.Meta(ctx, importMarker)
	if err != nil {
		return err
	}
	switch {
	case marker != nil:
		im.sum.again = true
		return nil
	case users > 0 || pushes > 0:
		return fmt.Errorf("the Hush %s database already holds %d users and %d pushes, not put there by import-pwpush: "+
			"import into an empty database", st.Engine(), users, pushes)
	}
	v, _ := json.Marshal(map[string]any{"first_run": im.now.Format(time.RFC3339), "source_engine": im.src.Engine(),
		"source_schema": im.src.SchemaVersion()})
	_, err = st.SetMeta(ctx, importMarker, v, true)
	return err
}

// run imports the users, then the pushes, and prints the summary. It fails
// when a push that should have been imported was not (each is listed).
func (im *importer) run(ctx context.Context) error {
	counts, err := im.src.Count(ctx)
	if err != nil {
		return err
	}
	im.progress.totals(counts)
	if err := im.importUsers(ctx); err != nil {
		im.progress.done()
		return err
	}
	if err := im.importPushes(ctx, counts.Pushes); err != nil {
		im.progress.done()
		return err
	}
	im.progress.done()
	im.sum.print(im.e.stdout, im)
	if n := len(im.sum.failures); n > 0 {
		return fmt.Errorf("%s not be imported (listed above); fix what they need and run the import again: "+
			"what was imported stays, and nothing is imported twice", plural(n, "push could", "pushes could"))
	}
	return nil
}

func (im *importer) importUsers(ctx context.Context) error {
	for u, err := range im.src.Users(ctx, nil) {
		if err != nil {
			return err
		}
		got, err := im.svc.ImportUser(ctx, service.ImportUser{SourceID: u.ID, Email: u.Email, PasswordHash: u.EncryptedPassword,
			APIToken: u.AuthenticationToken, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt})
		if err != nil {
			return fmt.Errorf("user %d: %w", u.ID, err)
		}
		if got.Taken {
			// Someone else's account: this user's pushes are left behind.
			im.taken[u.ID] = true
		} else {
			im.users[u.ID] = got.ID
		}
		im.sum.addUser(u, got)
		im.progress.user()
	}
	return nil
}

func (im *importer) importPushes(ctx context.Context, total int64) error {
	if im.keys == nil {
		im.sum.pushesLeft = total
		return nil
	}
	for p, err := range im.src.Pushes(ctx, im.keys) {
		var de *pwpush.DecryptError
		switch {
		case errors.As(err, &de):
			im.fail(p.ID, errors.New("its secrets do not decrypt with the master key (or a previous one)"))
			continue
		case err != nil:
			return err
		}
		if err := im.importPush(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// importPush imports one push; it returns only the errors that end the
// run (a failing database), and records the rest as the push's failure.
func (im *importer) importPush(ctx context.Context, p pwpush.Push) error {
	defer im.progress.push()
	im.sum.pendingBytes = 0
	live := p.Live(im.now) && !p.Deleted
	if !live && im.opts.skipExpired {
		im.sum.skippedExpired++
		return nil
	}
	if im.taken[p.UserID] {
		return im.leaveBehind(ctx, p)
	}
	in, err := im.pushInput(ctx, p, live)
	if err != nil {
		return im.fail(p.ID, err)
	}
	ok, err := im.svc.ImportPush(ctx, in)
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return im.fail(p.ID, err)
	case !ok:
		im.sum.pushesThere++
		return nil
	}
	im.sum.addPush(live, in, p)
	return nil
}

// leaveBehind does not import p, whose owner's address is held by a Hush
// account no import made for that owner: the account must not get the
// push. A push an earlier run imported is counted as there.
func (im *importer) leaveBehind(ctx context.Context, p pwpush.Push) error {
	there, err := im.svc.ImportedAlready(ctx, p.URLToken)
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return im.fail(p.ID, err)
	case there:
		im.sum.pushesThere++
	default:
		im.sum.leaveBehind(p.UserID)
	}
	return nil
}

// fail records why a push was not imported; the run goes on.
func (im *importer) fail(id int64, err error) error {
	im.sum.failures = append(im.sum.failures, fmt.Sprintf("push %d: %v", id, err))
	im.progress.failed()
	return nil
}

// pushInput is what the service imports of p: the secret of a live push
// (nil for an expired one), its audit log and, if live, its files.
func (im *importer) pushInput(ctx context.Context, p pwpush.Push, live bool) (service.ImportPush, error) {
	kind, ok := push.ParseKind(p.Kind.String())
	if !ok {
		return service.ImportPush{}, fmt.Errorf("unknown kind %s", p.Kind)
	}
	owner := im.users[p.UserID]
	if p.UserID != 0 && owner == 0 {
		return service.ImportPush{}, fmt.Errorf("its owner (user %d) was not imported", p.UserID)
	}
	deletable := p.DeletableByViewer
	in := service.ImportPush{Token: p.URLToken, Kind: kind, Owner: owner, Name: p.Name, Note: p.Note.V,
		ExpireAfterDays: p.ExpireAfterDays, ExpireAfterViews: p.ExpireAfterViews, ViewCount: p.ViewCount,
		DeletableByViewer: &deletable, RetrievalStep: p.RetrievalStep, Deleted: p.Deleted,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	lastView, err := im.events(ctx, p.ID, &in)
	if err != nil {
		return in, err
	}
	if !live {
		in.ExpiredOn = expiredOn(p, lastView, im.now)
		return in, nil
	}
	payload := p.Payload.V
	in.Payload, in.Passphrase = &payload, p.Passphrase.V
	for f, err := range im.src.Files(ctx, p.ID) {
		if err != nil {
			return in, err
		}
		in.Files = append(in.Files, service.ImportFile{Name: f.Filename, ContentType: f.ContentType,
			Open: func(ctx context.Context) (io.ReadCloser, error) { return im.storages.Open(ctx, f.Blob) }})
		im.sum.pendingBytes += f.ByteSize
	}
	return in, nil
}

// events reads a push's audit log into in.Events, leaving out the kinds
// Hush does not keep, and returns when the last counted view was.
func (im *importer) events(ctx context.Context, id int64, in *service.ImportPush) (time.Time, error) {
	var lastView time.Time
	for a, err := range im.src.AuditLogs(ctx, id) {
		if err != nil {
			return lastView, err
		}
		if a.Kind < pwpush.AuditCreation || a.Kind > pwpush.AuditOwnerView {
			im.sum.logsLeftOut++ // edit, creation_email_send: Hush has no such events
			continue
		}
		if a.Kind.Counted() {
			lastView = a.CreatedAt
		}
		in.Events = append(in.Events, push.Event{Kind: push.EventKind(a.Kind), IP: a.IP, UserAgent: a.UserAgent,
			Referrer: a.Referrer, UserID: im.users[a.UserID], CreatedAt: a.CreatedAt})
	}
	return lastView, nil
}

// expiredOn is when an expired push expired: as Password Pusher recorded
// it, else when its days or its views ran out.
func expiredOn(p pwpush.Push, lastView, now time.Time) time.Time {
	switch {
	case !p.ExpiredOn.IsZero():
		return p.ExpiredOn
	case p.ExpireAfterViews > 0 && p.ViewCount >= p.ExpireAfterViews && !lastView.IsZero():
		return lastView
	case p.ExpiresAt().Before(now):
		return p.ExpiresAt()
	}
	return now
}
