package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hush/internal/push"
	"hush/internal/testdb"
)

// sweepSpec is one push of TestSweep's world.
type sweepSpec struct {
	owned       bool
	days, views int
	failedViews int
	expireAt    time.Time // zero: left active
}

// sweepWorld is a store holding one push per spec, each with an owner-view
// audit entry, some expired by hand.
type sweepWorld struct {
	s     *Store
	specs map[string]sweepSpec
	ids   map[string]int64
}

func newSweepWorld(t *testing.T, specs map[string]sweepSpec) *sweepWorld {
	t.Helper()
	w := &sweepWorld{s: newTestStore(t), specs: specs, ids: map[string]int64{}}
	alice := mustUser(t, w.s, "alice@example.com")
	for token, sp := range specs {
		p := createPush(t, w.s, token, func(p *push.Push) {
			p.ExpireAfterDays, p.ExpireAfterViews = sp.days, sp.views
			if sp.owned {
				p.UserID = alice.ID
			}
		})
		w.ids[token] = p.ID
		for range sp.failedViews {
			if err := w.s.RecordFailedView(t.Context(), p.ID, ev(push.EventFailedView, t0.Add(time.Minute))); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.s.LogEvent(t.Context(), p.ID, ev(push.EventOwnerView, t0.Add(time.Minute))); err != nil {
			t.Fatal(err)
		}
		if !sp.expireAt.IsZero() {
			if ok, err := w.s.ExpireByHand(t.Context(), p.ID, ev(push.EventExpire, sp.expireAt)); err != nil || !ok {
				t.Fatalf("ExpireByHand(%s) = %v, %v", token, ok, err)
			}
		}
	}
	return w
}

// sweep runs one sweep and checks what it reports.
func (w *sweepWorld) sweep(t *testing.T, at time.Time, purge time.Duration, want SweepResult) {
	t.Helper()
	got, err := w.s.Sweep(t.Context(), at, purge)
	if err != nil || got != want {
		t.Fatalf("Sweep(%v, %v) = %+v, %v; want %+v", at, purge, got, err, want)
	}
}

// presentBut checks that every push exists except those named, and that the
// deleted ones left no audit rows (nor any push an orphaned one).
func (w *sweepWorld) presentBut(t *testing.T, gone ...string) {
	t.Helper()
	for token := range w.specs {
		_, err := w.s.PushByKey(t.Context(), token)
		deleted := slices.Contains(gone, token)
		switch {
		case !deleted && err != nil:
			t.Errorf("%s: PushByKey: %v, want present", token, err)
		case deleted && !errors.Is(err, push.ErrNotFound):
			t.Errorf("%s: PushByKey err = %v, want ErrNotFound", token, err)
		}
		if !deleted {
			continue
		}
		if log := mustAudit(t, w.s, w.ids[token]); len(log) != 0 {
			t.Errorf("%s: deleted push kept audit entries %s", token, kinds(log))
		}
		if n := auditRows(t, w.s, w.ids[token]); n != 0 {
			t.Errorf("%s: audit_logs holds %d rows of the deleted push", token, n)
		}
	}
	var orphans int
	if err := w.s.r.QueryRowContext(t.Context(),
		`SELECT COUNT(*) FROM audit_logs WHERE push_id NOT IN (SELECT id FROM pushes)`).Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 {
		t.Errorf("%d orphaned audit rows", orphans)
	}
}

// checkSwept checks a push the sweep has just expired at now: expired then,
// payload wiped, audit log untouched.
func (w *sweepWorld) checkSwept(t *testing.T, token string, now time.Time) {
	t.Helper()
	got := mustLoad(t, w.s, token)
	if !got.Expired || got.PayloadSealed != nil || !got.ExpiredOn.Equal(now) || got.Deleted {
		t.Errorf("%s: swept push Expired=%v payload=%q ExpiredOn=%v Deleted=%v", token, got.Expired, got.PayloadSealed, got.ExpiredOn, got.Deleted)
	}
	if n := len(mustAudit(t, w.s, got.ID)); n != 2+w.specs[token].failedViews {
		t.Errorf("%s: sweep changed the audit log (%d entries)", token, n)
	}
}

// checkUntouched checks a push the sweep had no business with: still active,
// or still expired when it was.
func (w *sweepWorld) checkUntouched(t *testing.T, token string) {
	t.Helper()
	got, sp := mustLoad(t, w.s, token), w.specs[token]
	if sp.expireAt.IsZero() && (got.Expired || got.PayloadSealed == nil) {
		t.Errorf("%s: active push touched: Expired=%v payload=%q", token, got.Expired, got.PayloadSealed)
	}
	if !sp.expireAt.IsZero() && !got.ExpiredOn.Equal(sp.expireAt) {
		t.Errorf("%s: ExpiredOn moved from %v to %v", token, sp.expireAt, got.ExpiredOn)
	}
}

// TestSweep runs the sweeper step by step over pushes due and not, owned
// and anonymous, expired long ago, just at the retention edge and recently.
func TestSweep(t *testing.T) {
	t.Parallel()
	now := t0.Add(3 * push.Day)
	w := newSweepWorld(t, map[string]sweepSpec{
		"anon-days":    {days: 1, views: 5},
		"anon-views":   {days: 7, views: 1, failedViews: 1},
		"anon-active":  {days: 7, views: 5},
		"owned-due":    {owned: true, days: 2, views: 5},
		"owned-active": {owned: true, days: 7, views: 5},
		"anon-old":     {days: 7, views: 5, expireAt: t0.Add(time.Hour)},
		"anon-edge":    {days: 7, views: 5, expireAt: now.Add(-AnonymousRetention)},
		"anon-recent":  {days: 7, views: 5, expireAt: now.Add(-AnonymousRetention + time.Millisecond)},
		"owned-old":    {owned: true, days: 7, views: 5, expireAt: t0.Add(time.Hour)},
		"owned-edge":   {owned: true, days: 7, views: 5, expireAt: now.Add(-48 * time.Hour)},
		"owned-recent": {owned: true, days: 7, views: 5, expireAt: now.Add(-time.Hour)},
	})
	steps := []struct {
		name  string
		run   func(t *testing.T)
		after []string // the pushes deleted once the step has run
	}{
		{"expire the due, delete old expired anonymous ones only", func(t *testing.T) {
			w.sweep(t, now, 0, SweepResult{Expired: 3, Deleted: 2})
			for _, token := range []string{"anon-days", "anon-views", "owned-due"} {
				w.checkSwept(t, token, now)
			}
			for _, token := range []string{"anon-active", "owned-active", "anon-recent", "owned-old", "owned-edge", "owned-recent"} {
				w.checkUntouched(t, token)
			}
		}, []string{"anon-old", "anon-edge"}},
		{"nothing left to do", func(t *testing.T) {
			w.sweep(t, now, 0, SweepResult{})
		}, []string{"anon-old", "anon-edge"}},
		{"purge owned pushes expired at least 48h ago", func(t *testing.T) {
			w.sweep(t, now, 48*time.Hour, SweepResult{Deleted: 2})
			w.sweep(t, now, 48*time.Hour, SweepResult{})
		}, []string{"anon-old", "anon-edge", "owned-old", "owned-edge"}},
		{"a day later the anonymous ones expired since go; owned ones stay without a purge age", func(t *testing.T) {
			w.sweep(t, now.Add(AnonymousRetention), 0, SweepResult{Deleted: 3})
			w.sweep(t, now.Add(AnonymousRetention), 0, SweepResult{})
		}, []string{"anon-old", "anon-edge", "owned-old", "owned-edge", "anon-days", "anon-views", "anon-recent"}},
	}
	for i, step := range steps {
		if !t.Run(fmt.Sprintf("%d %s", i+1, step.name), func(t *testing.T) {
			step.run(t)
			w.presentBut(t, step.after...)
		}) {
			return
		}
	}
}

// TestSweepConcurrentInstances runs sweeps from two stores on one database
// at once: every push is expired or deleted exactly once in total.
func TestSweepConcurrentInstances(t *testing.T) {
	t.Parallel()
	path := testdb.URL(t)
	a := openTestStore(t, path)
	b := openTestStore(t, path)
	const due, old = 40, 15
	for i := range due {
		createPush(t, a, tok(i), func(p *push.Push) { p.ExpireAfterDays = 1 })
	}
	for i := range old {
		p := createPush(t, a, tok(1000+i), nil)
		if ok, err := a.ExpireByHand(t.Context(), p.ID, ev(push.EventExpire, t0)); err != nil || !ok {
			t.Fatal(ok, err)
		}
	}
	now := t0.Add(2 * push.Day)
	var (
		mu    sync.Mutex
		total SweepResult
		wg    sync.WaitGroup
	)
	for i := range 8 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			r, err := s.Sweep(t.Context(), now, 0)
			if err != nil {
				t.Errorf("Sweep: %v", err)
				return
			}
			mu.Lock()
			total.Expired += r.Expired
			total.Deleted += r.Deleted
			mu.Unlock()
		})
	}
	wg.Wait()
	if total != (SweepResult{Expired: due, Deleted: old}) {
		t.Fatalf("concurrent sweeps did %+v in total, want %+v", total, SweepResult{Expired: due, Deleted: old})
	}
}

// seedDaysWithFiles creates n pushes with a one-day limit, withFile of them
// (spread evenly) with a file, and returns the ids of those files.
func seedDaysWithFiles(t *testing.T, s *Store, n, withFile int) []int64 {
	t.Helper()
	var fileIDs []int64
	for i := range n {
		p := testPush(fmt.Sprintf("days%05d", i))
		p.ExpireAfterDays = 1
		var files []*push.File
		if i%(n/withFile) == n/withFile-1 {
			files = []*push.File{{BlobID: "blob" + p.TokenKey, MetaSealed: []byte("meta"), KeySealed: []byte("key"), Size: 1}}
		}
		if err := s.CreatePushWithFiles(t.Context(), p, ev(push.EventCreation, t0), files); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			fileIDs = append(fileIDs, f.ID)
		}
	}
	if len(fileIDs) != withFile {
		t.Fatalf("%d file pushes, want %d", len(fileIDs), withFile)
	}
	return fileIDs
}

// checkKeysWiped checks that the files of pushes expired at now lost their
// keys and are due for purging once their download links have lapsed.
func checkKeysWiped(t *testing.T, s *Store, ids []int64, now time.Time) {
	t.Helper()
	for _, id := range ids {
		f, err := s.FileByID(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if f.KeySealed != nil || !f.PurgeAt.Equal(now.Add(push.FileLinkTTL)) {
			t.Errorf("file %d of an expired push: key %q, purge at %v", id, f.KeySealed, f.PurgeAt)
		}
	}
}

// TestSweepInChunks sweeps more pushes than one chunk holds, in every step:
// the counts are exact, the pushes not due are untouched, and the files of
// pushes expired in any chunk lose their keys.
func TestSweepInChunks(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	const (
		byDays   = 1234 // past their day limit
		byViews  = 567  // out of views but not expired (left by an older version)
		active   = 150
		withFile = 7 // among byDays, spread over the chunks
	)
	if byDays <= 2*sweepChunk || byViews <= sweepChunk {
		t.Fatalf("the test needs more pushes than the chunk of %d", sweepChunk)
	}
	now := t0.Add(2 * push.Day)
	fileIDs := seedDaysWithFiles(t, s, byDays, withFile)
	for i := range byViews {
		createPush(t, s, fmt.Sprintf("views%05d", i), nil)
	}
	if _, err := s.w.ExecContext(t.Context(), `UPDATE pushes SET view_count = expire_after_views WHERE token_key LIKE 'views%'`); err != nil {
		t.Fatal(err)
	}
	for i := range active {
		createPush(t, s, fmt.Sprintf("active%05d", i), func(p *push.Push) { p.ExpireAfterDays = 7 })
	}

	got, err := s.Sweep(t.Context(), now, 0)
	if want := (SweepResult{Expired: byDays + byViews}); err != nil || got != want {
		t.Fatalf("Sweep = %+v, %v; want %+v", got, err, want)
	}
	counts := func(t *testing.T) (expired, live int) {
		t.Helper()
		if err := s.r.QueryRowContext(t.Context(), `SELECT
			COALESCE(SUM(CASE WHEN expired = 1 AND payload IS NULL AND expired_on = $1 THEN 1 ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN expired = 0 AND payload IS NOT NULL AND token_key LIKE 'active%' THEN 1 ELSE 0 END), 0)
			FROM pushes`, ms(now)).Scan(&expired, &live); err != nil {
			t.Fatal(err)
		}
		return expired, live
	}
	if expired, live := counts(t); expired != byDays+byViews || live != active {
		t.Errorf("after the sweep: %d pushes expired by it, %d active ones untouched; want %d and %d", expired, live, byDays+byViews, active)
	}
	checkKeysWiped(t, s, fileIDs, now)
	if got, err := s.Sweep(t.Context(), now, 0); err != nil || got != (SweepResult{}) {
		t.Fatalf("second Sweep = %+v, %v; want nothing done", got, err)
	}

	// A day later the expired anonymous pushes go, chunk by chunk, with
	// their audit rows and file rows; the active ones stay.
	got, err = s.Sweep(t.Context(), now.Add(AnonymousRetention), 0)
	if want := (SweepResult{Deleted: byDays + byViews}); err != nil || got != want {
		t.Fatalf("Sweep a day later = %+v, %v; want %+v", got, err, want)
	}
	var left, audit, files int
	if err := s.r.QueryRowContext(t.Context(), `SELECT
		(SELECT COUNT(*) FROM pushes), (SELECT COUNT(*) FROM audit_logs), (SELECT COUNT(*) FROM push_files)`).Scan(&left, &audit, &files); err != nil {
		t.Fatal(err)
	}
	if left != active || audit != active || files != 0 {
		t.Errorf("after deleting: %d pushes, %d audit rows, %d file rows; want %d, %d, 0", left, audit, files, active, active)
	}
	if _, live := counts(t); live != active {
		t.Errorf("%d active pushes untouched, want %d", live, active)
	}
}

// A cancelled sweep stops before its next chunk and reports what it did.
func TestSweepCancelled(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	p := createPush(t, s, "due", func(p *push.Push) { p.ExpireAfterDays = 1 })
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	got, err := s.Sweep(ctx, t0.Add(2*push.Day), 0)
	if !errors.Is(err, context.Canceled) || got != (SweepResult{}) {
		t.Fatalf("Sweep with a cancelled context = %+v, %v", got, err)
	}
	if mustLoad(t, s, p.TokenKey).Expired {
		t.Error("a cancelled sweep expired a push")
	}
}

// TestSweepQueriesUseIndexes checks on SQLite that every chunk statement
// finds its chunk through an index and then reaches the rows by primary key:
// a scan of the pushes table, or of every due push on every chunk, would
// hold the single writer for as long as it takes with a million pushes.
func TestSweepQueriesUseIndexes(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	if s.Engine() != "sqlite" {
		t.Skip("query plans are checked on SQLite")
	}
	for _, q := range []string{
		expireQuery(sweepDueByDays), expireQuery(sweepDueByViews),
		deleteQuery(sweepOldAnonymous), deleteQuery(sweepOldOwned), sweepFileKeysQuery,
	} {
		plan := queryPlan(t, s, q, ms(t0), sweepChunk)
		if len(plan) == 0 || !strings.HasSuffix(plan[0], "USING INTEGER PRIMARY KEY (rowid=?)") {
			t.Errorf("%s\n  plan %q does not reach the chunk's rows by primary key", q, plan)
		}
		for _, step := range plan {
			if strings.HasPrefix(step, "SCAN") {
				t.Errorf("%s\n  plan %q scans a table", q, plan)
			}
		}
	}
}

// TestSweepChunkOutlivesItsCancellation: a chunk that has begun commits
// and is counted even when the sweep is cancelled during it (a stopping
// server), so that what the sweepers report adds up exactly; the next
// chunk does not begin.
func TestSweepChunkOutlivesItsCancellation(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	p := createPush(t, s, tok(1), nil)
	ctx, cancel := context.WithCancel(t.Context())
	calls := 0
	n, err := inChunks(ctx, func(chunk context.Context) (int64, error) {
		calls++
		cancel() // the server stops while the chunk runs
		return maintain(chunk, s, func(tx *Tx) (int64, error) {
			return rowsAffected(tx.ExecContext(chunk, `UPDATE pushes SET expired = 1 WHERE id = $1`, p.ID))
		})
	})
	if n != 1 || err != nil || calls != 1 {
		t.Errorf("cancelled during its chunk: %d rows, %v, %d chunks; want the chunk's 1 row counted", n, err, calls)
	}
	if got := mustLoad(t, s, tok(1)); !got.Expired {
		t.Error("the chunk's write was not committed")
	}
	// A sweep cancelled before a chunk begins does nothing.
	n, err = inChunks(ctx, func(context.Context) (int64, error) { calls++; return sweepChunk, nil })
	if n != 0 || err == nil || calls != 1 {
		t.Errorf("cancelled before: %d rows, %v, %d chunks; want none and the cancellation", n, err, calls)
	}
}
