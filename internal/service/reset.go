package service

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"hush/internal/i18n"
	"hush/internal/mail"
	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/store"
)

// Password resets and address confirmation (docs/decisions.md, D36 and
// D39). Asking for either only queues a message naming the address: the
// request does the same work, and gets the same answer, whether or not the
// address has an account. The outbox worker looks the account up when it
// delivers; only then is the single-use link made, its token kept as a
// digest with its expiry, and an email sent — or nothing, for an address
// without an account.

// How long the links work.
const (
	ResetValidFor   = time.Hour
	ConfirmValidFor = 24 * time.Hour
)

// accountTokenBytes is the size of a reset or confirmation token.
const accountTokenBytes = 32

// Messages of the reset and confirmation pages.
const (
	MsgResetInvalid      = "This password reset link is invalid, was already used or has expired. Ask for a new one."
	MsgConfirmInvalid    = "This confirmation link is invalid, was already used or has expired. Ask for a new one."
	MsgConfirmPassword   = "This is not the password this account was created with. If you have forgotten it, or did not sign up yourself, choose a new password instead: its link confirms the address too."
	MsgEmailNotAllowed   = "Sign-ups on this server are limited to certain email addresses, and this one is not among them."
	msgMailOff           = "This server sends no email."
	ResetPath            = "/users/password/edit"
	ResetTokenParam      = "reset_password_token"
	ConfirmPath          = "/users/confirmation"
	ConfirmTokenParam    = "confirmation_token"
	SignInPath           = "/users/sign_in"
	ResetRequestPath     = "/users/password/new"
	maxAccountTokenBytes = 128
)

// errMailOff answers what needs email on an instance that sends none.
var errMailOff = &push.Error{Code: push.CodeNotFound, Message: msgMailOff}

// addressJob is the payload of a reset or confirmation asked for by
// address: the address and the origin the link is to name.
type addressJob struct {
	Email  string `json:"e"`
	Origin string `json:"o"`
}

// RequestPasswordReset queues a password reset for email, whose link will
// name the instance's fixed origin (origin, the request's, only where it
// has none: linkOrigin). It answers the same whether or not the
// address has an account, after the same work; CodeTooMany when the
// address or the client asked too often.
func (s *Service) RequestPasswordReset(ctx context.Context, email, origin string, m push.Meta) error {
	if err := s.passwordOff(); err != nil {
		return err
	}
	return s.requestByAddress(ctx, kindReset, email, origin, m)
}

// RequestConfirmation queues a new confirmation link for email, as
// RequestPasswordReset does a reset: nothing is sent when the address has
// no account awaiting confirmation.
func (s *Service) RequestConfirmation(ctx context.Context, email, origin string, m push.Meta) error {
	if !s.accounts.ConfirmEmail {
		return errMailOff
	}
	return s.requestByAddress(ctx, kindConfirm, email, origin, m)
}

func (s *Service) requestByAddress(ctx context.Context, kind, email, origin string, m push.Meta) error {
	if s.mail == nil {
		return errMailOff
	}
	email = NormalizeEmail(email)
	if !ValidEmail(email) {
		return invalid("email", MsgBadEmail)
	}
	now := s.Now()
	if _, err := s.reserve(ctx, now, tooManyMails, mailLimits(kind, clientKey(m.IP), email)...); err != nil {
		return err
	}
	msg, err := s.queued(kind, addressJob{Email: email, Origin: s.linkOrigin(origin)})
	if err != nil {
		return err
	}
	if err := s.store.Enqueue(ctx, now, msg); err != nil {
		return err
	}
	s.wake()
	return nil
}

// newAccountToken makes a single-use token and its digest, as stored.
func newAccountToken() (token, digest string, err error) {
	if token, err = secure.NewToken(accountTokenBytes); err != nil {
		return "", "", err
	}
	return token, secure.TokenDigest(token), nil
}

// accountLink is origin + path with the token as its query parameter.
func accountLink(origin, path, param, token string) string {
	return origin + path + "?" + url.Values{param: {token}}.Encode()
}

// userPath is path under the language prefix of u's own choice, so that a
// link in an email to u opens its page in the email's language; without a
// choice the page follows the browser, as any unprefixed link does
// (docs/decisions.md, D53).
func userPath(u *push.User, path string) string {
	if l, ok := i18n.Lookup(u.Language); ok && u.Language != "" {
		return "/" + l.Code + path
	}
	return path
}

// sendReset delivers a queued password reset: a fresh link for the account,
// which replaces any earlier one, or nothing when the address has no
// account.
func (s *Service) sendReset(ctx context.Context, m store.OutboxMessage) error {
	job, u, err := s.addressee(ctx, m)
	if err != nil {
		return err
	}
	token, digest, err := newAccountToken()
	if err != nil {
		return err
	}
	if err := s.store.SetResetDigest(ctx, u.ID, digest, s.Now().Add(ResetValidFor)); err != nil {
		return err
	}
	loc := s.userLang(u)
	msg, err := mail.RenderIn(loc.Lang().Code, mail.TemplateReset, mail.ResetData{Origin: job.Origin, Email: u.Email,
		Link: accountLink(job.Origin, userPath(u, ResetPath), ResetTokenParam, token), Valid: loc.N("duration.hours", int(ResetValidFor/time.Hour), nil)})
	if err != nil {
		return err
	}
	msg.To = u.Email
	return s.mail.Send(ctx, msg)
}

// addressee opens a message queued for an address and looks up the
// account it names: errNothingToSend when there is none.
func (s *Service) addressee(ctx context.Context, m store.OutboxMessage) (addressJob, *push.User, error) {
	var job addressJob
	if err := s.openQueued(m, &job); err != nil {
		return job, nil, fmt.Errorf("%w: %v", mail.ErrPermanent, err)
	}
	u, err := s.store.UserByEmail(ctx, job.Email)
	if push.ErrorCode(err) == push.CodeNotFound {
		return job, nil, errNothingToSend
	}
	return job, u, err
}

// sendConfirm delivers a queued confirmation: a fresh link for an account
// that awaits confirmation, or nothing.
func (s *Service) sendConfirm(ctx context.Context, m store.OutboxMessage) error {
	job, u, err := s.addressee(ctx, m)
	if err != nil {
		return err
	}
	if !u.ConfirmPending {
		return errNothingToSend
	}
	return s.sendConfirmLink(ctx, u, job.Origin)
}

// sendConfirmLink sends u, which awaits confirmation, a fresh link that
// replaces any earlier one.
func (s *Service) sendConfirmLink(ctx context.Context, u *push.User, origin string) error {
	token, digest, err := newAccountToken()
	if err != nil {
		return err
	}
	if ok, err := s.store.SetConfirmDigest(ctx, u.ID, digest, s.Now().Add(ConfirmValidFor)); err != nil || !ok {
		if err == nil {
			err = errNothingToSend
		}
		return err
	}
	loc := s.userLang(u)
	msg, err := mail.RenderIn(loc.Lang().Code, mail.TemplateConfirm, mail.ResetData{Origin: origin, Email: u.Email,
		Link: accountLink(origin, userPath(u, ConfirmPath), ConfirmTokenParam, token), Valid: loc.N("duration.hours", int(ConfirmValidFor/time.Hour), nil)})
	if err != nil {
		return err
	}
	msg.To = u.Email
	return s.mail.Send(ctx, msg)
}

// sendTaken delivers the message of a sign-up with an address that has an
// account (docs/decisions.md, D63): to an account that still awaits
// confirmation, its confirmation link again, its password unchanged; to
// any other, word that someone tried to create an account with its
// address, with the ways to sign in and to reset its password; nothing
// when the account is gone.
func (s *Service) sendTaken(ctx context.Context, m store.OutboxMessage) error {
	job, u, err := s.addressee(ctx, m)
	if err != nil {
		return err
	}
	if u.ConfirmPending {
		return s.sendConfirmLink(ctx, u, job.Origin)
	}
	msg, err := mail.RenderIn(s.userLang(u).Lang().Code, mail.TemplateTaken, mail.TakenData{Origin: job.Origin, Email: u.Email,
		SignIn: job.Origin + userPath(u, SignInPath), Reset: job.Origin + userPath(u, ResetRequestPath)})
	if err != nil {
		return err
	}
	msg.To = u.Email
	return s.mail.Send(ctx, msg)
}

// accountTokenDigest is the digest a reset or confirmation token is kept
// as; "" for what cannot be a token.
func accountTokenDigest(token string) string {
	if token == "" || len(token) > maxAccountTokenBytes {
		return ""
	}
	return secure.TokenDigest(token)
}

// ResetValid reports whether token is a password reset that still works:
// the reset page asks for a new password only then.
func (s *Service) ResetValid(ctx context.Context, token string) (bool, error) {
	d := accountTokenDigest(token)
	if d == "" {
		return false, nil
	}
	return s.store.ResetValid(ctx, d, s.Now())
}

// ResetPassword sets a new password with a reset token, once: the token is
// spent by the same statement that sets the password, so two requests with
// it cannot both succeed. Every web session of the account ends. The
// account, which the link proved to be reached at its address, counts as
// confirmed.
func (s *Service) ResetPassword(ctx context.Context, token, password, confirm string) (*push.User, error) {
	if err := s.passwordOff(); err != nil {
		return nil, err
	}
	notFound := &push.Error{Code: push.CodeNotFound, Message: MsgResetInvalid}
	ok, err := s.ResetValid(ctx, token)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notFound
	}
	hash, err := s.newPasswordHash(ctx, password, confirm)
	if err != nil {
		return nil, err
	}
	u, err := s.store.ResetPassword(ctx, accountTokenDigest(token), hash, s.Now())
	if push.ErrorCode(err) == push.CodeNotFound {
		return nil, notFound
	}
	return u, err
}

// ConfirmAccount spends a confirmation token for whoever also gives the
// password the account's sign-up set, and returns the account, which may
// sign in from now on (docs/decisions.md, D68). The link alone shows only
// that its holder reads the mailbox: a stranger may have signed up with the
// address first, with a password of their own that a later sign-up of the
// owner keeps (D63). Asking for that password here means nobody confirms an
// account whose password they do not know; an owner who does not know it
// chooses a new one through a reset, which confirms the address too. The
// password is checked under the sign-in limits of the client and the
// address; a wrong one is counted as a wrong sign-in is. Where password
// sign-in is off, it is refused as a sign-in is.
func (s *Service) ConfirmAccount(ctx context.Context, token, password string, m push.Meta) (*push.User, error) {
	if err := s.passwordOff(); err != nil {
		return nil, err // it signs in with the password
	}
	dead := &push.Error{Code: push.CodeNotFound, Message: MsgConfirmInvalid}
	d := accountTokenDigest(token)
	if d == "" {
		return nil, dead
	}
	u, err := s.store.UserByConfirmDigest(ctx, d, s.Now())
	if push.ErrorCode(err) == push.CodeNotFound {
		return nil, dead
	}
	if err != nil {
		return nil, err
	}
	if err := s.guessPassword(ctx, u, password, m, invalid("password", MsgConfirmPassword)); err != nil {
		return nil, err
	}
	if u.Disabled() {
		return nil, &push.Error{Code: push.CodeForbidden, Message: MsgDisabled}
	}
	u, err = s.store.Confirm(ctx, d, u.ID, u.PasswordHash, s.Now())
	if push.ErrorCode(err) == push.CodeNotFound {
		return nil, dead
	}
	return u, err
}

// SetLanguage stores the language u chose for its pages: a shipped
// language's code, or "" for its browser's (docs/decisions.md, D53).
func (s *Service) SetLanguage(ctx context.Context, u *push.User, code string) error {
	if code != "" {
		l, ok := i18n.Lookup(code)
		if !ok {
			return push.FieldErrors{"preferred_language": {"is not a supported language"}}.Err()
		}
		code = l.Code
	}
	if err := s.store.SetLanguage(ctx, u.ID, code, s.Now()); err != nil {
		return err
	}
	u.Language = code
	return nil
}

// SetReceiptsDefault stores the receipts u's new pushes ask for unless told
// otherwise.
func (s *Service) SetReceiptsDefault(ctx context.Context, u *push.User, r push.Receipts) error {
	if r != 0 && !s.settings.Receipts {
		return &push.Error{Code: push.CodeInvalid, Message: "Receipts are not available: this server sends no email."}
	}
	return s.store.SetReceiptsDefault(ctx, u.ID, r, s.Now())
}
