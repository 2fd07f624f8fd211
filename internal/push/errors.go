package push

import (
	"errors"
	"fmt"
	"time"
)

// Code classifies an error for the API and web layers.
type Code string

// Error codes. One function per presentation layer maps them to statuses.
const (
	CodeBadRequest      Code = "bad_request"     // 400: malformed request
	CodeUnauthenticated Code = "unauthenticated" // 401
	CodeForbidden       Code = "forbidden"       // 403
	CodeNotFound        Code = "not_found"       // 404
	CodeConflict        Code = "conflict"        // 409
	CodeTooLarge        Code = "too_large"       // 413
	CodeInvalid         Code = "invalid"         // 422: validation, with per-field messages
	CodeTooMany         Code = "too_many"        // 429
	CodeUnavailable     Code = "unavailable"     // 503: the database or file store is busy or unreachable
	CodeStorageFull     Code = "storage_full"    // 507: no space left to store
)

// Error is an error the caller can act on. Message is safe to show to a client.
type Error struct {
	Code       Code
	Message    string
	Fields     map[string][]string // validation messages per field (CodeInvalid)
	RetryAfter time.Duration       // CodeTooMany, CodeUnavailable: when to try again
}

func (e *Error) Error() string {
	if e.Message == "" && len(e.Fields) > 0 {
		return fmt.Sprintf("%s: %v", e.Code, e.Fields)
	}
	return string(e.Code) + ": " + e.Message
}

// Errorf returns an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err, or "" when err is not one of ours.
func ErrorCode(err error) Code {
	if err == nil {
		return "" // without errors.As, whose target would be allocated
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// ErrNotFound is the error for an unknown (or purged) push.
var ErrNotFound = &Error{Code: CodeNotFound, Message: "not-found"}

// FieldErrors collects validation messages per field, in the order they are found.
type FieldErrors map[string][]string

// Add records a message for a field.
func (f FieldErrors) Add(field, msg string) { f[field] = append(f[field], msg) }

// Err returns nil when empty, else a CodeInvalid *Error.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	return &Error{Code: CodeInvalid, Fields: f}
}

// Fault is what a storage error says about the storage, as opposed to the
// request: the database or the file store is busy or unreachable (try
// again) or full (an operator must act).
type Fault struct {
	// Code is CodeUnavailable or CodeStorageFull.
	Code Code
	// Cause names the fault for logs and readiness: "busy", "unreachable"
	// or "full".
	Cause string
	// RetryAfter is when trying again may help (CodeUnavailable).
	RetryAfter time.Duration
}
