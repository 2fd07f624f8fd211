package web

import (
	"errors"
	"net/http"
	"strconv"

	"hush/internal/httpx"
	"hush/internal/push"
	"hush/internal/service"
)

// origin is scheme://host for secret URLs (httpx.Origin).
func (s *Server) origin(r *http.Request) string { return httpx.Origin(r, s.baseURL, s.trusted) }

// meta is what the audit log records about this request.
func (s *Server) meta(r *http.Request) push.Meta { return httpx.Meta(r, s.trusted) }

// settings are the instance's push settings.
func (s *Server) settings() push.Settings { return s.svc.Settings() }

// pageParam reads ?page= leniently: anything outside 1..MaxPage is page 1.
func pageParam(r *http.Request) int {
	n, err := strconv.Atoi(httpx.Query(r, "page"))
	if err != nil || n < 1 || n > service.MaxPage {
		return 1
	}
	return n
}

// formValue is the field key of r's form body, as parseForm read it: its
// last value when it was sent more than once, as Rack reads a form and as
// the API does (httpx.Last, docs/decisions.md, D65); r.PostForm.Get would
// take the first. A field that holds a list (a webhook's events) is read
// whole.
func formValue(r *http.Request, key string) string { return httpx.Last(r.PostForm, key) }

// Limits of urlencoded form bodies: the create form takes the largest text
// payload percent-encoded (push.MaxEncodedPayload) and 1 MiB for the other
// fields; every other form (sign-in, passphrase, account) holds a few short
// fields.
const (
	maxForm      = push.MaxEncodedPayload + 1<<20
	maxSmallForm = 1 << 20
)

// Forms that could not be read.
var (
	errFormUnreadable = &push.Error{Code: push.CodeBadRequest, Message: "The form could not be read."}
	errFormTooLarge   = &push.Error{Code: push.CodeTooLarge, Message: "The form was too large."}
)

// parseForm reads a small urlencoded form (maxSmallForm); errFormTooLarge
// or errFormUnreadable when it cannot.
func parseForm(w http.ResponseWriter, r *http.Request) error {
	return parseFormMax(w, r, maxSmallForm)
}

// parseFormMax reads an urlencoded form of at most limit bytes, all of it
// valid UTF-8 without NUL (httpx.ValidText; a browser sends nothing else
// from these pages).
func parseFormMax(w http.ResponseWriter, r *http.Request, limit int64) error {
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	err := r.ParseForm()
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return errFormTooLarge
	case err != nil || !httpx.ValidText(r.PostForm):
		return errFormUnreadable
	}
	return nil
}
