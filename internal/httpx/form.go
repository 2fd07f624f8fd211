package httpx

import (
	"bufio"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"path"
	"sync"

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
	// MaxFieldBytes bounds everything but the contents of files in all:
	// field names and values, part headers, boundaries, and parts that
	// are skipped.
	MaxFieldBytes int64
	// Allow is asked before each file (count is its 1-based number): an
	// error refuses the request; store false counts the file without
	// storing it, so the create fails with the usual message.
	Allow func(count int) (store bool, err error)
}

// FileSink takes the files of a form (service.Uploads): Add stores one,
// Skip counts one that is not stored.
type FileSink interface {
	Add(ctx context.Context, name, contentType string, r io.Reader) error
	Skip()
}

// formReaders read multipart bodies from the connection a quarter of a
// megabyte at a time: the multipart reader asks for 4 KiB at a time, and a
// system call per 4 KiB made a 1 GiB upload measurably slower
// (docs/performance.md, "Large files").
var formReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 256<<10) }}

// maxFormParts bounds the parts of one form: a create has a dozen fields
// and at most a few dozen files.
const maxFormParts = 256

// errFormBudget marks a form whose non-file bytes exceed FormRules.MaxFieldBytes.
var errFormBudget = errors.New("form fields too large")

// formBudget counts the bytes of a form body that are not file contents
// (StreamForm sets files while it streams a file's contents) and fails the
// read once they exceed left. It sits under the multipart reader, so part
// headers are counted as they are read, not after a part was buffered; the
// reader's look-ahead makes the bound loose by a buffer (4 KiB) per file.
type formBudget struct {
	r     io.Reader
	left  int64
	files bool
}

func (b *formBudget) Read(p []byte) (int, error) {
	if !b.files && b.left < 0 {
		return 0, errFormBudget
	}
	n, err := b.r.Read(p)
	if !b.files {
		if b.left -= int64(n); b.left < 0 {
			return n, errFormBudget
		}
	}
	return n, err
}

// StreamForm reads the multipart form in body (with boundary) part by part.
// Plain fields are returned; everything but file contents is bounded by
// MaxFieldBytes, and the parts by maxFormParts. File parts under a file
// field go to files as they arrive, never whole in memory. A file part
// without a file name is a plain (empty) field, as browsers send an empty
// file input. sawFiles reports whether a file field was present at all.
// The caller bounds the body (http.MaxBytesReader) and its read deadline,
// and owns what files stored.
func StreamForm(ctx context.Context, body io.Reader, boundary string, rules FormRules, files FileSink) (form url.Values, sawFiles bool, err error) {
	form = url.Values{}
	br := formReaders.Get().(*bufio.Reader)
	br.Reset(body)
	defer func() {
		br.Reset(nil)
		formReaders.Put(br)
	}()
	budget := &formBudget{r: br, left: rules.MaxFieldBytes}
	mr := multipart.NewReader(budget, boundary)
	count := 0
	for parts := 1; ; parts++ {
		if parts > maxFormParts {
			return nil, sawFiles, ErrFormTooLarge
		}
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, sawFiles, formReadError(err)
		}
		name := part.FormName()
		isFiles := rules.IsFileField(name)
		sawFiles = sawFiles || isFiles
		_, disp, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
		fileName := disp["filename"]
		if fileName == "" {
			v, err := io.ReadAll(part)
			if err != nil {
				return nil, sawFiles, formReadError(err)
			}
			form.Add(name, string(v))
			continue
		}
		if !isFiles {
			continue // NextPart skips the rest of an unknown part
		}
		count++
		store, err := rules.Allow(count)
		if err != nil {
			return nil, sawFiles, err
		}
		budget.files = true
		if !store {
			// Counted, not kept: read past it as file contents.
			files.Skip()
			_, err := io.Copy(io.Discard, part)
			budget.files = false
			if err != nil {
				return nil, sawFiles, formReadError(err)
			}
			continue
		}
		body := &readErrReader{r: part}
		err = files.Add(ctx, fileName, PartType(part.Header.Get("Content-Type"), fileName), body)
		budget.files = false
		if err != nil {
			if body.err != nil { // cut off, malformed or over the body limit: the client's doing
				return nil, sawFiles, formReadError(body.err)
			}
			return nil, sawFiles, err
		}
	}
	return form, sawFiles, nil
}

// formReadError maps an error reading the request body.
func formReadError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) || errors.Is(err, errFormBudget) {
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

// PartType is the content type of an uploaded part: as sent, else guessed
// from the file name (the official CLI sends none).
func PartType(sent, fileName string) string {
	if t, _, err := mime.ParseMediaType(sent); err == nil && sent != "" {
		return t
	}
	if t := mime.TypeByExtension(path.Ext(fileName)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// ValidText reports whether every name and value of form is text a text
// column stores (push.StorableText): valid UTF-8 without a NUL character.
// A form's fields are text: one stored with invalid bytes would be answered
// back with replacement characters, not as it was sent, and PostgreSQL
// refuses both (docs/decisions.md, D61). A browser sends neither from
// Hush's pages.
func ValidText(form url.Values) bool {
	for k, vals := range form {
		if !push.StorableText(k) {
			return false
		}
		for _, v := range vals {
			if !push.StorableText(v) {
				return false
			}
		}
	}
	return true
}
