package service

import (
	"context"
	"crypto/subtle"
	"net/mail"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"hush/internal/push"
	"hush/internal/store"
)

// Account rules, the same for the sign-up form and `hush user create`.
const (
	MinPassword = 8   // characters
	MaxPassword = 256 // characters
	maxEmail    = 254 // bytes
)

// Messages of the account pages and verbs.
const (
	MsgBadEmail        = "Please enter a valid email address."
	MsgBadCredentials  = "Invalid email or password."
	MsgWrongPassword   = "The current password is not correct."
	MsgEmailTaken      = "An account with this email address already exists."
	MsgDisabled        = "This account is disabled. Please ask an administrator."
	msgPasswordShort   = "The password must be at least 8 characters long."
	msgPasswordLong    = "The password must be at most 256 characters long."
	msgPasswordConfirm = "The password and its confirmation do not match."
)

// MsgBadOrUnconfirmed is MsgBadCredentials where new accounts confirm their
// address (badCredentials).
const MsgBadOrUnconfirmed = "Invalid email or password. If you have just signed up, confirm your email address first: follow the link in the email we sent you."

// NormalizeEmail is the form an email address is stored and looked up in.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// ValidEmail accepts a plain address such as a@b.example: no display name,
// no spaces or angle brackets, a dot in the domain, at most 254 bytes,
// shown as written (shownAsWritten).
func ValidEmail(email string) bool {
	if len(email) > maxEmail || strings.ContainsAny(email, " <>\"") || !shownAsWritten(email) {
		return false
	}
	a, err := mail.ParseAddress(email)
	return err == nil && a.Address == email && strings.Contains(email[strings.LastIndex(email, "@"):], ".")
}

// shownAsWritten reports whether s is valid UTF-8 with no control or
// formatting character (Unicode's Cc, Cf, Zl and Zp), so that a page or an
// email shows what it holds: a right-to-left override shows what follows
// it reversed, so the address "evil\u202emoc.elgoog@ex.com" reads as one at
// google.com, and a webhook endpoint's host can read as another host.
func shownAsWritten(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
			return false
		}
	}
	return true
}

// PasswordError checks a new password (counted in characters) and its
// confirmation; "" when it is acceptable.
func PasswordError(pw, confirm string) string {
	n := utf8.RuneCountInString(pw)
	switch {
	case n < MinPassword:
		return msgPasswordShort
	case n > MaxPassword:
		return msgPasswordLong
	case pw != confirm:
		return msgPasswordConfirm
	}
	return ""
}

func invalid(field, msg string) error {
	return &push.Error{Code: push.CodeInvalid, Message: msg, Fields: map[string][]string{field: {msg}}}
}

// SignUp is SignUpWith for a request without an origin (a confirmation
// link then names the instance's fixed origin).
func (s *Service) SignUp(ctx context.Context, email, password, confirm string, m push.Meta) (*push.User, error) {
	return s.SignUpWith(ctx, SignUpInput{Email: email, Password: password, Confirm: confirm, Meta: m})
}

// SignUpInput is one sign-up.
type SignUpInput struct {
	Email, Password, Confirm string
	Origin                   string // the request's scheme://host, for a confirmation link where the instance has no fixed origin
	Meta                     push.Meta
}

// SignUpWith creates an account and returns it. The email rules (and the
// instance's PWP__SIGNUP_EMAIL_REGEXP) and password rules come first, then
// the client's sign-up allowance (every attempt counts, so the form cannot
// be used to sweep for which addresses have accounts), then the password is
// hashed before the address is checked, so a taken address answers no
// faster than a free one. Where new accounts confirm their address, the
// account awaits confirmation (push.User.ConfirmPending) and the link is
// queued in the same step; there a taken address answers as a free one
// does, with a stand-in user that has only its Email and ConfirmPending,
// and its owner is emailed instead (signUpPending).
func (s *Service) SignUpWith(ctx context.Context, in SignUpInput) (*push.User, error) {
	if err := s.passwordOff(); err != nil {
		return nil, err
	}
	email, password := NormalizeEmail(in.Email), in.Password
	if !ValidEmail(email) {
		return nil, invalid("email", MsgBadEmail)
	}
	if s.accounts.SignUpEmail != nil && !s.accounts.SignUpEmail.MatchString(email) {
		return nil, invalid("email", MsgEmailNotAllowed)
	}
	if msg := PasswordError(password, in.Confirm); msg != "" {
		return nil, invalid("password", msg)
	}
	now := s.Now()
	if err := s.signUpAllowed(ctx, now, email, in.Meta); err != nil {
		return nil, err
	}
	hash, err := s.argon.HashPassword(ctx, password)
	if err != nil {
		return nil, err
	}
	if s.accounts.ConfirmEmail {
		return s.signUpPending(ctx, email, hash, in.Origin, now)
	}
	u, err := s.store.CreateUser(ctx, email, hash, now)
	if push.ErrorCode(err) == push.CodeConflict {
		return nil, invalid("email", MsgEmailTaken)
	}
	return u, err
}

// signUpAllowed takes the sign-up's slots: the client's, and where sign-ups
// are emailed, the address's (signUpMailLimit), so that the form cannot
// fill a mailbox with confirmation links or notices.
func (s *Service) signUpAllowed(ctx context.Context, now time.Time, email string, m push.Meta) error {
	if _, err := s.reserve(ctx, now, tooManySignUps, store.Limit{
		Bucket: bucket("signup-client", clientKey(m.IP)), Max: signUpPerClient, Window: signUpPerClientWindow}); err != nil {
		return err
	}
	if !s.accounts.ConfirmEmail {
		return nil
	}
	_, err := s.reserve(ctx, now, tooManyMails, signUpMailLimit(email))
	return err
}

// signUpPending creates an account that awaits confirmation and queues its
// confirmation link. An address that has an account gets, in the same
// step, a message for its owner instead (kindTaken), and the answer is a
// stand-in for a new account, so the page says what it says for a free
// address (docs/decisions.md, D63).
func (s *Service) signUpPending(ctx context.Context, email, hash, origin string, now time.Time) (*push.User, error) {
	job := addressJob{Email: email, Origin: s.linkOrigin(origin)}
	confirm, err := s.queued(kindConfirm, job)
	if err != nil {
		return nil, err
	}
	taken, err := s.queued(kindTaken, job)
	if err != nil {
		return nil, err
	}
	u, err := s.store.CreatePendingUser(ctx, email, hash, now, confirm, taken)
	if push.ErrorCode(err) == push.CodeConflict {
		u, err = &push.User{Email: email, ConfirmPending: true}, nil
	}
	if err != nil {
		return nil, err
	}
	s.wake()
	return u, nil
}

// SignIn checks an email and password. Each attempt reserves its slots
// under the sign-in limits before any password is hashed, and gives them
// back when it succeeds. An unknown email costs the same Argon2id work as a
// wrong password. A disabled account is refused (CodeForbidden) after its
// password was found right. An account with a second factor is not signed
// in yet: the caller asks for its code (StartSignInCode, FinishSignIn).
func (s *Service) SignIn(ctx context.Context, email, password string, m push.Meta) (*push.User, error) {
	if err := s.passwordOff(); err != nil {
		return nil, err
	}
	email = NormalizeEmail(email)
	sl, err := s.reserve(ctx, s.Now(), tooManySignIns, signInLimits(clientKey(m.IP), email)...)
	if err != nil {
		return nil, err
	}
	u, err := s.store.UserByEmail(ctx, email)
	if push.ErrorCode(err) == push.CodeNotFound {
		s.wasteVerify(ctx, password)
		return nil, s.badCredentials()
	}
	if err != nil {
		return nil, err
	}
	if !s.verify(ctx, u, password) || (u.ConfirmPending && s.accounts.ConfirmEmail) {
		// An account awaiting confirmation answers as a wrong password
		// does, its slot kept: whoever just signed up with an address
		// must not learn here whether it was free (docs/decisions.md, D63).
		return nil, s.badCredentials()
	}
	if err := s.release(ctx, sl); err != nil {
		return nil, err
	}
	if u.Disabled() {
		// Said only to whoever knows the password.
		return nil, &push.Error{Code: push.CodeForbidden, Message: MsgDisabled}
	}
	return u, nil
}

// badCredentials refuses a sign-in; where new accounts confirm their
// address, it says that a new account must be confirmed first, since it
// cannot say whether it was the password or the confirmation.
func (s *Service) badCredentials() error {
	if s.accounts.ConfirmEmail {
		return &push.Error{Code: push.CodeUnauthenticated, Message: MsgBadOrUnconfirmed}
	}
	return &push.Error{Code: push.CodeUnauthenticated, Message: MsgBadCredentials}
}

// checkPassword verifies a signed-in user's current password, under the
// sign-in limits: a stolen session cannot guess its way to the password.
func (s *Service) checkPassword(ctx context.Context, u *push.User, password string, m push.Meta) error {
	return s.guessPassword(ctx, u, password, m, invalid("current_password", MsgWrongPassword))
}

// guessPassword checks password against u's under the sign-in limits of
// m's client and u's address, and answers wrong when it is not u's: the
// slot it took is kept, as a wrong sign-in's is.
func (s *Service) guessPassword(ctx context.Context, u *push.User, password string, m push.Meta, wrong error) error {
	sl, err := s.reserve(ctx, s.Now(), tooManySignIns, signInLimits(clientKey(m.IP), u.Email)...)
	if err != nil {
		return err
	}
	if !s.verify(ctx, u, password) {
		return wrong
	}
	return s.release(ctx, sl)
}

// newPasswordHash checks a new password against the account rules (and
// its confirmation) and hashes it.
func (s *Service) newPasswordHash(ctx context.Context, password, confirm string) (string, error) {
	if msg := PasswordError(password, confirm); msg != "" {
		return "", invalid("password", msg)
	}
	return s.argon.HashPassword(ctx, password)
}

// ChangePassword replaces u's password after checking the current one. Every
// web session of the account ends (a stolen session cookie included); the
// returned user carries the new auth epoch for the caller's own session.
func (s *Service) ChangePassword(ctx context.Context, u *push.User, current, password, confirm string, m push.Meta) (*push.User, error) {
	if err := s.checkPassword(ctx, u, current, m); err != nil {
		return nil, err
	}
	hash, err := s.newPasswordHash(ctx, password, confirm)
	if err != nil {
		return nil, err
	}
	epoch, err := s.store.SetPassword(ctx, u.ID, hash, s.Now())
	if err != nil {
		return nil, err
	}
	changed := *u
	changed.PasswordHash, changed.AuthEpoch = hash, epoch
	return &changed, nil
}

// DeleteAccount deletes u after checking its password: its tokens, sessions,
// pushes, audit logs and files go with it. The last enabled admin is
// refused (CodeForbidden, MsgLastAdmin), and an admin's deletion is written
// to the admin log (docs/decisions.md, D41).
func (s *Service) DeleteAccount(ctx context.Context, u *push.User, password string, m push.Meta) error {
	if err := s.checkPassword(ctx, u, password, m); err != nil {
		return err
	}
	blobs, err := s.store.DeleteOwnAccount(ctx, u.ID, m.IP, s.Now())
	if err != nil {
		return err
	}
	s.deleteBlobs(ctx, blobs)
	return nil
}

// LastAdmin reports whether u is the only enabled admin, whose own account
// DeleteAccount refuses to delete; the pages ask it before they ask for
// the password.
func (s *Service) LastAdmin(ctx context.Context, u *push.User) (bool, error) {
	if !u.Admin || u.Disabled() {
		return false, nil
	}
	return s.store.LastEnabledAdmin(ctx, u.ID)
}

// SessionUser returns the account a web session names, if the session was
// signed in with the account's current auth epoch and the account is
// enabled; nil otherwise (the account is gone or disabled, its password
// changed or its sessions were revoked).
func (s *Service) SessionUser(ctx context.Context, id int64, epoch string) (*push.User, error) {
	if id == 0 || epoch == "" {
		return nil, nil
	}
	u, err := s.store.UserByID(ctx, id)
	if push.ErrorCode(err) == push.CodeNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(u.AuthEpoch), []byte(epoch)) != 1 || u.Disabled() {
		return nil, nil
	}
	return u, nil
}

// CreateUser creates an account with a given password, under the same rules
// as sign-up, without a limit (AdminCreateUser is the same, logged).
func (s *Service) CreateUser(ctx context.Context, email, password string) (*push.User, error) {
	return s.createUser(ctx, email, password, func(email, hash string) (*push.User, error) {
		return s.store.CreateUser(ctx, email, hash, s.Now())
	})
}

// createUser checks the email and the password under the rules of sign-up,
// and has insert store the account with the password's hash.
func (s *Service) createUser(ctx context.Context, email, password string, insert func(email, hash string) (*push.User, error)) (*push.User, error) {
	email = NormalizeEmail(email)
	if !ValidEmail(email) {
		return nil, invalid("email", MsgBadEmail)
	}
	hash, err := s.newPasswordHash(ctx, password, password)
	if err != nil {
		return nil, err
	}
	u, err := insert(email, hash)
	if push.ErrorCode(err) == push.CodeConflict {
		return nil, invalid("email", MsgEmailTaken)
	}
	return u, err
}

// UserByEmail finds an account; CodeNotFound when there is none.
func (s *Service) UserByEmail(ctx context.Context, email string) (*push.User, error) {
	return s.store.UserByEmail(ctx, NormalizeEmail(email))
}
