package push

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Size limits of the reference (characters, not bytes).
const (
	MaxTextPayload = 1048576
	MaxQRPayload   = 1024
)

// MaxQRBytes is the most UTF-8 bytes a QR code holds at the error
// correction level Hush draws with (version 40, level M, byte mode): a QR
// payload within MaxQRPayload characters but beyond this could be stored
// but never drawn, so it is refused at creation.
const MaxQRBytes = 2331

// Params are the create parameters as decoded from a request: values are what
// encoding/json produces with UseNumber (string, json.Number, bool, nil, maps,
// slices) or plain strings from a form. An absent key is not in the map.
type Params map[string]any

// Draft is a validated push, ready to be sealed and stored.
type Draft struct {
	Kind              Kind
	Payload           string
	Note              string
	Name              string
	Passphrase        string
	ExpireAfterDays   int
	ExpireAfterViews  int
	DeletableByViewer *bool
	RetrievalStep     bool
	FileCount         int
}

// durationDays maps the official CLI's expire_after_duration to days (D4).
var durationDays = map[int]int{6: 1, 7: 2, 8: 3, 9: 4, 10: 5, 11: 6, 12: 7, 13: 14, 14: 21, 15: 30, 16: 60, 17: 90}

// NeedsAuth reports whether creating with these params requires an
// authenticated caller: a files key is present (even empty) or kind is file.
func NeedsAuth(p Params) bool {
	if _, ok := p["files"]; ok {
		return true
	}
	k, _ := p["kind"].(string)
	return k == string(KindFile)
}

// Resolve applies the instance settings to the params and validates them
// (reference §1.2 steps 4–7 with decisions D2–D4). fileCount is the number of
// non-empty attached files.
func Resolve(p Params, fileCount int, s *Settings) (*Draft, error) {
	errs := FieldErrors{}
	d := &Draft{FileCount: fileCount}

	kindStr, kindGiven := stringParam(p, "kind", errs)
	switch {
	case kindGiven && kindStr != "":
		k, ok := ParseKind(kindStr)
		if !ok {
			errs.Add("kind", "is not included in the list")
			return nil, errs.Err()
		}
		d.Kind = k
	case fileCount > 0:
		d.Kind = KindFile
	default:
		d.Kind = KindText
	}
	ks := s.ForKind(d.Kind)

	if !s.KindEnabled(d.Kind) {
		errs.Add("kind", disabledMessage(d.Kind))
	}
	d.Payload, _ = stringParam(p, "payload", errs)
	d.Note, _ = stringParam(p, "note", errs)
	d.Name, _ = stringParam(p, "name", errs)
	d.Passphrase, _ = stringParam(p, "passphrase", errs)
	if len(errs["payload"]) == 0 {
		validatePayload(d, errs)
	}

	if fileCount > s.MaxFileUploads {
		errs.Add("files", fmt.Sprintf("You can only attach up to %d files per push.", s.MaxFileUploads))
	}
	for _, k := range []string{"notify_emails_to", "notify_emails_to_locale"} {
		if _, ok := p[k]; ok {
			msg := "are not available"
			if k == "notify_emails_to_locale" {
				msg = "is not available"
			}
			errs.Add(k, msg)
			if len(errs["base"]) == 0 {
				errs.Add("base", "Notify by email feature is not enabled")
			}
		}
	}

	d.ExpireAfterDays = ks.ExpireAfterDaysDefault
	if days, ok := intParam(p, "expire_after_days", errs); ok {
		d.ExpireAfterDays = days
		checkRange(errs, "expire_after_days", days, ks.ExpireAfterDaysMin, ks.ExpireAfterDaysMax)
	} else if dur, ok := intParam(p, "expire_after_duration", errs); ok && len(errs["expire_after_days"]) == 0 {
		if days, known := durationDays[dur]; known {
			d.ExpireAfterDays = days
			checkRange(errs, "expire_after_duration", days, ks.ExpireAfterDaysMin, ks.ExpireAfterDaysMax)
		} else {
			errs.Add("expire_after_duration", "must be an integer from 6 to 17")
		}
	}
	d.ExpireAfterViews = ks.ExpireAfterViewsDefault
	if views, ok := intParam(p, "expire_after_views", errs); ok {
		d.ExpireAfterViews = views
		checkRange(errs, "expire_after_views", views, ks.ExpireAfterViewsMin, ks.ExpireAfterViewsMax)
	}

	if d.Kind != KindURL {
		v := ks.EnableDeletable && boolParam(p, "deletable_by_viewer", ks.DeletableDefault)
		d.DeletableByViewer = &v
	}
	d.RetrievalStep = ks.EnableRetrievalStep && boolParam(p, "retrieval_step", ks.RetrievalStepDefault)

	if err := errs.Err(); err != nil {
		return nil, err
	}
	return d, nil
}

func disabledMessage(k Kind) string {
	switch k {
	case KindFile:
		return "File pushes are disabled."
	case KindURL:
		return "URL pushes are disabled."
	default:
		return "QR code pushes are disabled."
	}
}

func validatePayload(d *Draft, errs FieldErrors) {
	blank := strings.TrimSpace(d.Payload) == ""
	n := utf8.RuneCountInString(d.Payload)
	switch d.Kind {
	case KindText:
		if blank {
			errs.Add("payload", "Payload is required.")
		} else if n > MaxTextPayload {
			errs.Add("payload", fmt.Sprintf("The payload is too large.  You can only push up to %d bytes.", MaxTextPayload))
		}
	case KindQR:
		if blank {
			errs.Add("payload", "Payload is required.")
		} else if n > MaxQRPayload {
			errs.Add("payload", fmt.Sprintf("The QR code payload is too large.  You can only push up to %d bytes.", MaxQRPayload))
		} else if len(d.Payload) > MaxQRBytes {
			errs.Add("payload", fmt.Sprintf("The QR code payload is too large to be drawn: at most %d bytes of UTF-8.", MaxQRBytes))
		}
	case KindURL:
		if blank {
			errs.Add("payload", "Payload is required.")
		} else if !validURL(d.Payload) {
			errs.Add("payload", "must be a valid HTTP or HTTPS URL.")
		}
	case KindFile:
		if n > MaxTextPayload {
			errs.Add("payload", fmt.Sprintf("The payload is too large.  You can only push up to %d bytes.", MaxTextPayload))
		}
	}
}

func validURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme == "http" || scheme == "https"
}

func checkRange(errs FieldErrors, field string, v, lo, hi int) {
	if v < lo || v > hi {
		errs.Add(field, fmt.Sprintf("must be between %d and %d", lo, hi))
	}
}

// stringParam reads a string field. null counts as "" (absent); any other
// non-string type is a validation error.
func stringParam(p Params, key string, errs FieldErrors) (string, bool) {
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

// intParam reads an integer field: absent, null and "" mean "use the default"
// (ok false); integers and decimal integer strings are accepted; anything else
// is a validation error.
func intParam(p Params, key string, errs FieldErrors) (int, bool) {
	v, ok := p[key]
	if !ok || v == nil {
		return 0, false
	}
	var s string
	switch x := v.(type) {
	case string:
		s = strings.TrimSpace(x)
		if s == "" {
			return 0, false
		}
	case json.Number:
		s = x.String()
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		errs.Add(key, "must be an integer")
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if ne, isNum := err.(*strconv.NumError); isNum && ne.Err == strconv.ErrRange {
		return n, true // ±MaxInt: the range check names the allowed range
	}
	if err != nil {
		errs.Add(key, "must be an integer")
		return 0, false
	}
	return n, true
}

// boolParam applies the reference's rule: a present value is true iff its
// lower-cased string form is on, yes, checked, true or 1; absent → def.
func boolParam(p Params, key string, def bool) bool {
	v, ok := p[key]
	if !ok {
		return def
	}
	var s string
	switch x := v.(type) {
	case bool:
		s = strconv.FormatBool(x)
	case string:
		s = x
	case json.Number:
		s = x.String()
	default:
		return false
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on", "yes", "checked", "true", "1":
		return true
	}
	return false
}
