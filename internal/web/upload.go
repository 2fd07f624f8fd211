package web

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

// uploadDeadline bounds how long one create with files may take, as in the API.
const uploadDeadline = 30 * time.Minute

// filesAllowed reports whether u may attach files in the form: signed in,
// file pushes enabled and a file store configured.
func (s *Server) filesAllowed(u *push.User) bool {
	return u != nil && s.Service.Settings.EnableFilePushes && s.Service.Files != nil
}

// errFormTooLarge and errFormBad are the form's own failures of a multipart
// body; errFilesSignIn and errFilesOff refuse files the visitor may not send.
var (
	errFormTooLarge = errors.New("form too large")
	errTextTooLarge = errors.New("urlencoded form too large")
	errFormBad      = errors.New("form malformed")
	errFilesSignIn  = errors.New("files need a signed-in user")
	errFilesOff     = errors.New("file pushes are disabled")
)

// parseCreateMultipart streams a multipart create form: plain fields are read
// (bounded by maxForm in all), each file part named "files" goes straight
// into the file store, sealed, one chunk at a time, never whole in memory.
// Files beyond Settings.MaxFileUploads are counted but not stored, so the
// create fails with the usual message. On any error the stored uploads are
// discarded.
func (s *Server) parseCreateMultipart(w http.ResponseWriter, r *http.Request, u *push.User) (form url.Values, set service.FileSet, err error) {
	ctx := r.Context()
	defer func() {
		if err != nil {
			s.Service.Discard(ctx, set.Uploads)
			set.Uploads = nil
		}
	}()
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(uploadDeadline))
	r.Body = http.MaxBytesReader(w, r.Body, s.Service.MaxPushSize+maxForm)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, set, errFormBad
	}
	form = url.Values{}
	var fieldBytes, stored int64
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, set, readFailure(err)
		}
		name := part.FormName()
		_, disp, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
		fileName, isFile := disp["filename"]
		if !isFile {
			v, err := io.ReadAll(io.LimitReader(part, maxForm-fieldBytes+1))
			if err != nil {
				return nil, set, readFailure(err)
			}
			if fieldBytes += int64(len(v)); fieldBytes > maxForm {
				return nil, set, errFormTooLarge
			}
			form.Add(name, string(v))
			continue
		}
		if name != "files" || fileName == "" {
			continue // an empty file input sends filename=""; NextPart skips the rest
		}
		set.Count++
		switch {
		case u == nil:
			return nil, set, errFilesSignIn
		case !s.filesAllowed(u):
			return nil, set, errFilesOff
		case set.Count > s.Service.Settings.MaxFileUploads:
			continue
		}
		body := &readErrReader{r: part}
		up, err := s.Service.StoreFile(ctx, service.SafeFileName(fileName),
			service.PartType(part.Header.Get("Content-Type"), fileName), body, stored)
		if err != nil {
			if body.err != nil { // the upload was cut off or over the body limit
				return nil, set, readFailure(body.err)
			}
			return nil, set, err
		}
		stored += up.Size
		set.Uploads = append(set.Uploads, up)
	}
	return form, set, nil
}

// readFailure maps an error reading the body to the form's errors.
func readFailure(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return errFormTooLarge
	}
	return errFormBad
}

// readErrReader remembers the error, other than io.EOF, that reading the
// request body gave, so that a truncated upload is told apart from a failure
// of the file store.
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
