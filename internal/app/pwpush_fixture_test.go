package app

import (
	"bytes"
	"context"
	"crypto/md5"
	"database/sql"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"hush/internal/blob/s3test"
	"hush/internal/pwpush/pwpushtest"
)

// A Password Pusher deployment for the importer's tests: its database (the
// real schema, on SQLite or PostgreSQL) with users whose password hashes
// Ruby's bcrypt made as Devise does, API tokens, pushes of every kind whose
// secrets the Lockbox gem encrypted, audit logs, and files on its Disk
// service and in an S3 bucket.

// oldUser is an account of the deployment.
type oldUser struct {
	id              int64
	email, password string // password "": none Hush can check
	token           string
	hash            string
	otp             bool
}

// oldPush is a push of the deployment, with what Hush must serve of it.
type oldPush struct {
	id                        int64
	token, kind               string
	owner                     int64
	payload, note, passphrase string // plaintexts; "" none
	days, views, viewed       int
	expired, deleted, live    bool
	files                     map[string][]byte // filename → contents
	onS3                      bool
}

type pwpushDeployment struct {
	engine  string
	dsn     string
	db      *sql.DB
	root    string // the Disk service's root (storage/)
	keys    map[string]string
	users   []oldUser
	pushes  []oldPush
	env     map[string]string // PWPUSH_MASTER_KEY… and PWP__FILES__S3__…, as Password Pusher runs with
	secrets []string          // what must never be printed nor stored in clear
}

func (d *pwpushDeployment) push(token string) oldPush {
	for _, p := range d.pushes {
		if p.token == token {
			return p
		}
	}
	panic("no push " + token)
}

func (d *pwpushDeployment) user(email string) oldUser {
	for _, u := range d.users {
		if u.email == email {
			return u
		}
	}
	panic("no user " + email)
}

// newPwpushDeployment builds the deployment on the engine. keyName is the
// master key its pushes are encrypted with ("current", or "default" for a
// deployment that never set one); with s3 its S3 file push lives in a
// bucket of that server.
func newPwpushDeployment(t *testing.T, engine, keyName string, s3 *s3test.Server) *pwpushDeployment {
	t.Helper()
	d := &pwpushDeployment{engine: engine, root: t.TempDir(), env: map[string]string{}}
	d.dsn, d.db = pwpushtest.SchemaDB(t, engine)
	vec := pwpushtest.LoadVectors(t)
	d.keys = vec.MasterKeys
	if keyName == "current" {
		d.env["PWPUSH_MASTER_KEY"] = vec.MasterKeys["current"]
		d.env["PWPUSH_MASTER_KEY_PREVIOUS"] = vec.MasterKeys["previous"]
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := d.db.Exec(q, args...); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	at := func(tm time.Time) any { return pwpushtest.At(engine, tm) }

	aliceHash, alicePW := pwpushtest.BcryptVector(t, "ascii", 4)
	bobHash, bobPW := pwpushtest.BcryptVector(t, "utf8", 5)
	d.users = []oldUser{
		{id: 1, email: "alice@example.com", password: alicePW, hash: aliceHash, token: "Zx8yQ2mN4pL6kR1tV3wA"},
		{id: 2, email: "bob@example.com", password: bobPW, hash: bobHash, otp: true},
		{id: 3, email: "carol@example.org", token: "s3cr3tT0kenForCarolX"},
	}
	for _, u := range d.users {
		exec(`INSERT INTO users (id, email, encrypted_password, authentication_token, admin, otp_required_for_login,
			sign_in_count, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 3, $7, $7)`,
			u.id, u.email, u.hash, pwpushtest.Null(u.token), u.id == 1, u.otp, at(ago(300*24*time.Hour)))
		d.secrets = append(d.secrets, u.token, u.password)
	}

	// ct is the stored value of a plaintext vector name ("" stores "").
	ct := func(key, column, name string) (stored any, plain string) {
		if name == "" {
			return "", ""
		}
		if key == "default" {
			name = "ascii" // the only plaintext encrypted under the default key
		}
		x := vec.Find(t, key, "pushes", column, name)
		return x.Ciphertext, x.Plaintext
	}
	type seed struct {
		p                         oldPush
		key                       string // "" is keyName
		payload, note, passphrase string // vector names
		nullPayload               bool
		created                   time.Time
		log                       []int
	}
	pdf := []byte("%PDF-1.7\nnot really a PDF\n")
	notes := bytes.Repeat([]byte("line of notes\n"), 20000) // several stream chunks
	seeds := []seed{
		{p: oldPush{token: "q2x7k0b9vyw1n3", kind: "text", owner: 1, days: 7, views: 5, viewed: 2, live: true},
			payload: "ascii", note: "utf8", passphrase: "utf8", created: ago(26 * time.Hour),
			log: []int{0, 1, 4, 6, 7, 1}}, // creation, view, failed_passphrase, owner_view, edit, view
		{p: oldPush{token: "hs8fj2mc0p1z", kind: "url", days: 3, views: 1, live: true},
			payload: "url", created: ago(2 * time.Hour), log: []int{0, 8}}, // creation, creation_email_send
		{p: oldPush{token: "aaaabbbbccccdddd1", kind: "qr", owner: 3, days: 2, views: 10, live: true},
			payload: "ascii", created: ago(25 * time.Hour), log: []int{0}},
		{p: oldPush{token: "f1l3pu5h", kind: "file", owner: 1, days: 14, views: 10, viewed: 1, live: true,
			files: map[string][]byte{"contract.pdf": pdf, "notes ü.txt": notes}},
			note: "ascii", created: ago(72 * time.Hour), log: []int{0, 1}},
		{p: oldPush{token: "expiredtoken01", kind: "text", days: 7, views: 1, viewed: 1, expired: true},
			note: "ascii", nullPayload: true, created: ago(5 * time.Hour), log: []int{0, 1}},
		{p: oldPush{token: "deleted-by-owner", kind: "text", owner: 1, days: 7, views: 5, expired: true, deleted: true},
			nullPayload: true, created: ago(6 * time.Hour), log: []int{0, 3}},
		{p: oldPush{token: "ran-out-of-days", kind: "text", owner: 1, days: 7, views: 5},
			payload: "utf8", created: ago(8 * 24 * time.Hour), log: []int{0}},
	}
	if keyName == "current" {
		// The oldest push, from before the key was rotated.
		seeds = append([]seed{{p: oldPush{token: "sealed_with_previous_key", kind: "text", days: 90, views: 100, live: true},
			key: "previous", payload: "long", note: "utf8", passphrase: "ascii", created: ago(80 * 24 * time.Hour)}}, seeds...)
	}
	if s3 != nil {
		bucket := s3.Bucket(t)
		d.env["PWP__FILES__S3__BUCKET"] = bucket
		d.env["PWP__FILES__S3__ENDPOINT"] = "http://" + s3.Endpoint
		d.env["PWP__FILES__S3__ACCESS_KEY_ID"] = s3test.AccessKey
		d.env["PWP__FILES__S3__SECRET_ACCESS_KEY"] = s3test.SecretKey
		d.env["PWP__FILES__S3__REGION"] = "us-east-1"
		seeds = append(seeds, seed{p: oldPush{token: "s3-file-push-0001", kind: "file", owner: 1, days: 5, views: 5, live: true,
			onS3: true, files: map[string][]byte{"id_ed25519": bytes.Repeat([]byte("ssh key bytes "), 10000)}},
			passphrase: "ascii", created: ago(time.Hour), log: []int{0}})
	}

	logID, blobID := int64(0), int64(0)
	for i, s := range seeds {
		p := s.p
		p.id = int64(i + 1)
		key := keyName
		if s.key != "" {
			key = s.key
		}
		var payload any
		if !s.nullPayload {
			payload, p.payload = ct(key, "payload_ciphertext", s.payload)
		}
		note, notePlain := ct(key, "note_ciphertext", s.note)
		pass, passPlain := ct(key, "passphrase_ciphertext", s.passphrase)
		p.note, p.passphrase = notePlain, passPlain
		if s.nullPayload {
			pass = nil
		}
		var deletable any = true
		if p.kind == "url" {
			deletable = nil
		}
		var expiredOn time.Time
		if p.expired {
			expiredOn = s.created.Add(time.Hour)
		}
		exec(`INSERT INTO pushes (id, url_token, kind, expire_after_days, expire_after_views, expired, expired_on,
			deletable_by_viewer, retrieval_step, user_id, name, created_at, updated_at, payload_ciphertext,
			note_ciphertext, passphrase_ciphertext) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13, $14, $15)`,
			p.id, p.token, map[string]int{"text": 0, "file": 1, "url": 2, "qr": 3}[p.kind], p.days, p.views, p.expired,
			at(expiredOn), deletable, p.token == "q2x7k0b9vyw1n3", pwpushtest.Null0(p.owner), "push "+p.token[:4], at(s.created), payload, note, pass)
		for k, kind := range s.log {
			logID++
			var user int64
			if kind == 0 || kind == 3 || kind == 6 || kind == 7 {
				user = p.owner
			}
			exec(`INSERT INTO audit_logs (id, push_id, kind, ip, user_agent, referrer, user_id, created_at, updated_at)
				VALUES ($1, $2, $3, $4, 'Mozilla/5.0 Firefox/140.0', '', $5, $6, $6)`, logID, p.id, kind,
				"203.0.113."+string(rune('1'+k)), pwpushtest.Null0(user), at(s.created.Add(time.Duration(k)*time.Minute)))
		}
		for name, data := range p.files {
			blobID++
			key := strings.Repeat(string(rune('a'+blobID)), 4) + "q3v8x1m0z2b7n4c6d9f5g1h3"
			sum := md5.Sum(data)
			service := "local"
			if p.onS3 {
				service = "amazon"
				if _, err := s3.Client.PutObject(context.Background(), d.env["PWP__FILES__S3__BUCKET"], key, bytes.NewReader(data),
					int64(len(data)), minio.PutObjectOptions{}); err != nil {
					t.Fatal(err)
				}
			} else {
				dir := filepath.Join(d.root, key[:2], key[2:4])
				os.MkdirAll(dir, 0o755)
				if err := os.WriteFile(filepath.Join(dir, key), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			exec(`INSERT INTO active_storage_blobs (id, key, filename, content_type, metadata, service_name, byte_size,
				checksum, created_at) VALUES ($1, $2, $3, 'application/octet-stream', '{}', $4, $5, $6, $7)`,
				blobID, key, name, service, len(data), base64.StdEncoding.EncodeToString(sum[:]), at(s.created))
			exec(`INSERT INTO active_storage_attachments (id, name, record_type, record_id, blob_id, created_at)
				VALUES ($1, 'files', 'Push', $2, $3, $4)`, blobID, p.id, blobID, at(s.created))
		}
		d.pushes = append(d.pushes, p)
		d.secrets = append(d.secrets, p.token)
		for _, v := range []string{p.payload, p.passphrase, p.note} {
			if len(v) > 3 {
				d.secrets = append(d.secrets, v)
			}
		}
	}
	if engine == pwpushtest.Postgres {
		for _, table := range []string{"users", "pushes", "audit_logs", "active_storage_blobs", "active_storage_attachments"} {
			exec(`SELECT setval(pg_get_serial_sequence('` + table + `', 'id'), (SELECT GREATEST(MAX(id), 1) FROM ` + table + `))`)
		}
	}
	return d
}

// addUser adds a user without password or token to the deployment, as
// one signing up after an import ran.
func (d *pwpushDeployment) addUser(t *testing.T, id int64, email string) {
	t.Helper()
	created := pwpushtest.At(d.engine, time.Now().UTC().Truncate(time.Microsecond))
	if _, err := d.db.Exec(`INSERT INTO users (id, email, encrypted_password, admin, otp_required_for_login,
		sign_in_count, created_at, updated_at) VALUES ($1, $2, '', false, false, 1, $3, $3)`, id, email, created); err != nil {
		t.Fatal(err)
	}
	d.users = append(d.users, oldUser{id: id, email: email})
}

// addPush adds a live text push of owner to the deployment (its payload
// under the current key), as one made after an import ran.
func (d *pwpushDeployment) addPush(t *testing.T, id int64, token string, owner int64) oldPush {
	t.Helper()
	x := pwpushtest.LoadVectors(t).Find(t, "current", "pushes", "payload_ciphertext", "ascii")
	created := pwpushtest.At(d.engine, time.Now().UTC().Add(-time.Minute).Truncate(time.Microsecond))
	if _, err := d.db.Exec(`INSERT INTO pushes (id, url_token, kind, expire_after_days, expire_after_views, expired,
		deletable_by_viewer, retrieval_step, user_id, name, created_at, updated_at, payload_ciphertext, note_ciphertext,
		passphrase_ciphertext) VALUES ($1, $2, 0, 7, 5, false, true, false, $3, '', $4, $4, $5, '', '')`,
		id, token, owner, created, x.Ciphertext); err != nil {
		t.Fatal(err)
	}
	p := oldPush{id: id, token: token, kind: "text", owner: owner, payload: x.Plaintext, days: 7, views: 5, live: true}
	d.pushes = append(d.pushes, p)
	d.secrets = append(d.secrets, token)
	return p
}
