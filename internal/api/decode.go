package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"hush/internal/push"
)

// createKeys are the push attributes that an unwrapped JSON body may carry
// at the top level (Rails' parameter wrapping, reference §1.2).
var createKeys = []string{"name", "kind", "expire_after_days", "expire_after_views", "expire_after_duration",
	"deletable_by_viewer", "retrieval_step", "payload", "note", "passphrase"}

// decodeCreate reads the create parameters from a JSON or form body, bounded
// by MaxBody. It returns the params and the number of non-empty files.
func (s *Server) decodeCreate(w http.ResponseWriter, r *http.Request) (push.Params, int, error) {
	r.Body = http.MaxBytesReader(w, r.Body, s.MaxBody)
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "multipart/form-data" {
		return decodeForm(r, s.MaxBody)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, 0, bodyError(err)
	}
	// A form body, unless it is JSON sent with curl's default form type.
	if ct == "application/x-www-form-urlencoded" && !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, 0, badRequest("The form body is malformed.")
		}
		return formParams(vals, nil)
	}
	if !utf8.Valid(body) {
		return nil, 0, badRequest("The request body is not valid UTF-8.")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return nil, 0, badRequest("The request body is not valid JSON.")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, 0, badRequest("The request body is not valid JSON.")
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return nil, 0, badRequest(msgMissingPush)
	}
	params, err := unwrap(obj)
	if err != nil {
		return nil, 0, err
	}
	return params, countFiles(params["files"]), nil
}

func unwrap(obj map[string]any) (push.Params, error) {
	if v, ok := obj["push"]; ok {
		m, isObj := v.(map[string]any)
		if !isObj || len(m) == 0 {
			return nil, badRequest(msgMissingPush)
		}
		return push.Params(m), nil
	}
	m := push.Params{}
	for _, k := range createKeys {
		if v, ok := obj[k]; ok {
			m[k] = v
		}
	}
	if len(m) == 0 {
		return nil, badRequest(msgMissingPush)
	}
	return m, nil
}

// countFiles counts the non-empty entries of a files value.
func countFiles(v any) int {
	switch x := v.(type) {
	case nil:
		return 0
	case []any:
		n := 0
		for _, f := range x {
			if f != nil && f != "" {
				n++
			}
		}
		return n
	case string:
		if x == "" {
			return 0
		}
	}
	return 1
}

// decodeForm reads a multipart body with Rails-style fields.
func decodeForm(r *http.Request, maxBody int64) (push.Params, int, error) {
	if err := r.ParseMultipartForm(maxBody); err != nil {
		return nil, 0, bodyError(err)
	}
	return formParams(r.MultipartForm.Value, r.MultipartForm.File)
}

// formParams maps push[payload], push[files][] … to create params.
func formParams(form url.Values, fileParts map[string][]*multipart.FileHeader) (push.Params, int, error) {
	params := push.Params{}
	for key, vals := range form {
		name, ok := strings.CutPrefix(key, "push[")
		if !ok || len(vals) == 0 {
			continue
		}
		name = strings.TrimSuffix(name, "]")
		if name == "files][" || name == "files" {
			params["files"] = toAny(vals)
			continue
		}
		if !utf8.ValidString(vals[0]) {
			return nil, 0, badRequest("The request body is not valid UTF-8.")
		}
		params[name] = vals[0]
	}
	files := 0
	for key, fhs := range fileParts {
		if key != "push[files][]" && key != "push[files]" {
			continue
		}
		if _, ok := params["files"]; !ok {
			params["files"] = []any{}
		}
		for _, fh := range fhs {
			if fh.Size > 0 {
				files++
			}
		}
	}
	files += countFiles(params["files"])
	if len(params) == 0 {
		return nil, 0, badRequest(msgMissingPush)
	}
	return params, files, nil
}

func toAny(vals []string) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}

func bodyError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &push.Error{Code: push.CodeTooLarge, Message: "The request body is too large."}
	}
	return badRequest("The request body could not be read.")
}
