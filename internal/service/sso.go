package service

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"hush/internal/push"
	"hush/internal/store"
)

// Single sign-on through an OpenID Connect provider (docs/decisions.md,
// D50 and D51). The protocol (discovery, the code exchange, the ID token's
// checks) is the IdentityProvider's, which app wires in; the service keeps
// the attempt's secrets and decides which account an identity signs in as.

// SSOAttemptTimeout is how long a browser has between leaving for the
// provider and coming back.
const SSOAttemptTimeout = 10 * time.Minute

// Messages of single sign-on.
const (
	MsgSSOFailed      = "Signing in with your provider did not work. Please try again."
	MsgSSOExpired     = "That sign-in took too long or was already used. Please start again."
	MsgSSOUnverified  = "Your provider has not verified your email address, so Hush cannot link it to an account."
	MsgSSODomain      = "Your email address is not in a domain allowed to sign in here."
	MsgSSONoAccount   = "There is no account for your email address here. Please ask an administrator to create one."
	MsgSSOLinkedOther = "Your account is already linked to another identity at this provider."
	MsgSSOSignInFirst = "An account with your email address signs in with a password here. Sign in with its password now, and your provider will be linked to it."
	MsgPasswordOff    = "Password sign-in is turned off on this server: please sign in with your provider."
)

// Identity is what the provider vouched for in a verified ID token.
type Identity struct {
	Issuer, Subject string
	Email           string
	EmailVerified   bool
}

// IdentityProvider speaks OpenID Connect to the provider (internal/sso).
type IdentityProvider interface {
	// AuthURL is where the browser goes to sign in, carrying state, the
	// nonce and the S256 challenge of verifier.
	AuthURL(ctx context.Context, state, nonce, verifier string) (string, error)
	// Identify exchanges the code (with verifier) and returns the identity
	// of an ID token whose signature, issuer, audience, expiry and nonce
	// all check out.
	Identify(ctx context.Context, code, verifier, nonce string) (Identity, error)
}

// SSORules are the instance's single sign-on settings.
type SSORules struct {
	Label          string   // the sign-in button's text
	AllowedDomains []string // lower-case email domains; empty: any
	CreateUsers    bool     // an unknown person gets an account on first sign-in
	PasswordOff    bool     // password sign-in, sign-up and reset are off
}

type ssoState struct {
	p     IdentityProvider
	rules SSORules
}

// EnableSSO turns single sign-on on with provider p.
func (s *Service) EnableSSO(p IdentityProvider, rules SSORules) {
	domains := make([]string, len(rules.AllowedDomains))
	for i, d := range rules.AllowedDomains {
		domains[i] = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(d), "@"))
	}
	rules.AllowedDomains = domains
	s.sso.Store(&ssoState{p: p, rules: rules})
}

// SSO returns the single sign-on rules; ok is false when it is off.
func (s *Service) SSO() (rules SSORules, ok bool) {
	st := s.sso.Load()
	if st == nil {
		return SSORules{}, false
	}
	return st.rules, true
}

// PasswordSignIn reports whether accounts may sign in, sign up and reset
// with a password.
func (s *Service) PasswordSignIn() bool {
	st := s.sso.Load()
	return st == nil || !st.rules.PasswordOff
}

// SSOAttempt is one browser's trip to the provider: what it must bring
// back (State) and what the service needs then. The web layer keeps it in
// that browser's session, once.
type SSOAttempt struct {
	State, Nonce, Verifier string
	Started                time.Time
}

// randomToken is 256 random bits, URL-safe (43 characters: a valid PKCE
// verifier too).
func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// StartSSO begins a sign-in: a fresh state, nonce and PKCE verifier, and
// the provider's URL to send the browser to.
func (s *Service) StartSSO(ctx context.Context) (SSOAttempt, string, error) {
	st := s.sso.Load()
	if st == nil {
		return SSOAttempt{}, "", push.Errorf(push.CodeNotFound, "single sign-on is off")
	}
	var a SSOAttempt
	for _, dst := range []*string{&a.State, &a.Nonce, &a.Verifier} {
		v, err := randomToken()
		if err != nil {
			return SSOAttempt{}, "", err
		}
		*dst = v
	}
	a.Started = s.Now()
	u, err := st.p.AuthURL(ctx, a.State, a.Nonce, a.Verifier)
	if err != nil {
		s.log.ErrorContext(ctx, "single sign-on: provider unavailable", "err", err)
		return SSOAttempt{}, "", push.Errorf(push.CodeUnavailable, "%s", MsgSSOFailed)
	}
	return a, u, nil
}

// FinishSSO ends the attempt a (the zero attempt when the browser has
// none) with the provider's answer: the state it returned and the code.
// It returns the account the identity signs in as (D50); the caller binds
// it to a renewed session. Every refusal is a *push.Error whose message a
// person can read.
func (s *Service) FinishSSO(ctx context.Context, a SSOAttempt, state, code string) (*push.User, error) {
	st := s.sso.Load()
	if st == nil {
		return nil, push.Errorf(push.CodeNotFound, "single sign-on is off")
	}
	age := s.Now().Sub(a.Started)
	if a.State == "" || state == "" || age < 0 || age > SSOAttemptTimeout ||
		subtle.ConstantTimeCompare([]byte(a.State), []byte(state)) != 1 {
		return nil, push.Errorf(push.CodeUnauthenticated, "%s", MsgSSOExpired)
	}
	if code == "" {
		return nil, push.Errorf(push.CodeUnauthenticated, "%s", MsgSSOFailed)
	}
	id, err := st.p.Identify(ctx, code, a.Verifier, a.Nonce)
	if err == nil && !(push.StorableText(id.Issuer) && push.StorableText(id.Subject) && push.StorableText(id.Email)) {
		// They are looked up in text columns (docs/decisions.md, D61).
		err = errors.New("the identity's issuer, subject or email holds a NUL character or is not UTF-8")
	}
	if err != nil {
		s.log.WarnContext(ctx, "single sign-on refused", "err", err)
		return nil, push.Errorf(push.CodeUnauthenticated, "%s", MsgSSOFailed)
	}
	return s.accountOf(ctx, st.rules, id)
}

// accountOf is the account identity id signs in as (D50): the one linked
// to it; else, with a verified address in an allowed domain, the account
// of that address, linked now; else a new one where the instance creates
// accounts.
func (s *Service) accountOf(ctx context.Context, rules SSORules, id Identity) (*push.User, error) {
	email := NormalizeEmail(id.Email)
	if err := ssoAddressAllowed(rules, email, id.EmailVerified); err != nil {
		return nil, err
	}
	u, err := s.store.UserByIdentity(ctx, id.Issuer, id.Subject)
	if push.ErrorCode(err) == push.CodeNotFound {
		u, err = s.linkOrCreate(ctx, rules, id, email)
	}
	if err != nil {
		return nil, err
	}
	if u.Disabled() {
		return nil, push.Errorf(push.CodeForbidden, "%s", MsgDisabled)
	}
	return u, nil
}

// ssoAddressAllowed checks the address the provider gave: verified, valid,
// and in an allowed domain.
func ssoAddressAllowed(rules SSORules, email string, verified bool) error {
	if !verified {
		return push.Errorf(push.CodeForbidden, "%s", MsgSSOUnverified)
	}
	if !ValidEmail(email) {
		return push.Errorf(push.CodeForbidden, "%s", MsgBadEmail)
	}
	if d := rules.AllowedDomains; len(d) > 0 {
		domain := email[strings.LastIndex(email, "@")+1:]
		for _, ok := range d {
			if domain == ok {
				return nil
			}
		}
		return push.Errorf(push.CodeForbidden, "%s", MsgSSODomain)
	}
	return nil
}

// SSOSignInFirst is the refusal of a first sign-in through the provider
// whose address is an account with a password, while password sign-in is
// on: whoever chose that password may never have held the address, so the
// link waits for the password (D50). Link is the identity, for
// LinkAfterSignIn once the same browser has signed in with the password.
type SSOSignInFirst struct {
	Link    Identity
	Started time.Time
}

func (e *SSOSignInFirst) Error() string { return MsgSSOSignInFirst }

// Unwrap gives the refusal as the push.Error the pages show.
func (e *SSOSignInFirst) Unwrap() error {
	return &push.Error{Code: push.CodeForbidden, Message: MsgSSOSignInFirst}
}

// linkOrCreate links a new identity to the account of its verified
// address, or creates an account for it.
func (s *Service) linkOrCreate(ctx context.Context, rules SSORules, id Identity, email string) (*push.User, error) {
	link := store.Identity{Issuer: id.Issuer, Subject: id.Subject, Email: email}
	u, err := s.store.UserByEmail(ctx, email)
	switch {
	case err == nil:
		if u.Disabled() {
			return nil, push.Errorf(push.CodeForbidden, "%s", MsgDisabled)
		}
		if u.PasswordHash != "" && !rules.PasswordOff {
			return nil, &SSOSignInFirst{Link: Identity{Issuer: id.Issuer, Subject: id.Subject, Email: email, EmailVerified: true},
				Started: s.Now()}
		}
		// No password to prove, or none that signs in any more: the
		// provider's word makes the link, and what was set up with that
		// password before it (sessions, the API token, webhook
		// endpoints) ends or is turned off.
		return s.link(ctx, u, link, u.PasswordHash != "")
	case push.ErrorCode(err) != push.CodeNotFound:
		return nil, err
	case !rules.CreateUsers:
		return nil, push.Errorf(push.CodeForbidden, "%s", MsgSSONoAccount)
	}
	u, err = s.store.CreateIdentityUser(ctx, link, s.Now())
	if push.ErrorCode(err) == push.CodeConflict {
		// Another sign-in of the same person won the race: use its account.
		if u, err2 := s.store.UserByIdentity(ctx, id.Issuer, id.Subject); err2 == nil {
			return u, nil
		}
		return nil, push.Errorf(push.CodeForbidden, "%s", MsgEmailTaken)
	}
	if err != nil {
		return nil, err
	}
	s.log.InfoContext(ctx, "single sign-on created an account", "user_id", u.ID)
	return u, nil
}

// link links the identity to u; endCredentials also ends u's sessions,
// revokes its API token and turns its webhook endpoints off, in the same
// transaction (store.LinkIdentity).
func (s *Service) link(ctx context.Context, u *push.User, link store.Identity, endCredentials bool) (*push.User, error) {
	err := s.store.LinkIdentity(ctx, u.ID, link, s.Now(), endCredentials)
	if push.ErrorCode(err) == push.CodeConflict {
		return nil, push.Errorf(push.CodeForbidden, "%s", MsgSSOLinkedOther)
	}
	if err != nil {
		return nil, err
	}
	s.log.InfoContext(ctx, "single sign-on linked an account", "user_id", u.ID)
	return s.store.UserByID(ctx, u.ID)
}

// LinkAfterSignIn makes the link an SSOSignInFirst refusal left waiting,
// now that u has signed in with its password in the same browser: when u
// is the account of the identity's address and the refusal is at most
// SSOAttemptTimeout old. It reports whether it linked; a link that cannot
// be made (the account linked meanwhile, or gone) is no error of the
// sign-in.
func (s *Service) LinkAfterSignIn(ctx context.Context, u *push.User, id Identity, started time.Time) bool {
	age := s.Now().Sub(started)
	if u == nil || id.Subject == "" || age < 0 || age > SSOAttemptTimeout || NormalizeEmail(id.Email) != u.Email {
		return false
	}
	if _, ok := s.SSO(); !ok {
		return false
	}
	link := store.Identity{Issuer: id.Issuer, Subject: id.Subject, Email: u.Email}
	if _, err := s.link(ctx, u, link, false); err != nil {
		s.log.WarnContext(ctx, "single sign-on link after a password sign-in not made", "user_id", u.ID, "err", err)
		return false
	}
	return true
}

// SignInMethods says how an account signs in, for the admin pages.
type SignInMethods struct {
	Methods    string // "password", "SSO", "password and SSO" or "none"
	Identities []store.Identity
}

// SignInMethodsOf reads how u signs in.
func (s *Service) SignInMethodsOf(ctx context.Context, u *push.User) (SignInMethods, error) {
	ids, err := s.store.Identities(ctx, u.ID)
	if err != nil {
		return SignInMethods{}, err
	}
	sum := store.UserSummary{Password: u.PasswordHash != "", SSO: len(ids) > 0}
	return SignInMethods{Methods: sum.SignsIn(), Identities: ids}, nil
}

// passwordOff is the refusal of every password route (sign-in, its code
// step, sign-up, reset) while password sign-in is off; nil while it is on.
func (s *Service) passwordOff() error {
	if s.PasswordSignIn() {
		return nil
	}
	return &push.Error{Code: push.CodeForbidden, Message: MsgPasswordOff}
}
