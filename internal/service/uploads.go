package service

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"hush/internal/push"
	"hush/internal/secure"
)

// Uploads are the files of one create request, streamed, sealed, into the
// file store as they arrive, never whole in memory. The request that
// starts a batch owns it and ends it with Discard (deferred): that deletes
// whatever was stored unless Create made it part of a push, so a failed or
// refused create, whatever failed, leaves nothing behind.
type Uploads struct {
	s      *Service
	files  []*upload
	count  int   // files named, stored or not
	stored int64 // bytes stored so far, for the per-push limit
	kept   bool  // the files belong to a push now
}

// upload is one stored file, whose key exists only in memory until its push
// is stored.
type upload struct {
	blobID      string
	name        string
	contentType string
	size        int64
	key         []byte
}

// NewUploads starts the batch of one create request.
func (s *Service) NewUploads() *Uploads { return &Uploads{s: s} }

// Count is the number of files the request named, stored or not.
func (u *Uploads) Count() int {
	if u == nil {
		return 0
	}
	return u.count
}

// Skip counts a file that is not stored (beyond the cap, or not allowed):
// the create then fails with the usual message.
func (u *Uploads) Skip() { u.count++ }

// Add counts a file and streams it into the file store, sealed under a
// fresh random key. name is the file name as sent (it is made safe here);
// a file beyond the per-file or per-push limit fails the batch with
// CodeTooLarge, a file the cap does not allow is counted only, and an error
// reading r is returned as it is, for the caller to tell a client's fault
// from the store's.
func (u *Uploads) Add(ctx context.Context, name, contentType string, r io.Reader) error {
	u.count++
	if u.count > u.s.settings.MaxFileUploads {
		_, err := io.Copy(io.Discard, r)
		return err
	}
	up, err := u.s.storeFile(ctx, SafeFileName(name), contentType, r, u.stored)
	if err != nil {
		return err
	}
	u.stored += up.size
	u.files = append(u.files, up)
	return nil
}

// Discard deletes the stored files, unless they became part of a push. It
// may be called any number of times.
func (u *Uploads) Discard(ctx context.Context) {
	if u == nil || u.kept {
		return
	}
	for _, f := range u.files {
		u.s.deleteBlob(ctx, f.blobID, "upload of a create that failed")
	}
	u.files = nil
}

// storeFile streams one attachment into the file store, sealed under a
// fresh random key. already is the number of bytes this push has stored so
// far, for the per-push limit.
func (s *Service) storeFile(ctx context.Context, name, contentType string, r io.Reader, already int64) (*upload, error) {
	if s.files == nil {
		return nil, &push.Error{Code: push.CodeInvalid, Fields: map[string][]string{"files": {"File pushes are disabled."}}}
	}
	if name == "" || utf8.RuneCountInString(name) > maxFileName || !utf8.ValidString(name) {
		return nil, &push.Error{Code: push.CodeInvalid, Fields: map[string][]string{
			"files": {"Each file needs a name of at most 255 characters."}}}
	}
	if !utf8.ValidString(contentType) || len(contentType) > 255 {
		return nil, &push.Error{Code: push.CodeInvalid, Fields: map[string][]string{
			"files": {"Each file's content type must be valid UTF-8 of at most 255 bytes."}}}
	}
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	limit := max(min(s.maxFileSize, s.maxPushSize-already), 0)
	src := &cappedReader{r: r, left: limit}
	id, key, _, err := s.sealInto(ctx, src)
	if errors.Is(err, errFileTooLarge) || src.over {
		if err == nil {
			s.deleteBlob(ctx, id, "upload over the size limit")
		}
		return nil, s.tooLarge()
	}
	if err != nil {
		return nil, err
	}
	return &upload{blobID: id, name: name, contentType: contentType, size: src.read, key: key}, nil
}

var sealedReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, secure.SealWriteSize) }}

// sealInto streams r into a new blob of the file store, sealed under a
// fresh random key, and returns the blob's id, the key and the number of
// bytes read from r. On any error the blob is deleted.
func (s *Service) sealInto(ctx context.Context, r io.Reader) (string, []byte, int64, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return "", nil, 0, err
	}
	var idBytes [16]byte
	if _, err := rand.Read(idBytes[:]); err != nil {
		return "", nil, 0, err
	}
	id := hex.EncodeToString(idBytes[:])
	pr, pw := io.Pipe()
	sealed := make(chan int64, 1)
	go func() {
		n, err := secure.SealStream(pw, r, key, contentAD(id))
		pw.CloseWithError(err)
		sealed <- n
	}()
	// The file store reads through a buffer that takes each of the sealer's
	// writes whole, so the sealer reads and seals the next batch while the
	// store writes this one (a bare pipe would hold the sealer until the
	// store had read all of it, in its own smaller pieces).
	br := sealedReaders.Get().(*bufio.Reader)
	br.Reset(pr)
	_, err := s.files.Put(ctx, id, br)
	pr.CloseWithError(io.ErrClosedPipe) // unblock the sealer if Put stopped early
	n := <-sealed
	br.Reset(nil)
	sealedReaders.Put(br)
	if err != nil {
		s.deleteBlob(ctx, id, "upload that failed")
		if errors.Is(err, errFileTooLarge) {
			return "", nil, n, err
		}
		return "", nil, n, fmt.Errorf("store file: %w", err)
	}
	return id, key, n, nil
}
