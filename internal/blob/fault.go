package blob

import (
	"context"
	"errors"
	"syscall"
	"time"

	"hush/internal/push"
)

// FaultError is a file store's error that says what is wrong with the
// store itself (the S3 backend wraps the server's answers in it).
type FaultError struct {
	Fault push.Fault
	Err   error
}

func (e *FaultError) Error() string { return e.Err.Error() }
func (e *FaultError) Unwrap() error { return e.Err }

// retryAfter is the wait suggested to clients while the file store is
// busy or unreachable.
const retryAfter = 5 * time.Second

// Busy, Unreachable and Full are the faults of a file store.
var (
	Busy        = push.Fault{Code: push.CodeUnavailable, Cause: "busy", RetryAfter: retryAfter}
	Unreachable = push.Fault{Code: push.CodeUnavailable, Cause: "unreachable", RetryAfter: retryAfter}
	Full        = push.Fault{Code: push.CodeStorageFull, Cause: "full"}
)

// FaultOf classifies err: a push.Fault when the file store is busy,
// unreachable or full, false for anything else (a missing blob, a client's
// upload cut short, a bug).
func FaultOf(err error) (push.Fault, bool) {
	var fe *FaultError
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, ErrNotFound):
		return push.Fault{}, false
	case errors.As(err, &fe):
		return fe.Fault, true
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return Full, true
	case errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EIO):
		return Unreachable, true
	case errors.Is(err, context.DeadlineExceeded):
		return Busy, true
	}
	// Network errors and early ends are not classified here: reading an
	// upload from its client fails with them too. A backend that talks to a
	// server wraps its own in a FaultError.
	return push.Fault{}, false
}
