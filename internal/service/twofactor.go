package service

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"fmt"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
	"github.com/pquerna/otp/totp"

	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/store"
)

// The second factor of web sign-in: TOTP (RFC 6238) with the parameters
// every authenticator app takes by default — HMAC-SHA1, 6 digits, 30-second
// steps — and a step of clock drift either way. The secret (20 random
// bytes) is sealed under the master key (purposeTOTP); a code is accepted
// once: the step it belongs to must be later than the last one accepted
// (store.UseTOTPStep). Ten recovery codes, shown once, stand in for a lost
// authenticator; each works once. Every code attempt reserves its slot
// under the code limits before it is checked (limiter.go). API tokens stay
// single-factor: they are made by a session that passed the second factor
// (docs/decisions.md, D40).
const (
	totpPeriod     = 30 // seconds
	totpSkew       = 1  // steps accepted either side of now
	recoveryCount  = 10
	recoveryLength = 16 // characters of 5 bits: 80 bits

	// SignInCodeTimeout is how long the half-signed-in state between a
	// right password and the code lasts.
	SignInCodeTimeout = 5 * time.Minute
)

// Messages of the second factor.
const (
	MsgBadCode           = "That code is not right. Enter the 6-digit code your authenticator app shows now, or one of your recovery codes."
	MsgCodeUsed          = "That code was already used. Wait for the next one and enter it."
	MsgSignInExpired     = "Your sign-in took too long or is no longer valid. Please sign in again."
	MsgEnrolmentGone     = "This set-up is no longer valid: your password changed or your sessions were ended meanwhile. Please start again."
	MsgTwoFactorOn       = "Two-factor authentication is already on for this account."
	MsgTwoFactorRequired = "Two-factor authentication is required. Please set it up to continue."
)

var totpOpts = hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// totpAD binds a sealed TOTP secret to its account.
func totpAD(userID int64) []byte { return fmt.Appendf(nil, "hush/user/%d/totp", userID) }

// RequireTwoFactor reports whether the instance requires every account to
// sign in with a second factor.
func (s *Service) RequireTwoFactor() bool { return s.requireTwoFactor }

// MustEnrol reports whether u must set up its second factor before it may
// do anything else: the instance requires one and u has none.
func (s *Service) MustEnrol(u *push.User) bool {
	return s.requireTwoFactor && u != nil && !u.HasTwoFactor()
}

// Enrolment is a second factor being set up: the secret as text and as an
// otpauth:// URL for a QR code.
type Enrolment struct {
	Secret string // base32, as authenticator apps take it typed in
	URL    string
}

// BeginEnrolment makes a new TOTP secret for u and keeps it, sealed, as
// u's enrolment under way, bound to u's auth epoch. issuer names this
// instance in the authenticator app.
func (s *Service) BeginEnrolment(ctx context.Context, u *push.User, issuer string) (*Enrolment, error) {
	if u.HasTwoFactor() {
		return nil, push.Errorf(push.CodeConflict, "%s", MsgTwoFactorOn)
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: u.Email, Period: totpPeriod,
		Digits: totpOpts.Digits, Algorithm: totpOpts.Algorithm})
	if err != nil {
		return nil, fmt.Errorf("make TOTP secret: %w", err)
	}
	sealed, err := s.keys.Seal(purposeTOTP, []byte(key.Secret()), totpAD(u.ID))
	if err != nil {
		return nil, err
	}
	err = s.store.BeginTwoFactor(ctx, u.ID, u.AuthEpoch, sealed, s.Now())
	if push.ErrorCode(err) == push.CodeConflict {
		return nil, push.Errorf(push.CodeConflict, "%s", MsgEnrolmentGone)
	}
	if err != nil {
		return nil, err
	}
	return &Enrolment{Secret: key.Secret(), URL: key.URL()}, nil
}

// PendingEnrolment returns u's enrolment under way, or nil when there is
// none that still holds (none was begun, or u's auth epoch moved on).
func (s *Service) PendingEnrolment(ctx context.Context, u *push.User, issuer string) (*Enrolment, error) {
	tf, err := s.store.TwoFactor(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	secret, err := s.pendingSecret(u, tf)
	if err != nil || secret == "" {
		return nil, err
	}
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(secret)
	if err != nil {
		return nil, fmt.Errorf("pending TOTP secret of user %d: %w", u.ID, err)
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: u.Email, Period: totpPeriod,
		Secret: raw, Digits: totpOpts.Digits, Algorithm: totpOpts.Algorithm})
	if err != nil {
		return nil, fmt.Errorf("pending TOTP secret of user %d: %w", u.ID, err)
	}
	return &Enrolment{Secret: key.Secret(), URL: key.URL()}, nil
}

// pendingSecret opens the secret of u's enrolment under way; "" when there
// is none or it was begun under another auth epoch.
func (s *Service) pendingSecret(u *push.User, tf *store.TwoFactor) (string, error) {
	if tf.Pending == nil || !secure.Equal([]byte(tf.PendingEpoch), []byte(u.AuthEpoch)) || tf.PendingEpoch == "" {
		return "", nil
	}
	b, err := s.keys.Open(purposeTOTP, tf.Pending, totpAD(u.ID))
	if err != nil {
		return "", fmt.Errorf("open pending TOTP secret of user %d: %w", u.ID, err)
	}
	return string(b), nil
}

// ConfirmEnrolment turns u's second factor on: the password (under the
// sign-in limits) and a code of the enrolment's secret (under the code
// limits) must be right. It returns u with its new auth epoch — every other
// session of the account ends — and the recovery codes, shown only now.
func (s *Service) ConfirmEnrolment(ctx context.Context, u *push.User, password, code string, m push.Meta) (*push.User, []string, error) {
	if err := s.checkPassword(ctx, u, password, m); err != nil {
		return nil, nil, err
	}
	tf, err := s.store.TwoFactor(ctx, u.ID)
	if err != nil {
		return nil, nil, err
	}
	secret, err := s.pendingSecret(u, tf)
	if err != nil {
		return nil, nil, err
	}
	if secret == "" {
		return nil, nil, push.Errorf(push.CodeConflict, "%s", MsgEnrolmentGone)
	}
	now := s.Now()
	sl, err := s.reserve(ctx, now, tooManyCodes, codeLimits(clientKey(m.IP), u.ID)...)
	if err != nil {
		return nil, nil, err
	}
	step, ok := matchTOTP(secret, normalizeCode(code), now)
	if !ok {
		return nil, nil, invalid("code", MsgBadCode)
	}
	codes, digests, err := newRecoveryCodes()
	if err != nil {
		return nil, nil, err
	}
	epoch, err := s.store.EnableTwoFactor(ctx, u.ID, u.AuthEpoch, tf.Pending, step, digests, now)
	if push.ErrorCode(err) == push.CodeConflict {
		return nil, nil, push.Errorf(push.CodeConflict, "%s", MsgEnrolmentGone)
	}
	if err != nil {
		return nil, nil, err
	}
	changed := *u
	changed.AuthEpoch, changed.TwoFactorAt = epoch, now
	return &changed, codes, s.release(ctx, sl)
}

// DisableTwoFactor turns u's second factor off after checking its password
// and a code (or a recovery code).
func (s *Service) DisableTwoFactor(ctx context.Context, u *push.User, password, code string, m push.Meta) error {
	if err := s.checkPassword(ctx, u, password, m); err != nil {
		return err
	}
	if _, err := s.checkCode(ctx, u, code, m); err != nil {
		return err
	}
	return s.store.DisableTwoFactor(ctx, u.ID, s.Now())
}

// RecoveryCodesLeft is how many unused recovery codes u has.
func (s *Service) RecoveryCodesLeft(ctx context.Context, u *push.User) (int, error) {
	tf, err := s.store.TwoFactor(ctx, u.ID)
	if err != nil {
		return 0, err
	}
	return tf.RecoveryLeft, nil
}

// PendingSignIn is the half-signed-in state between a right password and
// the code: it names the account and the auth epoch the password was
// checked under, and gives no rights. It lasts SignInCodeTimeout.
type PendingSignIn struct {
	UserID  int64
	Epoch   string
	Started time.Time
}

// StartSignInCode begins the half-signed-in state of u, whose password was
// right (SignIn) and which has a second factor.
func (s *Service) StartSignInCode(u *push.User) PendingSignIn {
	return PendingSignIn{UserID: u.ID, Epoch: u.AuthEpoch, Started: s.Now()}
}

// errSignInExpired ends a half-signed-in state that no longer holds.
var errSignInExpired = &push.Error{Code: push.CodeUnauthenticated, Message: MsgSignInExpired}

// FinishSignIn checks the code of a half-signed-in state and returns the
// account, signed in; recovery reports that a recovery code was spent. The
// state must be younger than SignInCodeTimeout and carry the account's
// current auth epoch (a password change, revoked sessions, disabling or
// deleting the account void it).
func (s *Service) FinishSignIn(ctx context.Context, p PendingSignIn, code string, m push.Meta) (u *push.User, recovery bool, err error) {
	if err := s.passwordOff(); err != nil {
		return nil, false, err
	}
	now := s.Now()
	if p.UserID == 0 || p.Epoch == "" || now.Sub(p.Started) > SignInCodeTimeout || p.Started.After(now.Add(time.Minute)) {
		return nil, false, errSignInExpired
	}
	u, err = s.store.UserByID(ctx, p.UserID)
	if push.ErrorCode(err) == push.CodeNotFound {
		return nil, false, errSignInExpired
	}
	if err != nil {
		return nil, false, err
	}
	if !secure.Equal([]byte(u.AuthEpoch), []byte(p.Epoch)) || u.Disabled() || !u.HasTwoFactor() {
		return nil, false, errSignInExpired
	}
	recovery, err = s.checkCode(ctx, u, code, m)
	if err != nil {
		return nil, false, err
	}
	return u, recovery, nil
}

// checkCode checks a TOTP code or a recovery code of u's second factor,
// spending it, under the code limits; recovery reports a recovery code.
func (s *Service) checkCode(ctx context.Context, u *push.User, code string, m push.Meta) (recovery bool, err error) {
	now := s.Now()
	sl, err := s.reserve(ctx, now, tooManyCodes, codeLimits(clientKey(m.IP), u.ID)...)
	if err != nil {
		return false, err
	}
	tf, err := s.store.TwoFactor(ctx, u.ID)
	if err != nil {
		return false, err
	}
	if tf.Secret == nil {
		return false, invalid("code", MsgBadCode)
	}
	c := normalizeCode(code)
	if len(c) == totpOpts.Digits.Length() {
		secret, err := s.keys.Open(purposeTOTP, tf.Secret, totpAD(u.ID))
		if err != nil {
			return false, fmt.Errorf("open TOTP secret of user %d: %w", u.ID, err)
		}
		step, ok := matchTOTP(string(secret), c, now)
		if !ok {
			return false, invalid("code", MsgBadCode)
		}
		fresh, err := s.store.UseTOTPStep(ctx, u.ID, step)
		if err != nil {
			return false, err
		}
		if !fresh {
			return false, invalid("code", MsgCodeUsed)
		}
		return false, s.release(ctx, sl)
	}
	if len(c) != recoveryLength {
		return false, invalid("code", MsgBadCode)
	}
	ok, err := s.store.UseRecoveryCode(ctx, u.ID, recoveryDigest(c))
	if err != nil {
		return false, err
	}
	if !ok {
		return false, invalid("code", MsgBadCode)
	}
	return true, s.release(ctx, sl)
}

// matchTOTP returns the time step whose code of secret is code, looking at
// now's step and totpSkew steps either way, every one compared in constant
// time.
func matchTOTP(secret, code string, now time.Time) (int64, bool) {
	if len(code) != totpOpts.Digits.Length() {
		return 0, false
	}
	cur := now.Unix() / totpPeriod
	var (
		step  int64
		found bool
	)
	for d := int64(-totpSkew); d <= totpSkew; d++ {
		want, err := hotp.GenerateCodeCustom(secret, uint64(cur+d), totpOpts)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && !found {
			step, found = cur+d, true
		}
	}
	return step, found
}

// recoveryAlphabet is Crockford's base 32, lower case: no i, l, o or u.
const recoveryAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// newRecoveryCodes returns recoveryCount fresh codes as shown to the user
// (xxxx-xxxx-xxxx-xxxx) and their digests, as stored.
func newRecoveryCodes() (codes, digests []string, err error) {
	buf := make([]byte, recoveryLength)
	for range recoveryCount {
		if _, err := rand.Read(buf); err != nil {
			return nil, nil, fmt.Errorf("make recovery code: %w", err)
		}
		var b strings.Builder
		for i, c := range buf {
			if i > 0 && i%4 == 0 {
				b.WriteByte('-')
			}
			b.WriteByte(recoveryAlphabet[c%32]) // 32 divides 256: no bias
		}
		codes = append(codes, b.String())
		digests = append(digests, recoveryDigest(normalizeCode(b.String())))
	}
	return codes, digests, nil
}

// recoveryDigest is how a recovery code is stored: its 80 random bits make
// a plain SHA-256 as safe as the API tokens' (secure.TokenDigest).
func recoveryDigest(normalized string) string {
	return secure.TokenDigest("hush-recovery:" + normalized)
}

// normalizeCode reads a code as typed: spaces and dashes dropped, lower
// case, and the letters Crockford's base 32 leaves out read as the digits
// they look like.
func normalizeCode(code string) string {
	if len(code) > 64 {
		return ""
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '\t':
			return -1
		case 'o', 'O':
			return '0'
		case 'i', 'I', 'l', 'L':
			return '1'
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, code)
}
