package api

import (
	"mime"
	"net/http"
	"time"

	"hush/internal/push"
	"hush/internal/service"
)

// uploadDeadline bounds how long one create with attachments may take.
const uploadDeadline = 30 * time.Minute

// decodeMultipart streams a multipart create: fields are read (bounded),
// file parts go straight into the file store, sealed, one chunk at a time.
// Only a caller who may attach files may send a body the size of its files,
// and only once a file's contents begin does the read deadline stretch to
// uploadDeadline; anyone else gets the JSON body limit and the server's
// read timeout, so an anonymous client cannot hold memory or a connection.
func (s *Server) decodeMultipart(w http.ResponseWriter, r *http.Request, user *push.User, wrapper string) (params push.Params, set service.FileSet, err error) {
	defer func() {
		if err != nil {
			s.Service.Discard(r.Context(), set.Uploads)
			set.Uploads = nil
		}
	}()
	limit := s.MaxBody
	if s.mayAttach(user) {
		limit += s.Service.MaxPushSize
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	_, ctParams, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ctParams["boundary"] == "" {
		return nil, set, badRequest("The multipart body is malformed.")
	}
	form, set, sawFiles, err := s.Service.StreamForm(r.Context(), r.Body, ctParams["boundary"], service.FormRules{
		IsFileField:   func(name string) bool { return name == wrapper+"[files][]" || name == wrapper+"[files]" },
		MaxFieldBytes: s.MaxBody,
		Allow: func(count int) (bool, error) {
			if user == nil {
				return false, unauthenticated(service.MsgSignIn)
			}
			store := s.mayStoreFiles(user, nil, count)
			if store && count == 1 {
				http.NewResponseController(w).SetReadDeadline(time.Now().Add(uploadDeadline))
			}
			return store, nil
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

// mayAttach reports whether user may attach files at all: signed in, file
// pushes enabled and a file store configured.
func (s *Server) mayAttach(user *push.User) bool {
	return user != nil && s.Service.Settings.EnableFilePushes && s.Service.Files != nil
}
