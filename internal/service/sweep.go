package service

import (
	"context"
	"sync"
	"time"

	"hush/internal/store"
)

type sweepState struct {
	mu          sync.Mutex
	lastOrphans time.Time
}

// SweepResult counts what one sweep did.
type SweepResult struct {
	store.SweepResult
	FilesPurged  int // contents deleted after expiry
	OrphansFound int // blobs with no push (an upload interrupted by a crash)
}

// Sweep expires pushes past their limits, deletes purged pushes, deletes the
// contents of expired file pushes once their links have lapsed, and, at most
// hourly, deletes orphaned blobs. Every step is idempotent, so several
// instances may sweep at once.
func (s *Service) Sweep(ctx context.Context, purgeAfter time.Duration) (SweepResult, error) {
	now := s.Now()
	var r SweepResult
	var err error
	if r.SweepResult, err = s.store.Sweep(ctx, now, purgeAfter); err != nil {
		return r, err
	}
	if r.Expired > 0 {
		s.wake() // expiry receipts may have been queued
	}
	if _, err := s.store.PruneEvents(ctx, now.Add(-longestWindow)); err != nil {
		return r, err
	}
	if _, err := s.store.PruneOutbox(ctx, now.Add(-OutboxKeepFailed)); err != nil {
		return r, err
	}
	if _, err := s.store.PruneWebhooks(ctx, now.Add(-HookKeep)); err != nil {
		return r, err
	}
	if s.files == nil {
		return r, nil
	}
	for {
		due, err := s.store.DueFiles(ctx, now, 500)
		if err != nil {
			return r, err
		}
		for _, f := range due {
			if err := s.files.Delete(ctx, f.BlobID); err != nil {
				// The row stays, so the next sweep tries again.
				s.log.Warn("could not delete the file of an expired push; the next sweep tries again", "blob", f.BlobID, "err", err)
				return r, err
			}
			if err := s.store.DeleteFile(ctx, f.ID); err != nil {
				return r, err
			}
			r.FilesPurged++
		}
		if len(due) < 500 {
			break
		}
	}
	s.sweep.mu.Lock()
	scan := now.Sub(s.sweep.lastOrphans) >= orphanAge
	if scan {
		s.sweep.lastOrphans = now
	}
	s.sweep.mu.Unlock()
	if scan {
		r.OrphansFound, err = s.sweepOrphans(ctx, now)
	}
	return r, err
}

// sweepOrphans deletes blobs older than orphanAge that no file row names.
func (s *Service) sweepOrphans(ctx context.Context, now time.Time) (int, error) {
	n := 0
	err := s.files.Walk(ctx, func(id string, modified time.Time) error {
		if now.Sub(modified) < orphanAge {
			return nil
		}
		used, err := s.store.BlobReferenced(ctx, id)
		if err != nil || used {
			return err
		}
		if err := s.files.Delete(ctx, id); err != nil {
			s.log.Warn("could not delete an orphaned file; the next scan tries again", "blob", id, "err", err)
			return err
		}
		n++
		return nil
	})
	return n, err
}

// deleteBlobs deletes from the file store the blobs of a deleted account's
// files, right after the transaction that deleted their rows, and their
// keys with them, within 30 seconds in all. A blob that is not deleted then
// (a crash, a failing store) is named by no row, so nothing serves it, and
// the orphan scan of a running serve deletes it within two hours
// (docs/decisions.md, D14).
func (s *Service) deleteBlobs(ctx context.Context, blobs []string) {
	if s.files == nil || len(blobs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var (
		left  int
		first error
	)
	for _, id := range blobs {
		if err := s.files.Delete(ctx, id); err != nil {
			if left == 0 {
				first = err
			}
			left++
		}
	}
	if left > 0 {
		s.log.Warn("could not delete the files of a deleted account; the orphan scan of hush serve deletes them within two hours",
			"files", left, "err", first)
	}
}
