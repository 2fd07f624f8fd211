package api

import (
	"net/http"
	"time"

	"hush/internal/push"
	"hush/internal/service"
)

// uploadDeadline bounds how long one create with attachments may take.
const uploadDeadline = 30 * time.Minute

// decodeMultipart streams a multipart create: fields are read (bounded),
// file parts go straight into the file store, sealed, one chunk at a time.
func (s *Server) decodeMultipart(w http.ResponseWriter, r *http.Request, user *push.User, wrapper string) (params push.Params, set service.FileSet, err error) {
	defer func() {
		if err != nil {
			s.Service.Discard(r.Context(), set.Uploads)
			set.Uploads = nil
		}
	}()
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(uploadDeadline))
	r.Body = http.MaxBytesReader(w, r.Body, s.Service.MaxPushSize+s.MaxBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, set, badRequest("The multipart body is malformed.")
	}
	form, set, sawFiles, err := s.Service.StreamForm(r.Context(), mr, service.FormRules{
		IsFileField:   func(name string) bool { return name == wrapper+"[files][]" || name == wrapper+"[files]" },
		MaxFieldBytes: s.MaxBody,
		Allow: func(count int) (bool, error) {
			if user == nil {
				return false, unauthenticated(service.MsgSignIn)
			}
			return s.mayStoreFiles(user, nil, count), nil
		},
	})
	if err != nil {
		return nil, set, err
	}
	params, err = formParams(form, wrapper)
	if err != nil {
		if !sawFiles {
			return nil, set, err
		}
		params = push.Params{}
	}
	// Empty file fields only mark that files were sent; other plain values
	// under files are not uploads.
	plain := fileEntries(params["files"])
	if sawFiles {
		params["files"] = []any{}
	}
	if len(plain) > 0 {
		set.Count += len(plain)
		if set.Count <= s.Service.Settings.MaxFileUploads {
			return nil, set, errBadFileEntry
		}
	}
	return params, set, nil
}
