package api

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"time"

	"hush/internal/push"
	"hush/internal/service"
)

// uploadDeadline bounds how long one create with attachments may take.
const uploadDeadline = 30 * time.Minute

// decodeMultipart streams a multipart create: fields are read (bounded),
// file parts go straight into the file store, sealed, one chunk at a time.
func (s *Server) decodeMultipart(w http.ResponseWriter, r *http.Request, user *push.User, wrapper string) (params push.Params, set service.FileSet, err error) {
	ctx := r.Context()
	defer func() {
		if err != nil {
			s.Service.Discard(ctx, set.Uploads)
			set.Uploads = nil
		}
	}()
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(uploadDeadline))
	r.Body = http.MaxBytesReader(w, r.Body, s.Service.MaxPushSize+s.MaxBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, set, badRequest("The multipart body is malformed.")
	}
	form := url.Values{}
	var fieldBytes, stored int64
	sawFiles := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, set, bodyError(err)
		}
		name := part.FormName()
		isFiles := name == wrapper+"[files][]" || name == wrapper+"[files]"
		_, dispParams, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
		fileName, isFile := dispParams["filename"]
		if !isFile || fileName == "" {
			v, err := io.ReadAll(io.LimitReader(part, s.MaxBody-fieldBytes+1))
			if err != nil {
				return nil, set, bodyError(err)
			}
			if fieldBytes += int64(len(v)); fieldBytes > s.MaxBody {
				return nil, set, &push.Error{Code: push.CodeTooLarge, Message: "The request body is too large."}
			}
			form.Add(name, string(v))
			sawFiles = sawFiles || isFiles
			continue
		}
		if !isFiles {
			continue // NextPart skips the rest of an unknown part
		}
		sawFiles = true
		set.Count++
		if user == nil {
			return nil, set, unauthenticated(service.MsgSignIn)
		}
		if !s.mayStoreFiles(user, nil, set.Count) {
			continue
		}
		body := &readErrReader{r: part}
		up, err := s.Service.StoreFile(ctx, service.SafeFileName(fileName), service.PartType(part.Header.Get("Content-Type"), fileName), body, stored)
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return nil, set, bodyError(err)
			}
			if body.err != nil { // the upload was cut off or malformed: the client's fault
				return nil, set, bodyError(body.err)
			}
			return nil, set, err
		}
		stored += up.Size
		set.Uploads = append(set.Uploads, up)
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

// readErrReader remembers the error, other than io.EOF, that reading the
// request body gave, so that a truncated upload is told apart from a
// failure of the file store.
type readErrReader struct {
	r   io.Reader
	err error
}

func (e *readErrReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}
