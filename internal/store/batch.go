package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
)

// batcher commits the write transactions of concurrent requests together
// (group commit). SQLite has one writer at a time, and most of a small write
// transaction's cost is beginning it and appending its pages to the WAL at
// commit: when several requests write at once, one goroutine runs all their
// transaction bodies in one transaction and commits once, and each request
// is answered only after that commit, so nothing acknowledged is less
// durable than before.
//
// A body that fails does not fail the others: the batch is rolled back and
// every body runs again in a transaction of its own. So a body may run more
// than once; write, the only caller of inBatch, hands back the result of
// the run that committed.
//
// A body never runs for a caller that has gone: each caller's context is
// checked inside every transaction, after the write lock is held, and a
// body whose caller gave up is left out (answered with its context's
// error) while the others commit.
type batcher struct {
	s    *Store
	jobs chan *job // unbuffered: a job is either taken by the writer or refused
	stop chan struct{}
	done chan struct{}

	shared atomic.Int64 // bodies committed in a transaction shared with others
}

type job struct {
	ctx context.Context
	fn  func(*Tx) error
	err chan error
}

// maxBatch bounds how many transaction bodies share one commit, so one
// batch never holds the writer for long.
const maxBatch = 64

// errClosed answers writes that arrive after Close.
var errClosed = errors.New("store: closed")

// errBatchBody marks a batch abandoned because one of its bodies failed.
var errBatchBody = errors.New("a transaction body of the batch failed")

func newBatcher(s *Store) *batcher {
	b := &batcher{s: s, jobs: make(chan *job), stop: make(chan struct{}), done: make(chan struct{})}
	go b.run()
	return b
}

// close stops the writer goroutine; a job it has taken is finished first.
func (b *batcher) close() {
	close(b.stop)
	<-b.done
}

// inBatch runs fn in a write transaction, possibly shared with the bodies of
// other concurrent calls, and returns once that transaction has committed
// (nil) or fn's own error. Without a batcher it is inTx.
func (s *Store) inBatch(ctx context.Context, fn func(*Tx) error) error {
	b := s.batch
	if b == nil {
		return s.inTx(ctx, func(tx *Tx) error {
			// PostgreSQL: the transaction is bound to ctx, so a caller
			// that goes rolls it back; asking first spares the work.
			if err := ctx.Err(); err != nil {
				return err
			}
			return fn(tx)
		})
	}
	j := &job{ctx: ctx, fn: fn, err: make(chan error, 1)}
	select {
	case b.jobs <- j:
	case <-ctx.Done():
		return ctx.Err()
	case <-b.stop:
		return errClosed
	}
	// Once taken, the job always gets an answer: waiting for it keeps the
	// caller from reporting failure for a write that then commits.
	return <-j.err
}

func (b *batcher) run() {
	defer close(b.done)
	batch := make([]*job, 0, maxBatch)
	for {
		select {
		case j := <-b.jobs:
			batch = append(batch[:0], j)
		case <-b.stop:
			return
		}
		batch = b.gather(batch)
		b.commit(batch)
		clear(batch)
	}
}

// gather adds the jobs of the requests that are ready to write. It yields
// the processor while that makes the batch grow: with GOMAXPROCS=1 the
// goroutines whose requests have arrived only get to queue their writes
// when the writer lets them run.
func (b *batcher) gather(batch []*job) []*job {
	batch = b.drain(batch)
	for len(batch) < maxBatch {
		before := len(batch)
		runtime.Gosched()
		if batch = b.drain(batch); len(batch) == before {
			break
		}
	}
	return batch
}

func (b *batcher) drain(batch []*job) []*job {
	for len(batch) < maxBatch {
		select {
		case j := <-b.jobs:
			batch = append(batch, j)
		default:
			return batch
		}
	}
	return batch
}

// commit runs the batch's bodies in one transaction. When a body fails, the
// transaction is rolled back, the bodies before it run again together, the
// failing one alone (so that its error is its own), and the rest as a batch.
// When the transaction fails for the database's sake (busy, full,
// unreachable: FaultOf), every body gets that error; when it fails
// otherwise, each body runs alone.
func (b *batcher) commit(batch []*job) {
	live := make([]*job, 0, len(batch))
	for _, j := range batch {
		if err := j.ctx.Err(); err != nil {
			j.err <- err // gave up while queued: nothing was written
			continue
		}
		live = append(live, j)
	}
	b.commitJobs(live)
}

func (b *batcher) commitJobs(live []*job) {
	for len(live) > 1 {
		sh := shared{failed: -1} // -1 also when the transaction fails to begin
		err := b.s.inTx(context.Background(), func(tx *Tx) error { return sh.run(tx, live) })
		if errors.Is(err, errCallerGone) {
			live = stillWaited(live)
			continue
		}
		if err == nil {
			b.shared.Add(int64(len(sh.ran)))
			for _, j := range sh.ran {
				j.err <- nil
			}
			for _, j := range sh.gone {
				j.err <- j.ctx.Err()
			}
			return
		}
		if sh.failed < 0 {
			if _, ok := FaultOf(err); ok && !conflict(err) {
				// The database is busy, full or gone: one by one, each
				// would wait and fail the same way.
				for _, j := range live {
					j.err <- err
				}
				return
			}
			break
		}
		b.commitJobs(live[:sh.failed])
		live[sh.failed].err <- b.alone(live[sh.failed])
		live = live[sh.failed+1:]
	}
	for _, j := range live {
		j.err <- b.alone(j)
	}
}

// shared is one attempt at running the bodies of a batch in a transaction:
// those that ran, the callers that had gone before their turn, and the
// index of the body that failed (-1: none).
type shared struct {
	ran, gone []*job
	failed    int
}

// run runs the live jobs' bodies in tx, stopping at the first that fails
// (errBatchBody). A caller that left while the bodies ran (waiting on a
// row lock, say) must not have its write committed: errCallerGone, and
// the others go again without it.
func (sh *shared) run(tx *Tx, live []*job) error {
	sh.ran, sh.gone, sh.failed = sh.ran[:0], sh.gone[:0], -1
	for i, j := range live {
		if j.ctx.Err() != nil {
			sh.gone = append(sh.gone, j)
			continue
		}
		if err := j.run(tx); err != nil {
			sh.failed = i
			return errBatchBody
		}
		sh.ran = append(sh.ran, j)
	}
	for _, j := range sh.ran {
		if j.ctx.Err() != nil {
			return errCallerGone
		}
	}
	return nil
}

// errCallerGone marks a batch abandoned because a caller whose body ran
// left before the commit.
var errCallerGone = errors.New("a caller of the batch left before its commit")

// stillWaited answers the jobs whose callers have gone (nothing of theirs
// was committed) and returns the others.
func stillWaited(jobs []*job) []*job {
	live := jobs[:0:0]
	for _, j := range jobs {
		if err := j.ctx.Err(); err != nil {
			j.err <- err
			continue
		}
		live = append(live, j)
	}
	return live
}

// alone runs one job in a transaction of its own, unless its caller has
// gone. The caller is asked again inside the transaction, once the write
// lock is held: waiting for it (a busy database, a long checkpoint, another
// process holding the lock) can outlast the client, and a view claimed for
// a client that is gone is a secret spent and delivered to nobody.
func (b *batcher) alone(j *job) error {
	if err := j.ctx.Err(); err != nil {
		return err
	}
	return b.s.inTx(context.Background(), func(tx *Tx) error {
		if err := j.ctx.Err(); err != nil {
			return err
		}
		if err := j.run(tx); err != nil {
			return err
		}
		return j.ctx.Err() // left while its body ran: nothing is committed
	})
}

// conflict reports whether err is PostgreSQL's answer to transactions that
// got in each other's way (a deadlock, a serialization failure): the
// bodies of a shared transaction then run again alone, where they cannot
// deadlock with one another.
func conflict(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

// run runs the job's body. A panic becomes the job's error, as net/http
// would have confined it to the one request had the body run there: the
// writer goroutine serves every request and must not die with one.
func (j *job) run(tx *Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("store: transaction body panicked: %v", p)
		}
	}()
	return j.fn(tx)
}
