package service

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hush/internal/blob"
	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/testclock"
	"hush/internal/testdb"
)

// flakyFiles is a disk file store whose deletes fail while broken is set,
// as an unreachable S3 bucket's would.
type flakyFiles struct {
	*blob.Disk
	broken atomic.Bool
}

func (f *flakyFiles) Delete(ctx context.Context, id string) error {
	if f.broken.Load() {
		return errors.New("file store unreachable")
	}
	return f.Disk.Delete(ctx, id)
}

// blobIDs are the blobs the file store holds.
func blobIDs(t *testing.T, files blob.FileStore) []string {
	t.Helper()
	var ids []string
	if err := files.Walk(t.Context(), func(id string, _ time.Time) error { ids = append(ids, id); return nil }); err != nil {
		t.Fatal(err)
	}
	return ids
}

// filePush stores a file push of u with n files and returns the blob ids
// of its files.
func filePush(t *testing.T, s *Service, u *push.User, n int) []string {
	t.Helper()
	ctx := t.Context()
	up := s.NewUploads()
	for i := range n {
		if err := up.Add(ctx, "f.txt", "text/plain", strings.NewReader(strings.Repeat("x", i+1))); err != nil {
			t.Fatal(err)
		}
	}
	var blobs []string
	for _, f := range up.files {
		blobs = append(blobs, f.blobID)
	}
	kind := push.KindFile
	if _, err := s.Create(ctx, CreateInput{User: u, Request: &push.CreateRequest{Kind: &kind}, Uploads: up, Meta: meta}); err != nil {
		t.Fatal(err)
	}
	return blobs
}

// TestAccountDeletionDeletesFiles: deleting an account — on its account
// page or as an admin action (the admin pages, hush user delete) — deletes
// its pushes' files from the file store at once, and no one else's. A blob
// the store fails to delete then is deleted by the orphan scan within two
// hours: it is an hour old by then, and the scan runs hourly.
func TestAccountDeletionDeletesFiles(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	disk, err := blob.NewDisk(filepath.Join(t.TempDir(), "files"))
	if err != nil {
		t.Fatal(err)
	}
	files := &flakyFiles{Disk: disk}
	keys, err := secure.NewKeyring(testKey)
	if err != nil {
		t.Fatal(err)
	}
	clock := testclock.New(time.Now()) // blob ages come from the file system's clock
	s := New(Deps{Store: openTestStore(t, testdb.URL(t)), Keys: keys, Argon: secure.NewArgon(1, 64, 1, 0), Files: files, Now: clock.Now},
		Limits{Settings: push.DefaultSettings()})
	var users []*push.User
	for _, email := range []string{"self@example.com", "admin@example.com", "kept@example.com"} {
		u, err := s.SignUp(ctx, email, "password one", "password one", meta)
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u)
	}
	self, byAdmin, kept := filePush(t, s, users[0], 2), filePush(t, s, users[1], 1), filePush(t, s, users[2], 1)
	filePush(t, s, users[0], 1) // a second push of the same account
	if n := len(blobIDs(t, files)); n != 5 {
		t.Fatalf("%d blobs stored, want 5", n)
	}

	if err := s.DeleteAccount(ctx, users[0], "password one", meta); err != nil {
		t.Fatal(err)
	}
	left := blobIDs(t, files)
	if len(left) != 2 || strings.Contains(strings.Join(left, " "), self[0]) || strings.Contains(strings.Join(left, " "), self[1]) {
		t.Fatalf("after the account page's deletion the file store holds %v; want only %v and %v", left, byAdmin, kept)
	}

	// The admin action, with a file store that fails for the moment.
	files.broken.Store(true)
	if _, err := s.Administer(ctx, push.AdminActor{Name: "command line"}, push.AdminDelete, users[1].ID); err != nil {
		t.Fatal(err)
	}
	files.broken.Store(false)
	if got := blobIDs(t, files); len(got) != 2 {
		t.Fatalf("the failed delete: the file store holds %v", got)
	}
	clock.Advance(59 * time.Minute) // a scan finds the blob too young
	if r, err := s.Sweep(ctx, 0); err != nil || r.OrphansFound != 0 {
		t.Fatalf("sweep at 59 minutes: %+v, %v", r, err)
	}
	clock.Advance(time.Hour) // the next scan, an hour later
	if r, err := s.Sweep(ctx, 0); err != nil || r.OrphansFound != 1 {
		t.Fatalf("sweep at two hours: %+v, %v", r, err)
	}
	if got := blobIDs(t, files); len(got) != 1 || got[0] != kept[0] {
		t.Fatalf("the file store holds %v, want only %v", got, kept)
	}

	// Without a failure, the admin action deletes them at once.
	if _, err := s.Administer(ctx, push.AdminActor{Name: "command line"}, push.AdminDelete, users[2].ID); err != nil {
		t.Fatal(err)
	}
	if got := blobIDs(t, files); len(got) != 0 {
		t.Fatalf("after the admin's deletion the file store holds %v", got)
	}
}
