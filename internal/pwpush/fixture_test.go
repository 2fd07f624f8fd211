package pwpush

import (
	"crypto/md5"
	"database/sql"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"hush/internal/pwpush/pwpushtest"
	"hush/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// engines runs f on a SQLite database and on a PostgreSQL one (skipped
// without PostgreSQL unless HUSH_REQUIRE_ALL=1), in parallel.
func engines(t *testing.T, f func(t *testing.T, engine string)) {
	for _, e := range []string{EngineSQLite, EnginePostgres} {
		t.Run(e, func(t *testing.T) {
			t.Parallel()
			f(t, e)
		})
	}
}

// emptyDB returns the DSN of a new, empty database of the engine and a
// read-write handle on it, closed at cleanup.
func emptyDB(t *testing.T, engine string) (string, *sql.DB) { return pwpushtest.EmptyDB(t, engine) }

// schemaDB returns a database with Password Pusher's tables and nothing in
// them but the schema migrations.
func schemaDB(t *testing.T, engine string) (string, *sql.DB) { return pwpushtest.SchemaDB(t, engine) }

// The fixture's clock: every time in it is relative to fixedNow.
var fixedNow = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// ago is fixedNow less d, to the microsecond as Rails stores it.
func ago(d time.Duration) time.Time { return fixedNow.Add(-d).Truncate(time.Microsecond) }

// at is a time as the engine's column takes it from Rails.
func at(engine string, tm time.Time) any { return pwpushtest.At(engine, tm) }

// null is nil for "" (NULL), else s.
func null(s string) any { return pwpushtest.Null(s) }

// world is what a fixture database holds, as the readers should return it.
type world struct {
	dsn      string
	db       *sql.DB
	root     string // the Disk service root
	vec      *vectorFile
	users    []User
	pushes   []Push
	logs     map[int64][]AuditLog
	files    map[int64][]File
	contents map[string][]byte // blob key → file contents
}

// newWorld builds a Password Pusher database on the engine with users,
// pushes of every kind (live, run out, expired, deleted, one sealed with
// the previous master key), their audit logs and two attached files whose
// contents lie in a Disk service root.
func newWorld(t *testing.T, engine string) *world {
	t.Helper()
	dsn, db := schemaDB(t, engine)
	w := &world{dsn: dsn, db: db, root: t.TempDir(), vec: loadVectors(t), logs: map[int64][]AuditLog{},
		files: map[int64][]File{}, contents: map[string][]byte{}}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	hash := func(pw string) string {
		h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		return string(h)
	}
	ct := func(key, column, name string) (stored, plain string) {
		x := w.vec.Find(t, key, "pushes", column, name)
		return x.Ciphertext, x.Plaintext
	}

	otp := w.vec.Find(t, "current", "users", "otp_secret_ciphertext", "ascii")
	w.users = []User{
		{ID: 1, Email: "alice@example.com", EncryptedPassword: hash("alice's password"), AuthenticationToken: "Zx8yQ2mN4pL6kR1tV3wA",
			Admin: true, ConfirmedAt: ago(400 * 24 * time.Hour), SignInCount: 7, LastSignInAt: ago(2 * time.Hour),
			PreferredLanguage: "de", CreatedAt: ago(401 * 24 * time.Hour), UpdatedAt: ago(2 * time.Hour)},
		{ID: 2, Email: "bob@example.com", EncryptedPassword: hash("bob"), UnconfirmedEmail: "bob.new@example.com",
			LockedAt: ago(time.Hour), FailedAttempts: 5, OTPRequired: true, OTPSecret: otp.Plaintext,
			CreatedAt: ago(30 * 24 * time.Hour), UpdatedAt: ago(time.Hour)},
		{ID: 3, Email: "carol@example.org", EncryptedPassword: hash("ç∂ rol"), AuthenticationToken: "s3cr3tT0kenForCarolX",
			CreatedAt: ago(24 * time.Hour), UpdatedAt: ago(24 * time.Hour)},
	}
	for _, u := range w.users {
		otpCT := ""
		if u.OTPSecret != "" {
			otpCT = otp.Ciphertext
		}
		exec(`INSERT INTO users (id, email, encrypted_password, authentication_token, admin, confirmed_at,
			unconfirmed_email, locked_at, failed_attempts, sign_in_count, last_sign_in_at, preferred_language,
			otp_required_for_login, otp_secret_ciphertext, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
			u.ID, u.Email, u.EncryptedPassword, null(u.AuthenticationToken), u.Admin, at(engine, u.ConfirmedAt),
			null(u.UnconfirmedEmail), at(engine, u.LockedAt), u.FailedAttempts, u.SignInCount, at(engine, u.LastSignInAt),
			null(u.PreferredLanguage), u.OTPRequired, null(otpCT), at(engine, u.CreatedAt), at(engine, u.UpdatedAt))
	}

	// Each push: its row, the stored ciphertexts, its audit log kinds.
	type seed struct {
		p                          Push
		payload, note, passphrase  [2]string // key ("current", "previous", "" for a stored ""), vector name
		nullPayload, nullNote      bool
		nullPassphrase, nullDelete bool
		log                        []AuditKind
	}
	seeds := []seed{
		{p: Push{URLToken: "q2x7k0b9vyw1n3", Kind: KindText, ExpireAfterDays: 7, ExpireAfterViews: 5, DeletableByViewer: true,
			RetrievalStep: true, UserID: 1, Name: "Database password", CreatedAt: ago(24 * time.Hour), UpdatedAt: ago(time.Hour)},
			payload: [2]string{"current", "ascii"}, note: [2]string{"current", "utf8"},
			log: []AuditKind{AuditCreation, AuditView, AuditFailedPassphrase, AuditOwnerView, AuditAdminView, AuditView}},
		{p: Push{URLToken: "hs8fj2mc0p1z", Kind: KindURL, ExpireAfterDays: 3, ExpireAfterViews: 1,
			CreatedAt: ago(2 * time.Hour), UpdatedAt: ago(2 * time.Hour)},
			payload: [2]string{"current", "url"}, passphrase: [2]string{"current", "ascii"}, nullNote: true, nullDelete: true,
			log: []AuditKind{AuditCreation, AuditFailedPassphrase}},
		{p: Push{URLToken: "aaaabbbbccccdddd1", Kind: KindQR, ExpireAfterDays: 1, ExpireAfterViews: 10, DeletableByViewer: true,
			UserID: 3, CreatedAt: ago(25 * time.Hour), UpdatedAt: ago(25 * time.Hour)},
			payload: [2]string{"current", "utf8"}, log: []AuditKind{AuditCreation}},
		{p: Push{URLToken: "f1l3pu5h", Kind: KindFile, ExpireAfterDays: 14, ExpireAfterViews: 10, DeletableByViewer: true,
			UserID: 2, Name: "Contracts", CreatedAt: ago(72 * time.Hour), UpdatedAt: ago(70 * time.Hour)},
			payload: [2]string{"current", "empty"}, note: [2]string{"current", "ascii"},
			log: []AuditKind{AuditCreation, AuditCreationEmailSend, AuditView, AuditFailedView, AuditEdit}},
		{p: Push{URLToken: "expiredtoken01", Kind: KindText, ExpireAfterDays: 7, ExpireAfterViews: 1, Expired: true,
			ExpiredOn: ago(3 * time.Hour), DeletableByViewer: true, Name: "old", CreatedAt: ago(5 * time.Hour), UpdatedAt: ago(3 * time.Hour)},
			nullPayload: true, nullPassphrase: true, note: [2]string{"current", "ascii"},
			log: []AuditKind{AuditCreation, AuditView, AuditFailedView}},
		{p: Push{URLToken: "deleted-by-owner", Kind: KindText, ExpireAfterDays: 7, ExpireAfterViews: 5, Expired: true,
			ExpiredOn: ago(4 * time.Hour), DeletableByViewer: true, UserID: 1, Deleted: true, CreatedAt: ago(6 * time.Hour),
			UpdatedAt: ago(4 * time.Hour)},
			nullPayload: true, nullPassphrase: true, log: []AuditKind{AuditCreation, AuditExpire}},
		{p: Push{URLToken: "sealed_with_previous_key", Kind: KindText, ExpireAfterDays: 90, ExpireAfterViews: 100,
			DeletableByViewer: true, CreatedAt: ago(80 * 24 * time.Hour), UpdatedAt: ago(80 * 24 * time.Hour)},
			payload: [2]string{"previous", "long"}, note: [2]string{"previous", "utf8"}, passphrase: [2]string{"previous", "ascii"}},
		{p: Push{URLToken: "newest", Kind: KindText, ExpireAfterDays: 1, ExpireAfterViews: 1, CreatedAt: ago(time.Minute),
			UpdatedAt: ago(time.Minute)},
			payload: [2]string{"current", "long"}, note: [2]string{"current", "url"}, passphrase: [2]string{"current", "utf8"}},
	}
	logID := int64(0)
	for i, s := range seeds {
		p := s.p
		p.ID = int64(i + 1)
		p.Decrypted = true
		stored := [3]any{}
		for j, c := range []struct {
			col  string
			v    [2]string
			null bool
			out  *sql.Null[string]
		}{{"payload_ciphertext", s.payload, s.nullPayload, &p.Payload}, {"note_ciphertext", s.note, s.nullNote, &p.Note},
			{"passphrase_ciphertext", s.passphrase, s.nullPassphrase, &p.Passphrase}} {
			switch {
			case c.null:
				stored[j] = nil
			case c.v[0] == "":
				stored[j] = ""
				*c.out = sql.Null[string]{Valid: true}
			default:
				st, plain := ct(c.v[0], c.col, c.v[1])
				stored[j] = st
				*c.out = sql.Null[string]{V: plain, Valid: true}
			}
		}
		var deletable any = p.DeletableByViewer
		if s.nullDelete {
			deletable = nil
		}
		var user any
		if p.UserID != 0 {
			user = p.UserID
		}
		exec(`INSERT INTO pushes (id, url_token, kind, expire_after_days, expire_after_views, expired, expired_on,
			deletable_by_viewer, retrieval_step, user_id, name, created_at, updated_at, payload_ciphertext,
			note_ciphertext, passphrase_ciphertext) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
			p.ID, p.URLToken, int(p.Kind), p.ExpireAfterDays, p.ExpireAfterViews, p.Expired, at(engine, p.ExpiredOn),
			deletable, p.RetrievalStep, user, p.Name, at(engine, p.CreatedAt), at(engine, p.UpdatedAt),
			stored[0], stored[1], stored[2])
		for k, kind := range s.log {
			logID++
			a := AuditLog{ID: logID, PushID: p.ID, Kind: kind, IP: fmt.Sprintf("203.0.113.%d", k+1),
				UserAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0", Referrer: "https://mail.example.com/",
				CreatedAt: p.CreatedAt.Add(time.Duration(k) * time.Minute), UpdatedAt: p.CreatedAt.Add(time.Duration(k) * time.Minute)}
			if kind == AuditCreation || kind == AuditOwnerView || kind == AuditExpire || kind == AuditEdit {
				a.UserID = p.UserID
			}
			if kind == AuditAdminView {
				a.UserID, a.Referrer = 1, ""
			}
			if kind.Counted() {
				p.ViewCount++
			}
			exec(`INSERT INTO audit_logs (id, push_id, kind, ip, user_agent, referrer, user_id, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, a.ID, a.PushID, int(a.Kind), a.IP, a.UserAgent,
				a.Referrer, null0(a.UserID), at(engine, a.CreatedAt), at(engine, a.UpdatedAt))
			w.logs[p.ID] = append(w.logs[p.ID], a)
		}
		w.pushes = append(w.pushes, p)
	}

	// Files of the file push (id 4), and a leftover attachment of a legacy
	// FilePush with the same record id, which is not the push's.
	blobs := []struct {
		key, name, ctype, record string
		data                     []byte
	}{
		{"kq3v8x1m0z2b7n4c6d9f5g1h3j0a", "contract.pdf", "application/pdf", "Push", []byte("%PDF-1.7\nnot really a PDF\n")},
		{"0p9o8i7u6y5t4r3e2w1q0a9s8d7f", "notes ü.txt", "text/plain", "Push", []byte(strings.Repeat("line of notes\n", 5000))},
		{"zzzzyyyyxxxxwwwwvvvvuuuutttt", "legacy.txt", "text/plain", "FilePush", []byte("legacy")},
	}
	for i, b := range blobs {
		sum := md5.Sum(b.data)
		f := File{AttachmentID: int64(10 + i), PushID: 4, AttachedAt: ago(72 * time.Hour), Blob: Blob{ID: int64(20 + i),
			Key: b.key, Filename: b.name, ContentType: b.ctype, ByteSize: int64(len(b.data)),
			Checksum: base64.StdEncoding.EncodeToString(sum[:]), ServiceName: "local",
			Metadata: `{"identified":true,"analyzed":true}`, CreatedAt: ago(72 * time.Hour)}}
		exec(`INSERT INTO active_storage_blobs (id, key, filename, content_type, metadata, service_name, byte_size,
			checksum, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, f.Blob.ID, f.Key, f.Filename,
			f.ContentType, f.Metadata, f.ServiceName, f.ByteSize, f.Checksum, at(engine, f.CreatedAt))
		exec(`INSERT INTO active_storage_attachments (id, name, record_type, record_id, blob_id, created_at)
			VALUES ($1, 'files', $2, $3, $4, $5)`, f.AttachmentID, b.record, f.PushID, f.Blob.ID, at(engine, f.AttachedAt))
		// Active Storage's Disk layout: root/xx/yy/key.
		dir := filepath.Join(w.root, b.key[:2], b.key[2:4])
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, b.key), b.data, 0o644); err != nil {
			t.Fatal(err)
		}
		w.contents[b.key] = b.data
		if b.record == "Push" {
			w.files[f.PushID] = append(w.files[f.PushID], f)
		}
	}
	if engine == EnginePostgres {
		for _, t := range []string{"users", "pushes", "audit_logs", "active_storage_blobs", "active_storage_attachments"} {
			exec(`SELECT setval(pg_get_serial_sequence('` + t + `', 'id'), (SELECT max(id) FROM ` + t + `))`)
		}
	}
	return w
}

// null0 is nil for 0 (NULL), else n.
func null0(n int64) any { return pwpushtest.Null0(n) }
