package push

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Size limits of Password Pusher (characters, not bytes).
const (
	MaxTextPayload = 1048576
	MaxQRPayload   = 1024
)

// MaxPayloadBytes is the most UTF-8 bytes of a valid text payload:
// MaxTextPayload characters of 4 bytes each. A multipart body carries
// values as they are, so this is also their largest encoding there.
const MaxPayloadBytes = 4 * MaxTextPayload

// MaxMultipartFields bounds what is not a file's contents in a multipart
// create: the largest payload as it is, and 1 MiB for the other fields.
const MaxMultipartFields = MaxPayloadBytes + 1<<20

// MaxEncodedPayload is the most bytes a valid text payload can take in a
// request body: MaxTextPayload characters outside the Basic Multilingual
// Plane, each 12 bytes when escaped in JSON as a surrogate pair
// (\ud83d\udd11) or percent-encoded in a form (%F0%9F%94%91). Body limits
// are at least this, so that no valid payload is refused for its encoding.
const MaxEncodedPayload = 12 * MaxTextPayload

// MaxQRBytes is the most UTF-8 bytes a QR code holds at the error
// correction level Hush draws with (version 40, level M, byte mode): a QR
// payload within MaxQRPayload characters but beyond this could be stored
// but never drawn, so it is refused at creation (docs/decisions.md, D59).
const MaxQRBytes = 2331

// Draft is a validated push, ready to be sealed and stored.
type Draft struct {
	Kind              Kind
	Payload           string
	Note              string
	Name              string
	Passphrase        string
	ExpireAfterDays   int
	ExpireAfter       time.Duration // a sub-day time limit; 0: ExpireAfterDays days
	ExpireAfterViews  int
	DeletableByViewer *bool
	RetrievalStep     bool
	FileCount         int
	NotifyTo          []string // recipients of the secret link, by email
	NotifyLocale      string
	Locale            string // push_locale, as a shipped language writes it
}

// CreateRequest is a create as its sender asked for it, in typed values: a
// nil pointer is a field the sender left out (the instance default then
// applies). The HTTP side fills it — leniently from the API's JSON, form and
// multipart bodies, directly from the web form — and Validate applies the
// rules.
type CreateRequest struct {
	Kind                *Kind // nil: text, or file when the request names files
	Payload             string
	Note                string
	Name                string
	Passphrase          string
	ExpireAfterDays     *int
	ExpireAfterViews    *int
	ExpireAfterDuration *int  // the official clients' duration code (docs/decisions.md, D4); ExpireAfterDays wins
	DeletableByViewer   *bool // ignored for URL pushes
	RetrievalStep       *bool
	// WithFiles reports that the sender named files at all (a files key,
	// even empty): that needs a signed-in caller.
	WithFiles bool
	// FileCount is the number of non-empty files attached.
	FileCount int
	// NotifyEmailsTo and NotifyEmailsToLocale are the e-mail notification
	// fields as sent; "" when blank (what Rails calls blank is absent:
	// docs/decisions.md, D16).
	NotifyEmailsTo       string
	NotifyEmailsToLocale string
	// PushLocale is push_locale: the language of the recipient's pages and
	// emails; "" leaves it to the recipient.
	PushLocale string
	// ReceiptOnView, ReceiptOnFailedPassphrase and ReceiptOnExpire ask for
	// the owner's read receipts; nil takes the owner's default.
	ReceiptOnView             *bool
	ReceiptOnFailedPassphrase *bool
	ReceiptOnExpire           *bool
	// Errors are what reading the request found wrong; the rules of a field
	// named here are not applied again.
	Errors FieldErrors
}

// NeedsAuth reports whether the request may only come from a signed-in
// caller: it names files, or its kind is file.
func (r *CreateRequest) NeedsAuth() bool {
	return r.WithFiles || (r.Kind != nil && *r.Kind == KindFile)
}

// SubDayDuration is one of the expire_after_duration codes under a day
// that Password Pusher's clients send (docs/decisions.md, D4).
type SubDayDuration struct {
	Code  int
	Limit time.Duration
	Label string
}

// SubDayDurations are the codes 0..5, shortest first.
var SubDayDurations = []SubDayDuration{
	{0, 15 * time.Minute, "15 minutes"},
	{1, 30 * time.Minute, "30 minutes"},
	{2, 45 * time.Minute, "45 minutes"},
	{3, time.Hour, "1 hour"},
	{4, 6 * time.Hour, "6 hours"},
	{5, 12 * time.Hour, "12 hours"},
}

// durationDays maps the duration codes 6..17 to days (docs/decisions.md, D4).
var durationDays = map[int]int{6: 1, 7: 2, 8: 3, 9: 4, 10: 5, 11: 6, 12: 7, 13: 14, 14: 21, 15: 30, 16: 60, 17: 90}

// subDayLimit is the time limit of a sub-day duration code.
func subDayLimit(code int) (time.Duration, bool) {
	if code < 0 || code >= len(SubDayDurations) {
		return 0, false
	}
	return SubDayDurations[code].Limit, true
}

// Validate applies the instance settings to a create request: the kind,
// the payload's rules, the file count, the limits of days and views —
// brought into the kind's range (docs/decisions.md, D3 and D4) — and the
// defaults of the flags. Every error is reported at once, with those found
// reading the request.
func Validate(r *CreateRequest, s *Settings) (*Draft, error) {
	errs := FieldErrors{}
	for f, msgs := range r.Errors {
		errs[f] = append(errs[f], msgs...)
	}
	d := &Draft{Kind: KindText, Payload: r.Payload, Note: r.Note, Name: r.Name, Passphrase: r.Passphrase, FileCount: r.FileCount}
	switch {
	case r.Kind != nil:
		d.Kind = *r.Kind
	case r.WithFiles || r.FileCount > 0:
		// A files key, even empty, makes a file push (the spec's create
		// rule 1, Password Pusher's v1).
		d.Kind = KindFile
	}
	ks := s.ForKind(d.Kind)
	if !s.KindEnabled(d.Kind) {
		errs.Add("kind", disabledMessage(d.Kind))
	}
	if len(errs["payload"]) == 0 {
		validatePayload(d, errs)
	}
	if strings.IndexByte(r.Name, 0) >= 0 {
		// The name is stored as text (docs/decisions.md, D61).
		errs.Add("name", "must not contain a NUL character")
	}
	if r.FileCount > s.MaxFileUploads {
		errs.Add("files", fmt.Sprintf("You can only attach up to %d files per push.", s.MaxFileUploads))
	}
	d.NotifyTo, d.NotifyLocale = validateNotify(r, s, errs)
	d.Locale = validateLocale(r.PushLocale, s, errs)
	validateReceipts(r, s, errs)
	d.ExpireAfterDays, d.ExpireAfter = expiry(r, s, d.Kind)
	d.ExpireAfterViews = ks.ExpireAfterViewsDefault
	if r.ExpireAfterViews != nil {
		d.ExpireAfterViews = clamp(*r.ExpireAfterViews, ks.ExpireAfterViewsMin, ks.ExpireAfterViewsMax)
	}
	if d.Kind != KindURL {
		v := ks.EnableDeletable && orDefault(r.DeletableByViewer, ks.DeletableDefault)
		d.DeletableByViewer = &v
	}
	d.RetrievalStep = ks.EnableRetrievalStep && orDefault(r.RetrievalStep, ks.RetrievalStepDefault)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return d, nil
}

// expiry is the time limit a request asks for, as applied: its
// expire_after_days, else its duration code, else the kind's default. Days
// outside the kind's range are brought into it; a sub-day duration is one
// day in expire_after_days with its exact limit, where the instance offers
// it for the kind, and the kind's shortest day limit where not; an unknown
// code is ignored (docs/decisions.md, D3 and D4).
func expiry(r *CreateRequest, s *Settings, k Kind) (days int, exact time.Duration) {
	ks := s.ForKind(k)
	switch {
	case r.ExpireAfterDays != nil:
		return clamp(*r.ExpireAfterDays, ks.ExpireAfterDaysMin, ks.ExpireAfterDaysMax), 0
	case r.ExpireAfterDuration == nil:
	case durationDays[*r.ExpireAfterDuration] > 0:
		return clamp(durationDays[*r.ExpireAfterDuration], ks.ExpireAfterDaysMin, ks.ExpireAfterDaysMax), 0
	default:
		if limit, ok := subDayLimit(*r.ExpireAfterDuration); ok {
			if s.SubDayOffered(k) {
				return 1, limit
			}
			return ks.ExpireAfterDaysMin, 0
		}
	}
	return ks.ExpireAfterDaysDefault, 0
}

// clamp brings v into lo..hi.
func clamp(v, lo, hi int) int { return min(max(v, lo), hi) }

func orDefault(v *bool, def bool) bool {
	if v == nil {
		return def
	}
	return *v
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

// validURL reports whether s is a URL push's payload: its scheme (what
// comes before the first colon) is http or https, in any case, and it has
// no control character or white space anywhere, so that the redirect to it
// (a Location header) holds exactly what was sent. The rest is not parsed,
// as Password Pusher checks only the scheme: a lone % is a URL browsers
// take (docs/decisions.md, D60).
func validURL(s string) bool {
	scheme, _, ok := strings.Cut(s, ":")
	if !ok || !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// validateLocale checks push_locale against the instance's languages and
// returns it as the instance writes it (pt-br is pt-BR); "" when absent.
// An unknown one is refused, and the refusal names the languages there
// are (docs/decisions.md, D53).
func validateLocale(l string, s *Settings, errs FieldErrors) string {
	if l == "" {
		return ""
	}
	for _, c := range s.Locales {
		if strings.EqualFold(c, l) {
			return c
		}
	}
	errs.Add("push_locale", "is not a supported language; use one of: "+strings.Join(s.Locales, ", "))
	return ""
}
