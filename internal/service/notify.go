package service

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"hush/internal/i18n"
	"hush/internal/mail"
	"hush/internal/push"
	"hush/internal/store"
)

// E-mail auto-dispatch (docs/decisions.md, D37): a push's link emailed to
// its recipients, at creation (notify_emails_to) or later by its owner
// (NotifyEmails), at most push.MaxNotifyRecipients over every request. Each
// recipient gets a message of their own, written and sealed when it is
// queued — it carries the link, which must not sit in the database in
// clear — in the transaction that records the creation_email_send audit
// entry; the outbox deletes it once sent.

// anonymousEmailErrors are the errors of the e-mail fields of a create by
// a caller who is not signed in (they need an owner), with req's own; a
// copy, so the caller's request is left as it is.
func (s *Service) anonymousEmailErrors(req *push.CreateRequest) push.FieldErrors {
	errs := push.FieldErrors{}
	maps.Copy(errs, req.Errors)
	if s.settings.NotifyByEmail {
		for _, f := range []struct{ name, value string }{{"notify_emails_to", req.NotifyEmailsTo}, {"notify_emails_to_locale", req.NotifyEmailsToLocale}} {
			if f.value != "" {
				errs.Add(f.name, push.NotifyAnonymous(f.name))
			}
		}
	}
	if s.settings.Receipts {
		for i, v := range []*bool{req.ReceiptOnView, req.ReceiptOnFailedPassphrase, req.ReceiptOnExpire} {
			if v != nil && *v {
				errs.Add(push.AllReceipts[i].Field(), "is not allowed for unknown users")
			}
		}
	}
	return errs
}

// notice writes the messages that bring p's link to the addresses to, for
// the outbox, with the audit entry ev; nil when there is nobody to write to.
// They are in the push's language, else in locale (notify_emails_to_locale)
// where it names a shipped language, else in the instance's default; the
// link carries the language that was named (docs/decisions.md, D53).
func (s *Service) notice(u *push.User, p *push.Push, to []string, locale, origin string, ev push.Event) (*store.Notice, error) {
	if len(to) == 0 {
		return nil, nil
	}
	origin = s.linkOrigin(origin)
	if u == nil || origin == "" || p.URLToken == "" {
		return nil, fmt.Errorf("notify: an owner, an origin and the link are needed")
	}
	named := p.Locale
	if l, ok := i18n.Lookup(locale); ok && named == "" {
		named = l.Code
	}
	lang := named
	if lang == "" {
		lang = s.settings.DefaultLocale
	}
	// The link goes through the retrieval step whatever the push says:
	// mail scanners open the links of a message before its reader does, and
	// the step's page spends no view (docs/decisions.md, D66).
	msg, err := mail.RenderIn(lang, mail.TemplateNotify, mail.NotifyData{Origin: origin, From: u.Email,
		Link: push.LocaleURL(origin, named, p.URLToken, true), Limits: limitsText(i18n.For(lang), p), Passphrase: p.HasPassphrase})
	if err != nil {
		return nil, err
	}
	n := &store.Notice{Recipients: len(to), Event: ev}
	for _, rcpt := range to {
		m := msg
		m.To = rcpt
		q, err := s.queueEmail(m)
		if err != nil {
			return nil, err
		}
		n.Messages = append(n.Messages, q)
	}
	return n, nil
}

// limitsText says, for a recipient in loc's language, how long a push
// lasts: "7 days or 5 views", "15 minutes or 1 view".
func limitsText(loc *i18n.Localizer, p *push.Push) string {
	var d string
	switch {
	case p.ExpireAfter > 0 && p.ExpireAfter < time.Hour:
		d = loc.N("duration.minutes", int(p.ExpireAfter/time.Minute), nil)
	case p.ExpireAfter > 0:
		d = loc.N("duration.hours", int(p.ExpireAfter/time.Hour), nil)
	default:
		d = loc.N("duration.days", p.ExpireAfterDays, nil)
	}
	return loc.T("limits", map[string]any{"Time": d, "Views": loc.N("views.count", p.ExpireAfterViews, nil)})
}

// NotifyInput is one request to email a push's link to more recipients.
type NotifyInput struct {
	User   *push.User
	Token  string
	To     string // comma-separated addresses
	Locale string
	Origin string // the request's scheme://host, where the instance has no fixed origin
	Meta   push.Meta
}

// Messages of the notify_emails endpoint.
const (
	MsgNotifyQueued     = "Recipient(s) are added to the queue to be sent."
	msgNotifyExpired    = "are not available for expired pushes"
	msgNotifyBlank      = "can't be blank"
	msgNotifyOverTotal  = "You can notify up to %d email(s) and you have already sent emails to %d recipients"
	msgNotifyNeedsOwner = "That push doesn't belong to you."
)

// NotifyEmails emails the link of the push a token names to more
// recipients, for its owner. The checks come in Password Pusher's order:
// the push (CodeNotFound), the owner's allowance of 5 requests a minute
// (CodeTooMany, counted whatever follows), the owner (CodeForbidden), then
// the fields (CodeInvalid): the addresses, the locale, an expired push, the
// total of recipients. The total is checked and raised in the statement
// that queues the messages, so requests sent together cannot pass it.
func (s *Service) NotifyEmails(ctx context.Context, in NotifyInput) error {
	if !s.settings.NotifyByEmail {
		return errMailOff
	}
	if in.User == nil {
		return &push.Error{Code: push.CodeUnauthenticated, Message: MsgSignIn}
	}
	p, err := s.Lookup(ctx, in.Token)
	if err != nil {
		return err
	}
	now := s.Now()
	if _, err := s.reserve(ctx, now, tooManyNotify, notifyLimit(in.User.ID)); err != nil {
		return err
	}
	if !p.OwnedBy(in.User.ID) {
		return &push.Error{Code: push.CodeForbidden, Message: msgNotifyNeedsOwner}
	}
	to, err := notifyFields(p, in)
	if err != nil {
		return err
	}
	n, err := s.notice(in.User, p, to, in.Locale, in.Origin, s.event(push.EventCreationEmailSend, in.User, in.Meta, now))
	if err != nil {
		return err
	}
	ok, err := s.store.Notify(ctx, p.ID, n, push.MaxNotifyRecipients)
	if err != nil {
		return err
	}
	if !ok {
		// Expired or filled up meanwhile: say which, as it is now.
		if p, err = s.reload(ctx, p); err != nil {
			return err
		}
		if err := notifyState(p, len(to)); err != nil {
			return err
		}
		return fmt.Errorf("notify push %d: refused without a reason", p.ID)
	}
	s.wake()
	return nil
}

// notifyFields checks a notify request's fields against the push.
func notifyFields(p *push.Push, in NotifyInput) ([]string, error) {
	errs := push.FieldErrors{}
	var to []string
	if strings.TrimSpace(in.To) == "" {
		errs.Add("notify_emails_to", msgNotifyBlank)
	} else {
		var msgs []string
		if to, msgs = push.ParseRecipients(in.To, push.MaxNotifyRecipients); len(msgs) > 0 {
			errs["notify_emails_to"] = msgs
		}
	}
	if l := strings.TrimSpace(in.Locale); l != "" && !push.ValidLocale(l) {
		errs.Add("notify_emails_to_locale", "is not included in the list")
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return to, notifyState(p, len(to))
}

// notifyState refuses n more recipients for p when it expired or they
// would pass the total.
func notifyState(p *push.Push, n int) error {
	errs := push.FieldErrors{}
	if p.Expired {
		errs.Add("notify_emails_to", msgNotifyExpired)
	} else if p.NotifyCount+n > push.MaxNotifyRecipients {
		errs.Add("base", fmt.Sprintf(msgNotifyOverTotal, push.MaxNotifyRecipients, p.NotifyCount))
	}
	return errs.Err()
}
