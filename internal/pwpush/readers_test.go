package pwpush

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

func openWorld(t *testing.T, w *world) *Source {
	t.Helper()
	s, err := Open(context.Background(), w.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func (w *world) keys(t *testing.T, previous bool) *Keys {
	t.Helper()
	prev := ""
	if previous {
		prev = w.vec.MasterKeys["previous"]
	}
	k, err := ParseKeys(w.vec.MasterKeys["current"], prev)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestReadEverything(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		w := newWorld(t, engine)
		s := openWorld(t, w)
		if s.Engine() != engine || s.SchemaVersion() != "20260509010000" {
			t.Errorf("engine %s, schema version %q", s.Engine(), s.SchemaVersion())
		}
		keys := w.keys(t, true)

		var users []User
		for u, err := range s.Users(ctx, keys) {
			if err != nil {
				t.Fatal(err)
			}
			users = append(users, u)
		}
		if !reflect.DeepEqual(users, w.users) {
			t.Errorf("users:\n got %+v\nwant %+v", users, w.users)
		}
		for i, u := range users {
			if bcrypt.CompareHashAndPassword([]byte(u.EncryptedPassword), []byte([]string{"alice's password", "bob", "ç∂ rol"}[i])) != nil {
				t.Errorf("user %d: the bcrypt hash does not check", u.ID)
			}
		}

		// Audit logs and files are read inside the pushes' loop, as the
		// importer will.
		var pushes []Push
		logs, files := map[int64][]AuditLog{}, map[int64][]File{}
		for p, err := range s.Pushes(ctx, keys) {
			if err != nil {
				t.Fatal(err)
			}
			pushes = append(pushes, p)
			for a, err := range s.AuditLogs(ctx, p.ID) {
				if err != nil {
					t.Fatal(err)
				}
				logs[p.ID] = append(logs[p.ID], a)
			}
			for f, err := range s.Files(ctx, p.ID) {
				if err != nil {
					t.Fatal(err)
				}
				files[p.ID] = append(files[p.ID], f)
			}
		}
		if len(pushes) != len(w.pushes) {
			t.Fatalf("%d pushes, want %d", len(pushes), len(w.pushes))
		}
		for i := range pushes {
			if !reflect.DeepEqual(pushes[i], w.pushes[i]) {
				t.Errorf("push %d:\n got %s\nwant %s", w.pushes[i].ID, brief(pushes[i]), brief(w.pushes[i]))
			}
		}
		if !reflect.DeepEqual(logs, w.logs) {
			t.Errorf("audit logs:\n got %+v\nwant %+v", logs, w.logs)
		}
		if !reflect.DeepEqual(files, w.files) {
			t.Errorf("files:\n got %+v\nwant %+v", files, w.files)
		}

		for _, f := range files[4] {
			r, err := OpenDisk(w.root, f.Blob)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			r.Close()
			if err != nil || string(got) != string(w.contents[f.Key]) {
				t.Errorf("file %s: %d bytes, %v", f.Filename, len(got), err)
			}
		}

		c, err := s.Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		nlogs := 0
		for _, l := range w.logs {
			nlogs += len(l)
		}
		if want := (Counts{Users: 3, Pushes: int64(len(w.pushes)), AuditLogs: int64(nlogs), Files: 2}); c != want {
			t.Errorf("counts %+v, want %+v", c, want)
		}

		p, err := s.Push(ctx, keys, "f1l3pu5h")
		if err != nil || !reflect.DeepEqual(p, w.pushes[3]) {
			t.Errorf("push by token: %s, %v", brief(p), err)
		}
		if _, err := s.Push(ctx, keys, "no-such-token"); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown token: %v", err)
		}
	})
}

// brief shows a push without its long secrets.
func brief(p Push) string {
	short := func(v string) string {
		if len(v) > 40 {
			return v[:40] + "…"
		}
		return v
	}
	q := p
	q.Payload.V, q.Note.V, q.Passphrase.V = short(p.Payload.V), short(p.Note.V), short(p.Passphrase.V)
	return fmt.Sprintf("%+v", q)
}

func TestLiveAndViews(t *testing.T) {
	t.Parallel()
	w := newWorld(t, EngineSQLite)
	live := map[string]bool{}
	for _, p := range w.pushes {
		live[p.URLToken] = p.Live(fixedNow)
	}
	want := map[string]bool{"q2x7k0b9vyw1n3": true, "hs8fj2mc0p1z": true, "aaaabbbbccccdddd1": false, "f1l3pu5h": true,
		"expiredtoken01": false, "deleted-by-owner": false, "sealed_with_previous_key": true, "newest": true}
	if !reflect.DeepEqual(live, want) {
		t.Errorf("live: %v\nwant %v", live, want)
	}
	p := w.pushes[0]
	if p.ViewCount != 2 || p.ViewsRemaining() != 3 || p.DaysRemaining(fixedNow) != 6 ||
		!p.ExpiresAt().Equal(fixedNow.Add(6*24*time.Hour)) {
		t.Errorf("views %d remaining %d days %d expires %v", p.ViewCount, p.ViewsRemaining(), p.DaysRemaining(fixedNow), p.ExpiresAt())
	}
	// The qr push is a day and an hour old with one day to live: run out,
	// though Password Pusher has not yet flagged it expired.
	if q := w.pushes[2]; q.Expired || q.DaysRemaining(fixedNow) != 0 {
		t.Errorf("qr push: expired %v days %d", q.Expired, q.DaysRemaining(fixedNow))
	}
}

func TestWrongAndMissingKeys(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		w := newWorld(t, engine)
		s := openWorld(t, w)

		// Without the previous key, the push sealed with it fails alone and
		// the iteration goes on past it.
		var ok, failed []int64
		for p, err := range s.Pushes(ctx, w.keys(t, false)) {
			var de *DecryptError
			switch {
			case err == nil:
				ok = append(ok, p.ID)
			case errors.As(err, &de) && errors.Is(err, ErrDecrypt):
				failed = append(failed, p.ID)
				if de.ID != 7 || de.Table != "pushes" || de.Column != "payload_ciphertext" || p.ID != 7 || p.URLToken == "" || p.Decrypted || p.Payload.Valid {
					t.Errorf("decrypt error %+v for push %s", de, brief(p))
				}
				if want := "pushes 7: payload_ciphertext: " + ErrDecrypt.Error(); err.Error() != want {
					t.Errorf("error %q, want %q", err, want)
				}
			default:
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(ok, []int64{1, 2, 3, 4, 5, 6, 8}) || !reflect.DeepEqual(failed, []int64{7}) {
			t.Errorf("opened %v, failed %v", ok, failed)
		}
		if err := s.CheckKeys(ctx, w.keys(t, false)); err != nil {
			t.Errorf("the newest push is sealed with the current key: %v", err)
		}

		// A wrong key fails every encrypted push, and says nothing secret.
		wrong, _ := ParseKeys(DefaultMasterKey, "")
		if err := s.CheckKeys(ctx, wrong); !errors.Is(err, ErrDecrypt) {
			t.Errorf("CheckKeys with a wrong key: %v", err)
		}
		n := 0
		for p, err := range s.Pushes(ctx, wrong) {
			if err == nil {
				// Only the deleted push has no encrypted value left.
				if p.ID != 6 {
					t.Errorf("push %d opened with a wrong key", p.ID)
				}
				continue
			}
			n++
			for _, x := range w.vec.Vectors {
				if x.Plaintext != "" && strings.Contains(err.Error(), x.Plaintext) || strings.Contains(err.Error(), x.Ciphertext) {
					t.Fatalf("error shows a secret: %v", err)
				}
			}
		}
		if n != 7 {
			t.Errorf("%d pushes failed with a wrong key, want 7", n)
		}
		for u, err := range s.Users(ctx, wrong) {
			if (u.ID == 2) != (err != nil) || (err != nil && !errors.Is(err, ErrDecrypt)) {
				t.Errorf("user %d: %v", u.ID, err)
			}
		}

		// Without keys: everything but the secrets.
		for p, err := range s.Pushes(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			want := w.pushes[p.ID-1]
			want.Decrypted, want.Payload, want.Note, want.Passphrase = false, p.Payload, p.Note, p.Passphrase
			if p.Decrypted || p.Payload.Valid || p.Note.Valid || p.Passphrase.Valid || !reflect.DeepEqual(p, want) {
				t.Errorf("push %d without keys: %s", p.ID, brief(p))
			}
		}
	})
}

func TestDiskFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t, EngineSQLite)
	f := w.files[4][0]
	if p, err := DiskPath(w.root, f.Key); err != nil || p != filepath.Join(w.root, "kq", "3v", f.Key) {
		t.Errorf("DiskPath: %s, %v", p, err)
	}
	for _, key := range []string{"", " ", "../../etc/passwd", "ab/../cd", "a\x00b", "./x"} {
		if p, err := DiskPath(w.root, key); err == nil {
			t.Errorf("DiskPath(%q) = %s, want an error", key, p)
		}
	}

	// A file that is not what its blob says fails at its end.
	for name, b := range map[string]Blob{
		"size":     {ID: f.ID, Key: f.Key, ByteSize: f.ByteSize + 1, Checksum: f.Checksum},
		"checksum": {ID: f.ID, Key: f.Key, ByteSize: f.ByteSize, Checksum: "1B2M2Y8AsgTpgAmY7PhCfg=="},
	} {
		r, err := OpenDisk(w.root, b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(r); !errors.Is(err, ErrIntegrity) {
			t.Errorf("%s mismatch: %v", name, err)
		}
		r.Close()
	}
	data := w.contents[f.Key]
	if err := os.WriteFile(filepath.Join(w.root, "kq", "3v", f.Key), append(data, '!'), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenDisk(w.root, f.Blob)
	if _, err := io.ReadAll(r); !errors.Is(err, ErrIntegrity) {
		t.Errorf("longer file: %v", err)
	}
	r.Close()
	if _, err := OpenDisk(w.root, Blob{ID: 99, Key: "missingmissingmissing"}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}

	// SHA-256 checksums (an S3 service may record them) and none at all.
	for _, b := range []Blob{
		{ID: 1, ByteSize: 3, Checksum: "sha256:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="},
		{ID: 2, ByteSize: 3, Checksum: "md5:kAFQmDzST7DWlj99KOF/cg=="},
		{ID: 3, ByteSize: 3},
	} {
		r, err := VerifyReader(strings.NewReader("abc"), b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(r); err != nil {
			t.Errorf("blob %d: %v", b.ID, err)
		}
	}
	if _, err := VerifyReader(strings.NewReader("abc"), Blob{Checksum: "crc32:AAAA"}); err == nil {
		t.Error("unknown checksum algorithm accepted")
	}
	for name, want := range map[string]string{"local": StorageDisk, "minio": StorageS3, "amazon": StorageS3,
		"google": StorageGCS, "microsoft": StorageAzure, "mirror": ""} {
		if got := StorageKind(name); got != want {
			t.Errorf("StorageKind(%q) = %q, want %q", name, got, want)
		}
	}
}
