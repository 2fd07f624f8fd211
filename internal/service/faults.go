package service

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"hush/internal/blob"
	"hush/internal/push"
	"hush/internal/store"
)

// Messages of the storage faults, safe to show to anyone.
const (
	MsgUnavailable = "Hush cannot reach its storage right now. Please try again in a moment."
	MsgStorageFull = "Hush has run out of storage space. Please tell the operator of this service."
)

// Fault turns an error that says the database or the file store is busy,
// unreachable or full into the push.Error a client is answered with (503
// with a time to try again, or 507), and logs it once per episode. It
// returns nil for any other error, and for a caller that has gone (ctx
// done: nobody reads the answer, and a client leaving is no fault).
func (s *Service) Fault(ctx context.Context, err error) *push.Error {
	if err == nil || ctx.Err() != nil {
		return nil
	}
	if e := s.keyFault(ctx, err); e != nil {
		return e
	}
	f, ok := store.FaultOf(err)
	if !ok {
		if f, ok = blob.FaultOf(err); !ok {
			return nil
		}
	}
	s.faults.seen(s, f, err)
	if f.Code == push.CodeStorageFull {
		return &push.Error{Code: f.Code, Message: MsgStorageFull}
	}
	return &push.Error{Code: f.Code, Message: MsgUnavailable, RetryAfter: f.RetryAfter}
}

// faultLog logs storage faults once per episode: the first failure, then
// at most a line a minute while it lasts, then its end, found by a probe
// that writes to the database and the file store every probeEvery.
type faultLog struct {
	mu      sync.Mutex
	active  bool
	cause   string
	since   time.Time
	failed  int // requests answered with the fault in this episode
	logged  time.Time
	probing bool
}

const (
	faultRepeat = time.Minute
	probeEvery  = 2 * time.Second
)

func (l *faultLog) seen(s *Service, f push.Fault, err error) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failed++
	switch {
	case !l.active:
		l.active, l.cause, l.since, l.failed, l.logged = true, f.Cause, now, 1, now
		s.log.Error("storage fault: requests fail until it clears", "fault", f.Cause, "err", err)
	case now.Sub(l.logged) >= faultRepeat:
		l.logged = now
		s.log.Error("storage fault continues", "fault", f.Cause, "since", l.since.UTC().Format(time.RFC3339),
			"failed_requests", l.failed, "err", err)
	}
	if !l.probing {
		l.probing = true
		go s.probeUntilClear()
	}
}

// cleared ends an episode, if one is under way.
func (l *faultLog) cleared(s *Service) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.active {
		s.log.Info("storage fault cleared", "fault", l.cause, "lasted", time.Since(l.since).Round(time.Millisecond).String(),
			"failed_requests", l.failed)
		l.active = false
	}
}

// probeUntilClear checks the storage every probeEvery until a check passes,
// and ends the episode then, whether or not requests come. It stops without
// ending the episode when a check fails with something that is not a
// storage fault (the store was closed); a readiness check ends it then.
func (s *Service) probeUntilClear() {
	for {
		time.Sleep(probeEvery)
		ctx, cancel := context.WithTimeout(context.Background(), probeEvery)
		dbErr, filesErr := s.probeErrs(ctx)
		cancel()
		_, dbFault := store.FaultOf(dbErr)
		_, filesFault := blob.FaultOf(filesErr)
		if (dbErr == nil || dbFault) && (filesErr == nil || filesFault) && (dbErr != nil || filesErr != nil) {
			continue
		}
		s.faults.mu.Lock()
		s.faults.probing = false
		s.faults.mu.Unlock()
		if dbErr == nil && filesErr == nil {
			s.faults.cleared(s)
		}
		return
	}
}

// Readiness is the state of the database and the file store, each "ok" or
// the name of its fault.
type Readiness struct {
	Database string `json:"database"`
	Files    string `json:"files"`
	// MasterKey is "rotated" once the deployment's data moved to a master
	// key this instance does not hold (secure.Keyring.Retire); "" else.
	MasterKey string `json:"master_key,omitempty"`
}

// OK reports whether both can be written, under the deployment's key.
func (r Readiness) OK() bool { return r.Database == "ok" && r.Files == "ok" && r.MasterKey == "" }

// readyEvery bounds how often readiness is checked for real: answers in
// between are the last check's, so a probe hammering /readyz costs nothing.
const readyEvery = time.Second

type readyCache struct {
	mu  sync.Mutex
	at  time.Time
	r   Readiness
	set bool
}

// Ready reports whether a write can commit to the database and a file can
// be stored, checking at most once per readyEvery. A check that passes ends
// a fault episode.
func (s *Service) Ready(ctx context.Context) Readiness {
	c := &s.ready
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set && time.Since(c.at) < readyEvery {
		return c.r
	}
	c.r, c.at, c.set = s.probe(ctx), time.Now(), true
	if c.r.OK() {
		s.faults.cleared(s)
	}
	return c.r
}

// probe writes to the database through the requests' own door and stores
// and deletes a small file.
func (s *Service) probe(ctx context.Context) Readiness {
	r := Readiness{Database: "ok", Files: "ok"}
	if s.keys.Retired() {
		r.MasterKey = "rotated"
	}
	dbErr, filesErr := s.probeErrs(ctx)
	if dbErr != nil {
		r.Database = faultName(dbErr, store.FaultOf)
	}
	if filesErr != nil {
		r.Files = faultName(filesErr, blob.FaultOf)
	}
	return r
}

// probeErrs checks the database and the file store side by side, so that
// one that hangs does not spend the other's time.
func (s *Service) probeErrs(ctx context.Context) (dbErr, filesErr error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if s.files != nil {
			filesErr = s.probeFiles(ctx)
		}
	}()
	dbErr = s.store.ProbeWrite(ctx, s.Now().UnixMilli())
	<-done
	return dbErr, filesErr
}

// probeFiles checks that the file store is there (a disk store's directory
// still mounted, an S3 bucket still reachable) and that a small blob can be
// stored under a fresh id and deleted.
func (s *Service) probeFiles(ctx context.Context) error {
	if err := s.files.Ping(ctx); err != nil {
		return err
	}
	var b [12]byte
	rand.Read(b[:])
	id := "probe-" + hex.EncodeToString(b[:])
	if _, err := s.files.Put(ctx, id, strings.NewReader("readiness probe")); err != nil {
		s.deleteBlob(ctx, id, "readiness probe")
		return err
	}
	return s.files.Delete(ctx, id)
}

// faultName is the readiness word for err: the fault's cause, or "failing".
func faultName(err error, of func(error) (push.Fault, bool)) string {
	if f, ok := of(err); ok {
		return f.Cause
	}
	return "failing"
}

// deleteBlob deletes a blob that must not stay (a failed or refused
// upload, a probe), on a context of its own so that a request's end does
// not stop it, and logs a failure: the sweeper deletes the blob once it is
// an hour old, and the operator knows why it is there meanwhile.
func (s *Service) deleteBlob(ctx context.Context, id, why string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := s.files.Delete(ctx, id); err != nil {
		s.log.Warn("could not delete a stored file; the sweeper will delete it within the hour",
			"blob", id, "why", why, "err", err)
	}
}

// ErrStorageRead marks a download cut short by the file store: the
// connection to it failed, or it sent less than the file's size.
var ErrStorageRead = errors.New("file store read failed")

// storageReader reads a sealed file from the file store, knowing its size:
// a read error or an early end is reported as ErrStorageRead, not passed to
// the decryption, where it would look like damaged data.
type storageReader struct {
	r         io.Reader
	got, want int64
}

func (r *storageReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.got += int64(n)
	switch {
	case err == nil:
	case errors.Is(err, io.EOF) && r.got >= r.want:
	case errors.Is(err, io.EOF):
		err = fmt.Errorf("%w: it ended after %d of %d bytes", ErrStorageRead, r.got, r.want)
	default:
		// %v, not %w: the cause must not read as the sealed stream's end.
		read := fmt.Errorf("%w after %d of %d bytes: %v", ErrStorageRead, r.got, r.want, err)
		if f, ok := blob.FaultOf(err); ok {
			err = &blob.FaultError{Fault: f, Err: read}
		} else {
			err = read
		}
	}
	return n, err
}

// discardLogger is the logger of a service built without one.
var discardLogger = slog.New(slog.DiscardHandler)
