package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"
	"time"

	"hush/internal/push"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// busyRetry and downRetry are the waits suggested to clients while the
// database is busy (a lock held elsewhere, a long checkpoint) or cannot be
// reached.
const (
	busyRetry = 2 * time.Second
	downRetry = 5 * time.Second
)

// FaultOf classifies err: a push.Fault when the database is busy, unreachable or
// full, false for anything else (a bug, a constraint, a missing row).
func FaultOf(err error) (push.Fault, bool) {
	if err == nil || errors.Is(err, context.Canceled) {
		return push.Fault{}, false // a caller that left says nothing about the database
	}
	var down *downError
	if errors.As(err, &down) {
		return push.Fault{Code: push.CodeUnavailable, Cause: "unreachable", RetryAfter: max(down.retry, time.Second)}, true
	}
	if isAny(err, syscall.ENOSPC, syscall.EDQUOT) {
		return full(), true
	}
	if f, ok := sqliteFault(err); ok {
		return f, true
	}
	if f, ok := postgresFault(err); ok {
		return f, true
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return busy(), true // a deadline of the server's own (readiness, a request's bound) ran out
	}
	var netErr net.Error
	if errors.As(err, &netErr) || isAny(err, lostConnection...) {
		return unreachable(), true
	}
	return push.Fault{}, false
}

// lostConnection are the errors of a connection to the database that broke.
var lostConnection = []error{driver.ErrBadConn, sql.ErrConnDone, io.ErrUnexpectedEOF,
	syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE}

// isAny reports whether err is one of targets.
func isAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

func busy() push.Fault {
	return push.Fault{Code: push.CodeUnavailable, Cause: "busy", RetryAfter: busyRetry}
}

func unreachable() push.Fault {
	return push.Fault{Code: push.CodeUnavailable, Cause: "unreachable", RetryAfter: downRetry}
}

func full() push.Fault { return push.Fault{Code: push.CodeStorageFull, Cause: "full"} }

// IsLocked reports whether err is SQLite's answer to a write that waited
// its busy timeout for a lock another connection or process held.
func IsLocked(err error) bool {
	f, ok := sqliteFault(err)
	return ok && f.Cause == busy().Cause
}

func sqliteFault(err error) (push.Fault, bool) {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return push.Fault{}, false
	}
	switch e.Code() & 0xff { // the primary code; extended codes add detail in the high bits
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return busy(), true
	case sqlite3.SQLITE_FULL:
		return full(), true
	case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PROTOCOL:
		return unreachable(), true
	}
	return push.Fault{}, false
}

func postgresFault(err error) (push.Fault, bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "53100": // disk_full
			return full(), true
		case pgErr.Code == "53300", pgErr.Code == "55P03", pgErr.Code == "40001", pgErr.Code == "40P01":
			// too many connections, lock not available, serialization
			// failure, deadlock: the next try may pass
			return busy(), true
		case len(pgErr.Code) == 5 && (pgErr.Code[:2] == "08" || pgErr.Code[:3] == "57P"):
			// connection exceptions; the server shutting down or starting
			return unreachable(), true
		}
		return push.Fault{}, false
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) || pgconn.Timeout(err) || errors.Is(err, pgconn.ErrConnClosed) {
		return unreachable(), true
	}
	return push.Fault{}, false
}

// downError is returned without dialing while the database is known to be
// unreachable (the dialer's back-off).
type downError struct {
	retry time.Duration
	last  error
}

func (e *downError) Error() string {
	return "database unreachable (not retried for " + e.retry.Round(time.Millisecond).String() + "): " + e.last.Error()
}

func (e *downError) Unwrap() error { return e.last }
