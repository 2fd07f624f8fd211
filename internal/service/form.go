package service

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"

	"hush/internal/push"
)

// Failures of reading a multipart form.
var (
	ErrFormMalformed = &push.Error{Code: push.CodeBadRequest, Message: "The request body could not be read."}
	ErrFormTooLarge  = &push.Error{Code: push.CodeTooLarge, Message: "The request body is too large."}
)

// FormRules say how StreamForm treats a multipart create form.
type FormRules struct {
	// IsFileField reports whether a part name carries files.
	IsFileField func(name string) bool
	// MaxFieldBytes bounds the plain fields in all.
	MaxFieldBytes int64
	// Allow is asked before each file is stored (count is its 1-based
	// number): an error refuses the request; store false counts the file
	// without storing it, so the create fails with the usual message.
	Allow func(count int) (store bool, err error)
}

// StreamForm reads a multipart form part by part. Plain fields are returned
// (bounded by MaxFieldBytes); file parts under a file field go straight into
// the file store, sealed, one chunk at a time, never whole in memory. A file
// part without a file name is a plain (empty) field, as browsers send an
// empty file input. sawFiles reports whether a file field was present at
// all. On any error the stored uploads are discarded. The caller bounds the
// body (http.MaxBytesReader) and its read deadline.
func (s *Service) StreamForm(ctx context.Context, mr *multipart.Reader, rules FormRules) (form url.Values, set FileSet, sawFiles bool, err error) {
	defer func() {
		if err != nil {
			s.Discard(ctx, set.Uploads)
			set.Uploads = nil
		}
	}()
	form = url.Values{}
	var fieldBytes, stored int64
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, set, sawFiles, formReadError(err)
		}
		name := part.FormName()
		isFiles := rules.IsFileField(name)
		sawFiles = sawFiles || isFiles
		_, disp, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
		fileName := disp["filename"]
		if fileName == "" {
			v, err := io.ReadAll(io.LimitReader(part, rules.MaxFieldBytes-fieldBytes+1))
			if err != nil {
				return nil, set, sawFiles, formReadError(err)
			}
			if fieldBytes += int64(len(v)); fieldBytes > rules.MaxFieldBytes {
				return nil, set, sawFiles, ErrFormTooLarge
			}
			form.Add(name, string(v))
			continue
		}
		if !isFiles {
			continue // NextPart skips the rest of an unknown part
		}
		set.Count++
		store, err := rules.Allow(set.Count)
		if err != nil {
			return nil, set, sawFiles, err
		}
		if !store {
			continue
		}
		body := &readErrReader{r: part}
		up, err := s.StoreFile(ctx, SafeFileName(fileName), PartType(part.Header.Get("Content-Type"), fileName), body, stored)
		if err != nil {
			if body.err != nil { // cut off, malformed or over the body limit: the client's doing
				return nil, set, sawFiles, formReadError(body.err)
			}
			return nil, set, sawFiles, err
		}
		stored += up.Size
		set.Uploads = append(set.Uploads, up)
	}
	return form, set, sawFiles, nil
}

// formReadError maps an error reading the request body.
func formReadError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return ErrFormTooLarge
	}
	return ErrFormMalformed
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
