package store

import (
	"context"
	"database/sql"
	"time"
)

// checkpointEvery is how often the checkpointer copies the WAL back into
// the database file. Checkpointing more often makes each pause shorter but
// pays for each checkpoint's fixed costs more often: docs/performance.md has
// the measurements.
const checkpointEvery = 50 * time.Millisecond

// fullEvery says how many checkpoints make one round: the last of a round
// copies the whole log (and fsyncs the database), the others stop at the
// guard (see checkpointer). Four rounds a second; under load the log grows
// to a few thousand pages between restarts.
const fullEvery = 5

// restartFrames is the log length (in pages) past which a full checkpoint
// also restarts the log. Under a steady stream of writes a passive
// checkpoint never catches up with the end of the log, so the log would
// only grow.
const restartFrames = 8192

// flushLead is how long before each checkpoint the checkpointer asks the
// kernel to start writing the log out (startWriteback). A checkpoint first
// fsyncs the log, and an fsync holds the one Go processor of a
// GOMAXPROCS=1 server while it waits: every request stalls behind it. Once
// the kernel has written the log in the background, that fsync has little
// left to do. A few milliseconds suffice on this project's benchmark
// machine; the measurements are in docs/performance.md.
const flushLead = 3 * time.Millisecond

// checkpointer moves committed pages from SQLite's write-ahead log into the
// database file on a connection of its own. SQLite would otherwise do it
// inside the commit that crosses wal_autocheckpoint (1,000 pages), with
// two fsyncs, while every other write waits for that commit: the cause of
// most slow answers under load. A PASSIVE checkpoint never blocks writers,
// so commits go on appending to the log while it runs; once the log is
// fully copied, the next commit starts it over from the beginning. When
// writes never pause long enough for that, a RESTART checkpoint makes the
// writers wait while it copies the few pages the passive ones left and
// starts the log over.
//
// Most checkpoints are guarded: a read transaction, begun when the
// checkpoint is due, holds a snapshot of the log as it was then. A
// checkpoint never copies past a reader's snapshot, so it stops at the
// frames committed before the guard. SQLite fsyncs the database file only
// when a checkpoint has copied the log to its very end, since only then
// may the log start over and the copied frames be overwritten; a guarded
// checkpoint under load never gets there, so it writes the database's
// pages without waiting for the disk, and no request waits behind that
// fsync (see flushLead). Every fullEvery-th checkpoint runs unguarded: it
// copies everything, fsyncs the database once for the whole round, and lets the
// log start over. Durability is SQLite's own rule either way; the guard is
// only a reader.
type checkpointer struct {
	db    *sql.DB
	wal   string  // the log's path
	guard *sql.Tx // the read transaction bounding the next checkpoint; nil before a full one
	stop  chan struct{}
	done  chan struct{}
}

func newCheckpointer(db *sql.DB, wal string) *checkpointer {
	c := openCheckpointer(db, wal)
	go c.run()
	return c
}

// openCheckpointer prepares a checkpointer without starting its ticks.
func openCheckpointer(db *sql.DB, wal string) *checkpointer {
	db.SetMaxOpenConns(2) // the checkpoints' and the guard's
	db.SetMaxIdleConns(2)
	db.SetConnMaxLifetime(0)
	return &checkpointer{db: db, wal: wal, stop: make(chan struct{}), done: make(chan struct{})}
}

func (c *checkpointer) run() {
	defer close(c.done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for n := 1; ; n++ {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		c.release()
		if n%fullEvery != 0 {
			c.hold()
		}
		startWriteback(c.wal)
		select {
		case <-c.stop:
			return
		case <-time.After(flushLead):
		}
		c.checkpoint()
	}
}

// hold begins the guard: a read transaction whose snapshot ends at the
// log's current last frame. If it cannot, the next checkpoint is a full
// one, which is always safe.
func (c *checkpointer) hold() {
	ctx := context.Background()
	tx, err := c.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return
	}
	// A transaction reads nothing, and holds no snapshot, until its first
	// statement.
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil {
		_ = tx.Rollback()
		return
	}
	c.guard = tx
}

// release ends the guard, if one is held.
func (c *checkpointer) release() {
	if c.guard != nil {
		_ = c.guard.Rollback()
		c.guard = nil
	}
}

// checkpoint runs one passive checkpoint and says how long the log was and
// how much of it is now in the database file. A failure (the database busy
// with another process's checkpoint, say) is left for the next tick: the
// log only grows meanwhile, nothing is lost.
func (c *checkpointer) checkpoint() (logFrames, copied int) {
	var busy int
	err := c.db.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &copied)
	if err == nil && logFrames > restartFrames && c.guard == nil {
		// A RESTART waits for every reader, the guard too: only unguarded.
		_ = c.db.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(RESTART)`).Scan(&busy, &logFrames, &copied)
	}
	return logFrames, copied
}

// close stops the checkpointer, ends its guard and closes its connections;
// closing the last connection checkpoints what is left.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	c.release()
	return c.db.Close()
}
