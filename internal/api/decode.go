package api

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"hush/internal/httpx"
	"hush/internal/push"
	"hush/internal/service"
)

// createKeys are the push attributes that an unwrapped JSON body may carry
// at the top level (Rails' parameter wrapping, as Password Pusher reads it).
var createKeys = []string{"name", "kind", "expire_after_days", "expire_after_views", "expire_after_duration",
	"deletable_by_viewer", "retrieval_step", "payload", "note", "passphrase"}

// decodeCreate reads the create parameters under wrapper — "push" (v2), or
// the v1 wrappers "password", "file_push" and "url" — from a JSON,
// urlencoded or multipart body, and streams the attached files into up.
// JSON and urlencoded bodies are bounded by maxBody; multipart bodies by the
// attachment limits.
func (s *Server) decodeCreate(w http.ResponseWriter, r *http.Request, user *push.User, wrapper string, up *service.Uploads) (Params, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "multipart/form-data" {
		return s.decodeMultipart(w, r, user, wrapper, up)
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.maxBody)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, bodyError(err)
	}
	var params Params
	// A form body, unless it is JSON sent with curl's default form type.
	if ct == "application/x-www-form-urlencoded" && !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, badRequest("The form body is malformed.")
		}
		if params, err = formParams(vals, wrapper); err != nil {
			return nil, err
		}
	} else if params, err = decodeJSON(body, wrapper); err != nil {
		return nil, err
	}
	return params, s.jsonFiles(r, user, params, up)
}

func decodeJSON(body []byte, wrapper string) (Params, error) {
	if !utf8.Valid(body) {
		return nil, badRequest("The request body is not valid UTF-8.")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return nil, badRequest("The request body is not valid JSON.")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badRequest("The request body is not valid JSON.")
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return nil, missingParam(wrapper)
	}
	return unwrap(obj, wrapper)
}

// unwrap takes the params from under wrapper; v2 also takes an unwrapped body.
func unwrap(obj map[string]any, wrapper string) (Params, error) {
	if v, ok := obj[wrapper]; ok {
		m, isObj := v.(map[string]any)
		if !isObj || len(m) == 0 {
			return nil, missingParam(wrapper)
		}
		topLocale(m, obj)
		return Params(m), nil
	}
	if wrapper != "push" {
		return nil, missingParam(wrapper)
	}
	m := Params{}
	for _, k := range createKeys {
		if v, ok := obj[k]; ok {
			m[k] = v
		}
	}
	if len(m) == 0 {
		return nil, badRequest(msgMissingPush)
	}
	topLocale(m, obj)
	return m, nil
}

// topLocale takes push_locale from the top level of the body, where
// Password Pusher's clients send it, unless the push itself names one.
func topLocale(m, obj map[string]any) {
	if v, ok := obj["push_locale"]; ok {
		if _, has := m["push_locale"]; !has {
			m["push_locale"] = v
		}
	}
}

// fileEntries returns the non-empty entries of a files value.
func fileEntries(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		var out []any
		for _, f := range x {
			if f != nil && f != "" {
				out = append(out, f)
			}
		}
		return out
	case string:
		if x == "" {
			return nil
		}
	}
	return []any{v}
}

var errBadFileEntry = &push.Error{Code: push.CodeInvalid, Fields: map[string][]string{
	"files": {"Each file must be an object with filename, content_type and content_base64, or a multipart upload."}}}

// jsonFiles stores the files of a JSON body,
// [{"filename","content_type","content_base64"}], into up: only for a caller
// who may attach them and within the cap — otherwise they are counted, not
// stored, and the create fails with the right message without writing them.
func (s *Server) jsonFiles(r *http.Request, user *push.User, params Params, up *service.Uploads) error {
	entries := fileEntries(params["files"])
	if !s.svc.MayAttach(user) || len(entries) > s.svc.Settings().MaxFileUploads {
		for range entries {
			up.Skip()
		}
		return nil
	}
	for _, e := range entries {
		obj, ok := e.(map[string]any)
		name, _ := obj["filename"].(string)
		ctype, _ := obj["content_type"].(string)
		b64, _ := obj["content_base64"].(string)
		if !ok || name == "" {
			return errBadFileEntry
		}
		data, err := decodeBase64(b64)
		if err != nil {
			return &push.Error{Code: push.CodeInvalid, Fields: map[string][]string{"files": {"content_base64 is not valid base64."}}}
		}
		if err := up.Add(r.Context(), name, ctype, bytes.NewReader(data)); err != nil {
			return err
		}
	}
	return nil
}

func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimRight(strings.Join(strings.Fields(s), ""), "=")
	if b, err := base64.RawStdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawURLEncoding.DecodeString(s)
}

// formParams maps push[payload], push[files][] … (or the same under another
// wrapper) to create params. A field sent more than once takes its last
// value (httpx.Last), as Rack reads a form: Rails' check_box sends a hidden
// "0" before the box's "1".
func formParams(form url.Values, wrapper string) (Params, error) {
	params := Params{}
	if v := httpx.Last(form, "push_locale"); v != "" {
		params["push_locale"] = v
	}
	for key, vals := range form {
		name, ok := strings.CutPrefix(key, wrapper+"[")
		if !ok || len(vals) == 0 {
			continue
		}
		name = strings.TrimSuffix(name, "]")
		if name == "files][" || name == "files" {
			params["files"] = toAny(vals)
			continue
		}
		v := httpx.Last(form, key)
		if !utf8.ValidString(v) {
			return nil, badRequest("The request body is not valid UTF-8.")
		}
		params[name] = v
	}
	if len(params) == 0 {
		return nil, missingParam(wrapper)
	}
	return params, nil
}

// missingParam is Password Pusher's 400 for an absent or empty wrapper.
func missingParam(wrapper string) error {
	return badRequest("param is missing or the value is empty or invalid: " + wrapper)
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
