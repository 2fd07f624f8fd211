package push

import (
	"regexp"
	"strings"
)

// MaxNotifyRecipients is how many addresses a push's link may be emailed
// to, over every request together (Password Pusher's limit).
const MaxNotifyRecipients = 5

// Messages of Password Pusher's e-mail notification fields.
const (
	MsgNotifyNotEnabled = "Notify by email feature is not enabled"
	msgNotifyCommas     = "has commas used in the wrong way"
	msgNotifyDuplicates = "contains duplicate emails"
	msgNotifyTooMany    = "contains more than 5 email(s)"
	msgNotifyInvalid    = "contains invalid email(s)"
	msgNotInList        = "is not included in the list"
)

// NotifyUnavailable is the message of a notification field on an instance
// that sends no email (the locale field's verb is singular).
func NotifyUnavailable(field string) string {
	if field == "notify_emails_to_locale" {
		return "is not available"
	}
	return "are not available"
}

// NotifyAnonymous is the message of a notification field sent by a caller
// who is not signed in.
func NotifyAnonymous(field string) string {
	if field == "notify_emails_to_locale" {
		return "is not allowed for unknown users"
	}
	return "are not allowed for unknown users"
}

// recipientAddress is the shape of an address the link may be sent to, as
// Password Pusher checks it: a plain local part and a dotted domain, with
// nothing that could end a mail header (no spaces, quotes, angle brackets,
// commas or line breaks).
var recipientAddress = regexp.MustCompile(`^[A-Za-z0-9_.%+-]+@([A-Za-z0-9_-]+\.)+[A-Za-z0-9_]{2,}$`)

// maxAddress bounds an address in bytes (RFC 5321's path limit).
const maxAddress = 254

// ParseRecipients reads a comma-separated list of addresses, as the
// notify_emails_to field carries it. It returns the addresses, lower-cased,
// and the field's messages: commas in the wrong place, duplicates, more
// than max, an invalid address — each once, in Password Pusher's words.
func ParseRecipients(list string, max int) ([]string, []string) {
	var msgs []string
	parts := strings.Split(list, ",")
	seen := map[string]bool{}
	var out []string
	commas, dup, invalid := strings.HasSuffix(strings.TrimSpace(list), ","), false, false
	for _, p := range parts {
		a := strings.ToLower(strings.TrimSpace(p))
		switch {
		case a == "":
			commas = true
			continue
		case seen[a]:
			dup = true
			continue
		case len(a) > maxAddress || !recipientAddress.MatchString(a):
			invalid = true
		}
		seen[a] = true
		out = append(out, a)
	}
	if commas {
		msgs = append(msgs, msgNotifyCommas)
	}
	if dup {
		msgs = append(msgs, msgNotifyDuplicates)
	}
	if len(out) > max {
		msgs = append(msgs, msgNotifyTooMany)
	}
	if invalid {
		msgs = append(msgs, msgNotifyInvalid)
	}
	if len(msgs) > 0 {
		return nil, msgs
	}
	return out, nil
}

// localeTag is a language tag as Password Pusher's locales are written
// (en, pt-BR, zh-CN).
var localeTag = regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$`)

// ValidLocale reports whether s is a locale notify_emails_to_locale may
// name. Where it names a shipped language and the push has none of its
// own, the message is written in it (docs/decisions.md, D53); otherwise it
// is checked, not used (D37).
func ValidLocale(s string) bool { return len(s) <= 16 && localeTag.MatchString(s) }

// validateNotify checks the e-mail notification fields of a create: on an
// instance that sends no email they are refused; otherwise the addresses
// and the locale are checked. A field already refused in r.Errors (a caller
// who is not signed in) is not checked again.
func validateNotify(r *CreateRequest, s *Settings, errs FieldErrors) ([]string, string) {
	if r.NotifyEmailsTo == "" && r.NotifyEmailsToLocale == "" {
		return nil, ""
	}
	if !s.NotifyByEmail {
		for _, f := range []struct{ name, value string }{{"notify_emails_to", r.NotifyEmailsTo}, {"notify_emails_to_locale", r.NotifyEmailsToLocale}} {
			if f.value == "" {
				continue
			}
			errs.Add(f.name, NotifyUnavailable(f.name))
			if len(errs["base"]) == 0 {
				errs.Add("base", MsgNotifyNotEnabled)
			}
		}
		return nil, ""
	}
	var to []string
	if r.NotifyEmailsTo != "" && len(r.Errors["notify_emails_to"]) == 0 {
		var msgs []string
		if to, msgs = ParseRecipients(r.NotifyEmailsTo, MaxNotifyRecipients); len(msgs) > 0 {
			errs["notify_emails_to"] = append(errs["notify_emails_to"], msgs...)
		}
	}
	locale := strings.TrimSpace(r.NotifyEmailsToLocale)
	if locale != "" && len(r.Errors["notify_emails_to_locale"]) == 0 && !ValidLocale(locale) {
		errs.Add("notify_emails_to_locale", msgNotInList)
	}
	return to, locale
}

// Receipts are the events of a push its owner asked to be emailed about,
// as bits.
type Receipts uint8

// The receipts a push may ask for.
const (
	ReceiptView             Receipts = 1 << iota // the push was viewed
	ReceiptFailedPassphrase                      // a wrong passphrase was tried
	ReceiptExpire                                // the push expired
)

// AllReceipts are every receipt, in the order forms list them.
var AllReceipts = []Receipts{ReceiptView, ReceiptFailedPassphrase, ReceiptExpire}

// Has reports whether r includes every receipt of x.
func (r Receipts) Has(x Receipts) bool { return r&x == x && x != 0 }

// Field is the create parameter that asks for the receipt.
func (r Receipts) Field() string {
	switch r {
	case ReceiptView:
		return "receipt_on_view"
	case ReceiptFailedPassphrase:
		return "receipt_on_failed_passphrase"
	case ReceiptExpire:
		return "receipt_on_expire"
	}
	return ""
}

// Event names the receipt in the outbox and in its message.
func (r Receipts) Event() string {
	switch r {
	case ReceiptView:
		return "view"
	case ReceiptFailedPassphrase:
		return "failed_passphrase"
	case ReceiptExpire:
		return "expire"
	}
	return ""
}

// ReceiptForEvent is the receipt an outbox event names; 0 for none.
func ReceiptForEvent(event string) Receipts {
	for _, r := range AllReceipts {
		if r.Event() == event {
			return r
		}
	}
	return 0
}

// asked returns the request's receipt fields in AllReceipts' order.
func (r *CreateRequest) asked() []*bool {
	return []*bool{r.ReceiptOnView, r.ReceiptOnFailedPassphrase, r.ReceiptOnExpire}
}

// ReceiptsWith are the receipts the request asks for, each field that was
// not sent taking its bit from def (the owner's default).
func (r *CreateRequest) ReceiptsWith(def Receipts) Receipts {
	var out Receipts
	for i, v := range r.asked() {
		bit := AllReceipts[i]
		if (v == nil && def.Has(bit)) || (v != nil && *v) {
			out |= bit
		}
	}
	return out
}

// validateReceipts refuses a receipt asked for on an instance that sends no
// email. A field already refused in r.Errors is not checked again.
func validateReceipts(r *CreateRequest, s *Settings, errs FieldErrors) {
	if s.Receipts {
		return
	}
	for i, v := range r.asked() {
		f := AllReceipts[i].Field()
		if v != nil && *v && len(r.Errors[f]) == 0 {
			errs.Add(f, "is not available")
		}
	}
}
