package store

import (
	"context"
	"database/sql"
	"sync"
)

// conn is a *sql.DB whose queries run as cached prepared statements when
// prepare is set: SQLite spends much of a small query's time parsing it.
// (pgx already caches prepared statements per connection.) Every query of
// the store is a constant text, so the cache is bounded.
type conn struct {
	*sql.DB
	prepare bool
	stmts   sync.Map // query text → *sql.Stmt
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

func (c *conn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := c.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return c.DB.ExecContext(ctx, query, args...)
}

func (c *conn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return c.DB.QueryContext(ctx, query, args...)
}

func (c *conn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
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
}

func (t *Tx) cached(ctx context.Context, query string) *sql.Stmt {
	if !t.c.prepare {
		return nil
	}
	if st, ok := t.c.stmts.Load(query); ok {
		return t.Tx.StmtContext(ctx, st.(*sql.Stmt))
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
	if st := t.cached(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, query, args...)
}

func (t *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.cached(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, query, args...)
}

func (t *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.cached(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, query, args...)
}
