package web

import (
	"errors"
	"mime"
	"net/http"
	"net/url"
	"time"

	"hush/internal/push"
	"hush/internal/service"
)

// uploadDeadline bounds how long one create with files may take, as in the API.
const uploadDeadline = 30 * time.Minute

// filesAllowed reports whether u may attach files in the form: signed in,
// file pushes enabled and a file store configured.
func (s *Server) filesAllowed(u *push.User) bool {
	return u != nil && s.Service.Settings.EnableFilePushes && s.Service.Files != nil
}

// errTextTooLarge marks an urlencoded form over maxForm; errFilesSignIn and
// errFilesOff refuse files the visitor may not send. Multipart bodies fail
// with service.ErrFormTooLarge and service.ErrFormMalformed.
var (
	errTextTooLarge = errors.New("urlencoded form too large")
	errFilesSignIn  = errors.New("files need a signed-in user")
	errFilesOff     = errors.New("file pushes are disabled")
)

// parseCreateMultipart streams a multipart create form (service.StreamForm):
// each file part named "files" goes straight into the file store. Files
// beyond Settings.MaxFileUploads are counted but not stored, so the create
// fails with the usual message.
//
// Only a visitor who may attach files may send a body the size of its files,
// and only once a file's contents begin does the read deadline stretch to
// uploadDeadline; anyone else gets the form limit and the server's read
// timeout.
func (s *Server) parseCreateMultipart(w http.ResponseWriter, r *http.Request, u *push.User) (url.Values, service.FileSet, error) {
	limit := int64(maxForm)
	if s.filesAllowed(u) {
		limit += s.Service.MaxPushSize
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return nil, service.FileSet{}, service.ErrFormMalformed
	}
	form, set, _, err := s.Service.StreamForm(r.Context(), r.Body, params["boundary"], service.FormRules{
		IsFileField:   func(name string) bool { return name == "files" },
		MaxFieldBytes: maxForm,
		Allow: func(count int) (bool, error) {
			switch {
			case u == nil:
				return false, errFilesSignIn
			case !s.filesAllowed(u):
				return false, errFilesOff
			}
			if count == 1 {
				http.NewResponseController(w).SetReadDeadline(time.Now().Add(uploadDeadline))
			}
			return count <= s.Service.Settings.MaxFileUploads, nil
		},
	})
	return form, set, err
}
