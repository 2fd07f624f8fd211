package store

import (
	"context"
	"database/sql"
	"time"
)

// checkpointEvery is how often the checkpointer copies the WAL back into
// the database file. Under a steady load of creates a checkpoint every 50 ms
// copies about a thousand pages in about 5 ms; checkpointing more often cuts
// that pause (p99) but pays for the two fsyncs of each checkpoint more often
// (throughput): docs/performance.md has the measurements.
const checkpointEvery = 50 * time.Millisecond

// restartFrames is the log length (in pages) past which a checkpoint also
// restarts the log. Under a steady stream of writes a passive checkpoint
// never catches up with the end of the log, so the log would only grow.
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
type checkpointer struct {
	db   *sql.DB
	wal  string // the log's path
	stop chan struct{}
	done chan struct{}
}

func newCheckpointer(db *sql.DB, wal string) *checkpointer {
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	c := &checkpointer{db: db, wal: wal, stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c
}

func (c *checkpointer) run() {
	defer close(c.done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			startWriteback(c.wal)
			select {
			case <-c.stop:
				return
			case <-time.After(flushLead):
			}
			c.checkpoint()
		}
	}
}

// checkpoint runs one passive checkpoint. A failure (the database busy with
// another process's checkpoint, say) is left for the next tick: the log
// only grows meanwhile, nothing is lost.
func (c *checkpointer) checkpoint() {
	var busy, logFrames, copied int
	err := c.db.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &copied)
	if err == nil && logFrames > restartFrames {
		_ = c.db.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(RESTART)`).Scan(&busy, &logFrames, &copied)
	}
}

// close stops the checkpointer and closes its connection; closing the last
// connection checkpoints what is left.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	return c.db.Close()
}
