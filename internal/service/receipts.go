package service

import (
	"context"
	"fmt"
	"strings"
	"time"

	"hush/internal/i18n"
	"hush/internal/mail"
	"hush/internal/push"
	"hush/internal/store"
)

// Read receipts (docs/decisions.md, D38): an owner may ask to be emailed
// when a push is viewed, when a wrong passphrase is tried on it, and when
// it expires. The store queues a receipt in the transaction of the event
// itself (a view's claim, each kind of expiry), naming the push and the
// event only; the outbox worker writes the message when it delivers it,
// from what the push is then — by its name, or the first characters of its
// token's time prefix, never its link, payload or note. Receipts of wrong
// passphrases are sent once per push every receiptQuiet.

// timeFormat is how messages show instants.
const mailTimeFormat = "2006-01-02 15:04 UTC"

// failedReceipt queues the receipt of a wrong passphrase tried on p, unless
// one was queued within receiptQuiet.
func (s *Service) failedReceipt(ctx context.Context, p *push.Push, ev push.Event) error {
	if !p.Receipts.Has(push.ReceiptFailedPassphrase) || p.UserID == 0 || !s.settings.Receipts {
		return nil
	}
	_, err := s.reserve(ctx, ev.CreatedAt, retryIn, failedReceiptLimit(p.TokenKey))
	if push.ErrorCode(err) == push.CodeTooMany {
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.store.QueueReceipt(ctx, p.ID, push.ReceiptFailedPassphrase, ev.CreatedAt); err != nil {
		return err
	}
	s.wake()
	return nil
}

// receiptsQueued wakes the outbox worker when an event of p may have queued
// one of the receipts r.
func (s *Service) receiptsQueued(p *push.Push, r push.Receipts) {
	if p.Receipts&r != 0 && p.UserID != 0 {
		s.wake()
	}
}

// ShortID names a push without its link: the first six characters of its
// token key's time prefix (the beginning of its link, which tells when it
// was made), as the dashboard shows it; "" for a push whose token has no
// time prefix.
func ShortID(tokenKey string) string {
	if len(tokenKey) < 8 || strings.HasPrefix(tokenKey, "~") {
		return ""
	}
	return tokenKey[:6] + "…"
}

// receiptLabel names a push in a receipt, in loc's language: its name in
// quotes, else its short id, else when it was made.
func receiptLabel(loc *i18n.Localizer, p *push.Push) string {
	if name := mail.CleanHeader(p.Name); name != "" {
		return loc.T("mail.receipt.named", map[string]any{"Name": name})
	}
	if id := ShortID(p.TokenKey); id != "" {
		return id
	}
	return loc.T("mail.receipt.of", map[string]any{"Date": loc.Date(p.CreatedAt)})
}

// userLang is the language of the emails to u: the account's choice where
// it is a shipped language, else the instance's default
// (docs/decisions.md, D53).
func (s *Service) userLang(u *push.User) *i18n.Localizer {
	if l, ok := i18n.Lookup(u.Language); ok && u.Language != "" {
		return i18n.For(l.Code)
	}
	return i18n.For(s.settings.DefaultLocale)
}

// sendReceipt writes and delivers a queued receipt, or nothing when the
// push, its owner or the owner's wish for it is gone.
func (s *Service) sendReceipt(ctx context.Context, m store.OutboxMessage) error {
	r := push.ReceiptForEvent(m.Event)
	if r == 0 {
		return fmt.Errorf("%w: unknown receipt %q", mail.ErrPermanent, m.Event)
	}
	p, err := s.store.PushByID(ctx, m.SubjectID)
	if push.ErrorCode(err) == push.CodeNotFound {
		return errNothingToSend
	}
	if err != nil {
		return err
	}
	if !p.Receipts.Has(r) || p.UserID == 0 {
		return errNothingToSend
	}
	u, err := s.store.UserByID(ctx, p.UserID)
	if push.ErrorCode(err) == push.CodeNotFound {
		return errNothingToSend
	}
	if err != nil {
		return err
	}
	loc := s.userLang(u)
	msg, err := mail.RenderIn(loc.Lang().Code, mail.TemplateReceipt, mail.ReceiptData{Origin: s.origin, Event: r.Event(),
		Label: receiptLabel(loc, p), At: loc.Date(m.CreatedAt), Created: loc.Date(p.CreatedAt),
		Quiet: loc.N("duration.minutes", int(receiptQuiet/time.Minute), nil)})
	if err != nil {
		return err
	}
	msg.To = u.Email
	return s.mail.Send(ctx, msg)
}
