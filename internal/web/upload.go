package web

import (
	"errors"
	"mime"
	"net/http"
	"net/url"

	"hush/internal/httpx"
	"hush/internal/push"
	"hush/internal/service"
)

// filesAllowed reports whether u may attach files in the form
// (service.MayAttach: signed in, file pushes enabled, a file store).
func (s *Server) filesAllowed(u *push.User) bool { return s.svc.MayAttach(u) }

// errTextTooLarge marks an urlencoded form over maxForm; errFilesSignIn and
// errFilesOff refuse files the visitor may not send. Multipart bodies fail
// with httpx.ErrFormTooLarge and httpx.ErrFormMalformed.
var (
	errTextTooLarge = errors.New("urlencoded form too large")
	errFilesSignIn  = errors.New("files need a signed-in user")
	errFilesOff     = errors.New("file pushes are disabled")
)

// parseCreateMultipart streams a multipart create form (httpx.StreamForm):
// each file part named "files" goes straight into up. Files beyond the cap
// are counted but not stored, so the create fails with the usual message.
//
// Only a visitor who may attach files may send a body the size of its files,
// and only once a file's contents begin may the body take up to
// httpx.MaxUploadTime, as long as it keeps pace (httpx.Pace); anyone else gets
// the field limit (the largest payload as it is, push.MaxMultipartFields)
// and the server's read timeout (docs/decisions.md, D24).
func (s *Server) parseCreateMultipart(w http.ResponseWriter, r *http.Request, u *push.User, up *service.Uploads) (url.Values, error) {
	limit := int64(push.MaxMultipartFields)
	if s.filesAllowed(u) {
		limit += s.svc.MaxPushSize()
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	body := httpx.Pace(w, r, s.readTimeout, httpx.MaxUploadTime)
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return nil, httpx.ErrFormMalformed
	}
	form, _, err := httpx.StreamForm(r.Context(), body, params["boundary"], httpx.FormRules{
		IsFileField:   func(name string) bool { return name == "files" },
		MaxFieldBytes: push.MaxMultipartFields,
		Allow: func(count int) (bool, error) {
			switch {
			case u == nil:
				return false, errFilesSignIn
			case !s.filesAllowed(u):
				return false, errFilesOff
			}
			body.Start()
			return true, nil
		},
	}, up)
	if err == nil && !httpx.ValidText(form) {
		return nil, httpx.ErrFormMalformed
	}
	return form, err
}
