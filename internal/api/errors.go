package api

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"

	"hush/internal/httpx"
	"hush/internal/push"
	"hush/internal/service"
)

type errorBody struct {
	Error string `json:"error"`
}

// Messages of Password Pusher that clients match on.
const (
	msgBadToken       = "Invalid API token."
	msgBadPage        = "Invalid page parameter"
	msgClientClosed   = "The connection closed before the answer was ready."
	msgMissingPush    = "param is missing or the value is empty or invalid: push"
	msgNeedPassphrase = "This push requires a passphrase. Please provide it using the 'passphrase' parameter (e.g. ?passphrase=mysecret)"
)

type passphraseErrorJSON struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var b []byte
	if a, ok := v.(jsonAppender); ok {
		b = a.appendJSON(make([]byte, 0, 640))
	} else {
		var err error
		if b, err = json.Marshal(v); err != nil {
			status, b = http.StatusInternalServerError, []byte(`{"error":"internal error"}`)
		}
	}
	h := w.Header()
	h["Content-Type"] = jsonContentType // shared, never written (httpx.Baseline)
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

var jsonContentType = []string{"application/json; charset=utf-8"}

var codeStatus = map[push.Code]int{
	push.CodeBadRequest:      http.StatusBadRequest,
	push.CodeUnauthenticated: http.StatusUnauthorized,
	push.CodeForbidden:       http.StatusForbidden,
	push.CodeNotFound:        http.StatusNotFound,
	push.CodeConflict:        http.StatusConflict,
	push.CodeTooLarge:        http.StatusRequestEntityTooLarge,
	push.CodeInvalid:         http.StatusUnprocessableEntity,
	push.CodeTooMany:         http.StatusTooManyRequests,
	push.CodeUnavailable:     http.StatusServiceUnavailable,
	push.CodeStorageFull:     http.StatusInsufficientStorage,
}

// writeError is the one place where an error becomes a status and a body.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, service.ErrPassphrase) {
		writeJSON(w, http.StatusUnauthorized, passphraseErrorJSON{
			Error: service.ErrPassphrase.Message, Message: msgNeedPassphrase, Status: "unauthorized"})
		return
	}
	var e *push.Error
	if !errors.As(err, &e) {
		// A storage fault is answered 503 or 507 and logged by the service,
		// once per episode; anything else is a bug.
		if e = s.svc.Fault(r.Context(), err); e == nil {
			if httpx.ClientGone(r) {
				writeJSON(w, httpx.StatusClientClosed, errorBody{msgClientClosed})
				return
			}
			s.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "route", r.Pattern, "err", err)
			writeJSON(w, http.StatusInternalServerError, errorBody{"internal error"})
			return
		}
	}
	status := codeStatus[e.Code]
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
	}
	if e.Code == push.CodeInvalid {
		writeJSON(w, status, e.Fields)
		return
	}
	writeJSON(w, status, errorBody{e.Message})
}

func badRequest(msg string) error { return &push.Error{Code: push.CodeBadRequest, Message: msg} }

func unauthenticated(msg string) error {
	return &push.Error{Code: push.CodeUnauthenticated, Message: msg}
}
