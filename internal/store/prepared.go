package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"

	"hush/internal/push"
)

// conn is a *sql.DB whose queries run as cached prepared statements when
// prepare is set: SQLite spends much of a small query's time parsing it.
// (pgx already caches prepared statements per connection.) Every query of
// the store is a constant text, so the cache is bounded.
//
// SQLite statements also run without the caller's cancellation: each one is
// short (point lookups and updates, bounded pages, chunked sweeps), and a
// cancellable context costs the driver a goroutine per statement to watch it.
type conn struct {
	*sql.DB
	prepare bool
	// lite is set on SQLite's connections. There the driver reports the id
	// of an inserted row, so an insert skips RETURNING (insertID), and a
	// write transaction holds the database's only write lock from its
	// start, so a read then an update in it is atomic (claimRow): SQLite's
	// RETURNING buffers its rows and costs more than either.
	lite  bool
	stmts sync.Map // query text → *sql.Stmt
	// hooks is set by a write that queued webhook messages, and taken
	// once it has committed (Store.OnHooksQueued).
	hooks atomic.Bool
	kick  func()
}

func (c *conn) stmt(ctx context.Context, query string) *sql.Stmt {
	if !c.prepare {
		return nil
	}
	if st, ok := c.stmts.Load(query); ok {
		return st.(*sql.Stmt)
	}
	st, err := c.DB.PrepareContext(ctx, query)
	if err != nil {
		return nil // the plain call reports the error
	}
	if prev, loaded := c.stmts.LoadOrStore(query, st); loaded {
		st.Close()
		return prev.(*sql.Stmt)
	}
	return st
}

// detach drops ctx's cancellation for SQLite (see conn).
func (c *conn) detach(ctx context.Context) context.Context {
	if c.prepare && ctx.Done() != nil {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

func (c *conn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx = c.detach(ctx)
	if st := c.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return c.DB.ExecContext(ctx, query, args...)
}

func (c *conn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx = c.detach(ctx)
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return c.DB.QueryContext(ctx, query, args...)
}

func (c *conn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	ctx = c.detach(ctx)
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return c.DB.QueryRowContext(ctx, query, args...)
}

// Close closes the cached statements and the database.
func (c *conn) Close() error {
	c.stmts.Range(func(_, st any) bool {
		st.(*sql.Stmt).Close()
		return true
	})
	return c.DB.Close()
}

// Tx is a write transaction whose queries use the cached statements. A
// statement is never prepared inside a transaction (the writer has one
// connection, which the transaction holds): a query seen for the first time
// runs unprepared and is prepared after the transaction ends.
type Tx struct {
	*sql.Tx
	c      *conn
	missed []string
	stmts  map[string]*sql.Stmt // the cached statements bound to this transaction

	hookEvents      push.HookEvents // what enabled webhook endpoints want (wantedHooks)
	hookEventsKnown bool
}

func (t *Tx) cached(ctx context.Context, query string) *sql.Stmt {
	if !t.c.prepare {
		return nil
	}
	if st := t.stmts[query]; st != nil {
		return st
	}
	if st, ok := t.c.stmts.Load(query); ok {
		bound := t.Tx.StmtContext(ctx, st.(*sql.Stmt))
		if t.stmts == nil {
			t.stmts = make(map[string]*sql.Stmt, 4)
		}
		t.stmts[query] = bound
		return bound
	}
	t.missed = append(t.missed, query)
	return nil
}

// warm prepares the queries the transaction ran unprepared.
func (t *Tx) warm(ctx context.Context) {
	for _, q := range t.missed {
		t.c.stmt(ctx, q)
	}
}

func (t *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx = t.c.detach(ctx)
	if st := t.cached(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, query, args...)
}

// insertID runs insert, an INSERT of one row into a table whose key is
// id, and returns that id: from the driver where it reports it, else from
// RETURNING id (PostgreSQL).
func (t *Tx) insertID(ctx context.Context, insert string, args ...any) (int64, error) {
	if !t.c.lite {
		var id int64
		err := t.QueryRowContext(ctx, insert+` RETURNING id`, args...).Scan(&id)
		return id, err
	}
	res, err := t.ExecContext(ctx, insert, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

func (t *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx = t.c.detach(ctx)
	if st := t.cached(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, query, args...)
}

func (t *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	ctx = t.c.detach(ctx)
	if st := t.cached(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, query, args...)
}
