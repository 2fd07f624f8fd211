package service

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"hush/internal/mail"
	"hush/internal/secure"
	"hush/internal/store"
)

// Mailer delivers one message; an error wrapping mail.ErrPermanent will not
// go away by trying again. mail.Sender is the one Hush uses.
type Mailer interface {
	Send(ctx context.Context, m mail.Message) error
}

// MailEnabled reports whether Hush can send email (an SMTP server is
// configured): password resets, receipts, address confirmation.
func (s *Service) MailEnabled() bool { return s.mail != nil }

// ConfirmEmail reports whether new accounts confirm their address before
// they sign in.
func (s *Service) ConfirmEmail() bool { return s.accounts.ConfirmEmail }

// Kinds of outbox messages, each delivered by its sender (outbox.go).
const (
	kindEmail   = "email"          // a message written when queued, sealed whole (emailJob)
	kindReset   = "password_reset" // a reset asked for an address; the link is made when sent (resetJob)
	kindConfirm = "confirm"        // an address confirmation; the link is made when sent (confirmJob)
	kindTaken   = "signup_taken"   // a sign-up with an address that has an account; written when sent (addressJob)
	kindReceipt = store.OutboxKindReceipt
)

// purposeOutbox is the sub-key of outbox payloads.
const purposeOutbox = "outbox"

// outboxAD binds a sealed payload to its message's kind and ref, so that
// payloads cannot be swapped between messages.
func outboxAD(kind, ref string) []byte { return []byte("hush/outbox/" + kind + "/" + ref) }

// queued seals v, as JSON, into a message of kind for the outbox. The
// payload holds what the message needs (an address, a link) and is opened
// only to deliver it; the row is deleted once it is sent.
func (s *Service) queued(kind string, v any) (store.OutboxMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return store.OutboxMessage{}, err
	}
	m := store.OutboxMessage{Kind: kind, Ref: store.NewOutboxRef()}
	if m.Payload, err = s.keys.Seal(purposeOutbox, b, outboxAD(kind, m.Ref)); err != nil {
		return store.OutboxMessage{}, fmt.Errorf("seal message: %w", err)
	}
	return m, nil
}

// openQueued opens the payload of m into v.
func (s *Service) openQueued(m store.OutboxMessage, v any) error {
	b, err := s.keys.Open(purposeOutbox, m.Payload, outboxAD(m.Kind, m.Ref))
	if err != nil {
		return fmt.Errorf("open message %d: %w", m.ID, err)
	}
	return json.Unmarshal(b, v)
}

// resealOutbox re-seals an outbox payload under the current master key
// (key rotation); ref stands where a push's token key does.
func resealOutbox(keys *secure.Keyring, ref, field string, sealed []byte) ([]byte, bool, error) {
	ad := outboxAD(strings.TrimPrefix(field, "outbox/"), ref)
	plain, err := keys.Open(purposeOutbox, sealed, ad)
	if err != nil {
		return nil, false, err
	}
	out, err := keys.Seal(purposeOutbox, plain, ad)
	return out, err == nil, err
}

// emailJob is an email written when it was queued: the payload of kindEmail.
type emailJob struct {
	Message mail.Message `json:"m"`
}

// queueEmail seals a written message for the outbox.
func (s *Service) queueEmail(m mail.Message) (store.OutboxMessage, error) {
	return s.queued(kindEmail, emailJob{Message: m})
}

// linkOrigin is the origin the links of a message name: the instance's
// fixed origin whenever it has one (hush serve requires it with email),
// never the one a request names, which is its sender's to choose; the
// request's only for a service built without one (tests).
func (s *Service) linkOrigin(requested string) string {
	if s.origin != "" {
		return s.origin
	}
	return requested
}

// wake tells this instance's outbox worker that a message was queued.
func (s *Service) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Outbox counts the messages of the outbox: waiting, and failed for good.
func (s *Service) Outbox(ctx context.Context) (store.OutboxStats, error) {
	return s.store.Outbox(ctx)
}
