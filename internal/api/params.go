package api

import (
	"encoding/json"
	"math"
	"regexp"
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
// Pusher's clients expect them read, one rule per field: text fields take
// strings, and numbers and booleans as their JSON text (null is absent);
// numbers may be JSON numbers or decimal strings, a fraction cut off (null
// and "" are absent); the duration code is ignored unless it is one;
// flags are true when their text is on, yes, checked, true or 1; blank
// notification fields are absent (docs/decisions.md, D16). What cannot be read is collected in the
// request's Errors. An unknown kind refuses the whole request with that
// error alone (docs/decisions.md, D2). fileCount is the number of
// non-empty files.
func createRequest(p Params, fileCount int) (*push.CreateRequest, error) {
	errs := push.FieldErrors{}
	r := &push.CreateRequest{FileCount: fileCount, Errors: errs}
	_, r.WithFiles = p["files"]
	if kind, given := kindParam(p, errs); given && kind != "" {
		k, ok := push.ParseKind(kind)
		if !ok {
			return nil, (push.FieldErrors{"kind": {"is not included in the list"}}).Err()
		}
		r.Kind = &k
	}
	r.Payload = textParam(p, "payload", errs)
	r.Note = textParam(p, "note", errs)
	r.Name = textParam(p, "name", errs)
	r.Passphrase = textParam(p, "passphrase", errs)
	if !blank(p["notify_emails_to"]) {
		r.NotifyEmailsTo = strings.TrimSpace(textParam(p, "notify_emails_to", errs))
	}
	if !blank(p["notify_emails_to_locale"]) {
		r.NotifyEmailsToLocale = strings.TrimSpace(textParam(p, "notify_emails_to_locale", errs))
	}
	if !blank(p["push_locale"]) {
		r.PushLocale = strings.TrimSpace(textParam(p, "push_locale", errs))
	}
	r.ReceiptOnView = boolParam(p, push.ReceiptView.Field())
	r.ReceiptOnFailedPassphrase = boolParam(p, push.ReceiptFailedPassphrase.Field())
	r.ReceiptOnExpire = boolParam(p, push.ReceiptExpire.Field())
	r.ExpireAfterDays = intParam(p, "expire_after_days", errs)
	r.ExpireAfterDuration = durationParam(p)
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

// kindParam reads kind: a string; null counts as absent; any other type
// is a validation error.
func kindParam(p Params, errs push.FieldErrors) (string, bool) {
	v, ok := p["kind"]
	if !ok || v == nil {
		return "", false
	}
	s, isStr := v.(string)
	if !isStr {
		errs.Add("kind", "must be a string")
		return "", false
	}
	return s, true
}

// textParam reads a text field: a string, or a number or boolean as its
// JSON text (Password Pusher's Rails casts them to strings too); null is
// absent (""). An object or array is a validation error
// (docs/decisions.md, D3).
func textParam(p Params, key string, errs push.FieldErrors) string {
	switch x := p[key].(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	errs.Add(key, "must be a string")
	return ""
}

// blank reports whether a value counts as not given, as Rails' blank?
// does: absent, null, false, a string of spaces only, an empty array or
// object.
func blank(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case bool:
		return !x
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// decimalNumber is the syntax of a number in a string field: what JSON
// allows, plus a leading "+", a leading or trailing "." and leading zeros.
var decimalNumber = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// numberText is the text of a number a field holds: a JSON number, or a
// string in decimal (trimmed). ok is false for anything else; blank is true
// for null and a blank string, which mean "use the default".
func numberText(v any) (text string, isBlank, ok bool) {
	switch x := v.(type) {
	case nil:
		return "", true, false
	case json.Number:
		return x.String(), false, true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), false, true
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return "", true, false
		}
		return s, false, decimalNumber.MatchString(s)
	}
	return "", false, false
}

// wholePart is the integer part of a decimal number (its fraction cut off,
// as Rails casts "3.9" to 3), saturated far beyond any limit Hush accepts.
func wholePart(text string) int {
	const bound = math.MaxInt32
	if n, err := strconv.Atoi(text); err == nil {
		return min(max(n, -bound), bound)
	}
	f, _ := strconv.ParseFloat(text, 64) // syntax checked: ±Inf or 0 on overflow
	return int(min(max(math.Trunc(f), -bound), bound))
}

// intParam reads a number field: absent, null and "" mean "use the
// default" (nil); a JSON number or a decimal string is its integer part, a
// number of any size (the range is applied later, docs/decisions.md, D3);
// anything else is a validation error.
func intParam(p Params, key string, errs push.FieldErrors) *int {
	text, isBlank, ok := numberText(p[key])
	if isBlank {
		return nil
	}
	if !ok {
		errs.Add(key, "is not a number")
		return nil
	}
	n := wholePart(text)
	return &n
}

// durationParam reads expire_after_duration: a code (0..17, as a number or
// a decimal string) or nil. Anything else is ignored, as Password Pusher
// ignores codes it does not know (docs/decisions.md, D4).
func durationParam(p Params) *int {
	text, _, ok := numberText(p["expire_after_duration"])
	if !ok {
		return nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || f != math.Trunc(f) || f < 0 || f > 17 {
		return nil
	}
	n := int(f)
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
