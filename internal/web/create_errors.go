package web

import (
	"fmt"
	"strings"

	"hush/internal/i18n"
	"hush/internal/push"
)

// Messages of the create form's own checks, in English like the service's:
// localFieldErrors translates them with the rest.
const (
	msgNoFile     = "Choose at least one file."
	msgNotInteger = "must be an integer"
)

// catalogMessage is the catalog key, with its count, of one validation
// message: count < 0 for a message without one.
type catalogMessage struct {
	key   string
	count int
}

// createMessages are the validation messages the create form can get back,
// by field and English text: the push and service packages write them in
// English for the API, whose clients match on them; the page shows them in
// its language. The messages that carry a number are written here with the
// same numbers, so each matches exactly.
func createMessages(st *push.Settings) map[string]map[string]catalogMessage {
	msg := func(key string) catalogMessage { return catalogMessage{key, -1} }
	unavailable, signIn := msg("create.error.unavailable"), msg("create.error.sign_in")
	notify := map[string]catalogMessage{
		"has commas used in the wrong way": msg("create.error.notify_commas"),
		"contains duplicate emails":        msg("create.error.notify_duplicates"),
		"contains more than 5 email(s)":    {"create.error.notify_too_many", push.MaxNotifyRecipients},
		"contains invalid email(s)":        msg("create.error.notify_invalid"),
		push.NotifyUnavailable("notify"):   unavailable,
		push.NotifyAnonymous("notify"):     signIn,
	}
	receipt := map[string]catalogMessage{"is not available": unavailable, "is not allowed for unknown users": signIn}
	out := map[string]map[string]catalogMessage{
		"files": {
			msgNoFile: msg("create.error.files_none"),
			"Each file needs a name of at most 255 characters.":                            msg("create.error.file_name"),
			"Each file's content type must be valid UTF-8 of at most 255 bytes.":           msg("create.error.file_type"),
			fmt.Sprintf("You can only attach up to %d files per push.", st.MaxFileUploads): {"create.error.files_many", st.MaxFileUploads},
		},
		"kind": {
			"File pushes are disabled.":    msg("create.error.kind_file"),
			"URL pushes are disabled.":     msg("create.error.kind_url"),
			"QR code pushes are disabled.": msg("create.error.kind_qr"),
		},
		"payload": {
			"Payload is required.": msg("create.error.required"),
			fmt.Sprintf("The payload is too large.  You can only push up to %d bytes.", push.MaxTextPayload):         {"create.error.too_long", push.MaxTextPayload},
			fmt.Sprintf("The QR code payload is too large.  You can only push up to %d bytes.", push.MaxQRPayload):   {"create.error.qr_too_long", push.MaxQRPayload},
			fmt.Sprintf("The QR code payload is too large to be drawn: at most %d bytes of UTF-8.", push.MaxQRBytes): {"create.error.qr_undrawable", push.MaxQRBytes},
			"must be a valid HTTP or HTTPS URL.": msg("create.error.url"),
		},
		"expire_after_days":  {msgNotInteger: msg("create.error.integer")},
		"expire_after_views": {msgNotInteger: msg("create.error.integer")},
		"push_locale": {
			"is not a supported language; use one of: " + strings.Join(st.Locales, ", "): msg("create.error.locale"),
		},
		"notify_emails_to":        notify,
		"notify_emails_to_locale": {push.NotifyUnavailable("notify_emails_to_locale"): unavailable, push.NotifyAnonymous("notify_emails_to_locale"): signIn},
		"base":                    {push.MsgNotifyNotEnabled: unavailable},
	}
	for _, x := range push.AllReceipts {
		out[x.Field()] = receipt
	}
	return out
}

// localFieldErrors are errs in loc's language: each message the create form
// knows is written from its catalog key; any other stays as it came.
func (s *Server) localFieldErrors(loc *i18n.Localizer, errs map[string][]string) map[string][]string {
	st := s.settings()
	return localFieldErrors(loc, &st, errs)
}

// localFieldErrors is Server.localFieldErrors on the instance settings st.
func localFieldErrors(loc *i18n.Localizer, st *push.Settings, errs map[string][]string) map[string][]string {
	known := createMessages(st)
	out := make(map[string][]string, len(errs))
	for field, msgs := range errs {
		local := make([]string, len(msgs))
		for i, m := range msgs {
			local[i] = m
			if k, ok := known[field][m]; ok {
				local[i] = localMessage(loc, k)
			}
		}
		out[field] = local
	}
	return out
}

func localMessage(loc *i18n.Localizer, m catalogMessage) string {
	if m.count < 0 {
		return loc.T(m.key, nil)
	}
	return loc.N(m.key, m.count, nil)
}
