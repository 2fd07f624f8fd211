package api

import (
	"encoding/json"
	"strconv"
	"strings"

	"hush/internal/push"
)

// Params are create parameters as decoded from a request: values are what
// encoding/json produces with UseNumber (string, json.Number, bool, nil,
// maps, slices), or plain strings from a form. An absent key is not in the
// map.
type Params map[string]any

// needsAuth reports whether creating with these params requires a
// signed-in caller: a files key is present (even empty) or kind is file.
func needsAuth(p Params) bool {
	if _, ok := p["files"]; ok {
		return true
	}
	k, _ := p["kind"].(string)
	return k == string(push.KindFile)
}

// createRequest reads params into a typed request the way Password
// Pusher's clients expect them read, one rule per field: strings must be
// strings (null is absent); integers may be JSON numbers or decimal strings
// (null and "" are absent); flags are true when their text is on, yes,
// checked, true or 1. What cannot be read is collected in the request's
// Errors. An unknown kind refuses the whole request with that error alone
// (docs/decisions.md, D2). fileCount is the number of non-empty files.
func createRequest(p Params, fileCount int) (*push.CreateRequest, error) {
	errs := push.FieldErrors{}
	r := &push.CreateRequest{FileCount: fileCount, Errors: errs}
	_, r.WithFiles = p["files"]
	if kind, given := stringParam(p, "kind", errs); given && kind != "" {
		k, ok := push.ParseKind(kind)
		if !ok {
			return nil, (push.FieldErrors{"kind": {"is not included in the list"}}).Err()
		}
		r.Kind = &k
	}
	r.Payload, _ = stringParam(p, "payload", errs)
	r.Note, _ = stringParam(p, "note", errs)
	r.Name, _ = stringParam(p, "name", errs)
	r.Passphrase, _ = stringParam(p, "passphrase", errs)
	for _, k := range []string{"notify_emails_to", "notify_emails_to_locale"} {
		if _, ok := p[k]; ok {
			r.Notify = append(r.Notify, k)
		}
	}
	r.ExpireAfterDays = intParam(p, "expire_after_days", errs)
	r.ExpireAfterDuration = intParam(p, "expire_after_duration", errs)
	r.ExpireAfterViews = intParam(p, "expire_after_views", errs)
	r.DeletableByViewer = boolParam(p, "deletable_by_viewer")
	r.RetrievalStep = boolParam(p, "retrieval_step")
	return r, nil
}

// resolve reads params and validates them against the settings.
func resolve(p Params, fileCount int, s *push.Settings) (*push.Draft, error) {
	r, err := createRequest(p, fileCount)
	if err != nil {
		return nil, err
	}
	return push.Validate(r, s)
}

// stringParam reads a string field. null counts as "" (absent); any other
// non-string type is a validation error.
func stringParam(p Params, key string, errs push.FieldErrors) (string, bool) {
	v, ok := p[key]
	if !ok || v == nil {
		return "", false
	}
	s, isStr := v.(string)
	if !isStr {
		errs.Add(key, "must be a string")
		return "", false
	}
	return s, true
}

// intParam reads an integer field: absent, null and "" mean "use the
// default" (nil); integers and decimal integer strings are accepted;
// anything else is a validation error.
func intParam(p Params, key string, errs push.FieldErrors) *int {
	v, ok := p[key]
	if !ok || v == nil {
		return nil
	}
	var s string
	switch x := v.(type) {
	case string:
		s = strings.TrimSpace(x)
		if s == "" {
			return nil
		}
	case json.Number:
		s = x.String()
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		errs.Add(key, "must be an integer")
		return nil
	}
	n, err := strconv.Atoi(s)
	if ne, isNum := err.(*strconv.NumError); isNum && ne.Err == strconv.ErrRange {
		return &n // ±MaxInt: the range check names the allowed range
	}
	if err != nil {
		errs.Add(key, "must be an integer")
		return nil
	}
	return &n
}

// boolParam applies Password Pusher's rule: a present value is true iff its
// lower-cased string form is on, yes, checked, true or 1; absent → nil.
func boolParam(p Params, key string) *bool {
	v, ok := p[key]
	if !ok {
		return nil
	}
	var s string
	switch x := v.(type) {
	case bool:
		s = strconv.FormatBool(x)
	case string:
		s = x
	case json.Number:
		s = x.String()
	}
	b := false
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on", "yes", "checked", "true", "1":
		b = true
	}
	return &b
}
