package api

import (
	"mime"
	"net/http"

	"hush/internal/httpx"
	"hush/internal/push"
	"hush/internal/service"
)

// decodeMultipart streams a multipart create: fields are read (bounded),
// file parts go straight into up, sealed, one chunk at a time. Only a
// caller who may attach files may send a body the size of its files, and
// only once a file's contents begin may the body take up to httpx.MaxUploadTime,
// as long as it keeps pace (httpx.Pace: a stalled or trickling upload is
// cut after the read timeout); anyone else gets the field limit and the
// server's read timeout, so an anonymous client cannot hold memory or a
// connection (docs/decisions.md, D24). The field limit is the JSON body
// limit, at most push.MaxMultipartFields: multipart values need no
// escaping, so the largest payload takes its UTF-8 bytes only.
func (s *Server) decodeMultipart(w http.ResponseWriter, r *http.Request, user *push.User, wrapper string, up *service.Uploads) (Params, error) {
	fields := min(s.maxBody, push.MaxMultipartFields)
	limit := fields
	if s.svc.MayAttach(user) {
		limit += s.svc.MaxPushSize()
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	body := httpx.Pace(w, r, s.readTimeout, httpx.MaxUploadTime)
	_, ctParams, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ctParams["boundary"] == "" {
		return nil, badRequest("The multipart body is malformed.")
	}
	form, sawFiles, err := httpx.StreamForm(r.Context(), body, ctParams["boundary"], httpx.FormRules{
		IsFileField:   func(name string) bool { return name == wrapper+"[files][]" || name == wrapper+"[files]" },
		MaxFieldBytes: fields,
		Allow: func(count int) (bool, error) {
			if user == nil {
				return false, unauthenticated(service.MsgSignIn)
			}
			store := s.svc.MayAttach(user)
			if store {
				body.Start()
			}
			return store, nil
		},
	}, up)
	if err != nil {
		return nil, err
	}
	params, err := formParams(form, wrapper)
	if err != nil {
		if !sawFiles {
			return nil, err
		}
		params = Params{}
	}
	// Empty file fields only mark that files were sent; other plain values
	// under files are not uploads.
	plain := fileEntries(params["files"])
	if sawFiles {
		params["files"] = []any{}
	}
	for range plain {
		up.Skip()
	}
	if len(plain) > 0 && up.Count() <= s.svc.Settings().MaxFileUploads {
		return nil, errBadFileEntry
	}
	return params, nil
}
