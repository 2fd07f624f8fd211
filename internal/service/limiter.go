package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"hush/internal/push"
	"hush/internal/ratelimit"
	"hush/internal/store"
)

// Every limit on guessing or on expensive work follows one rule:
//
//   - reserve before the work: the attempt takes its slot first, atomically
//     (store.Reserve), so requests that arrive together cannot all pass a
//     check that was made before any of them was counted;
//   - count in the database, so every instance shares the counters;
//   - key it so that a stranger cannot lock out the legitimate user: by the
//     client (its address, an IPv6 client by its /64) and the thing
//     guessed at, with a higher ceiling per thing for many clients together;
//   - release the slot when the work shows the attempt was legitimate (a
//     right passphrase or password), so that only failures count.
//
// Passphrases, sign-ins, second-factor codes, sign-ups and the de-duplication of audit entries
// that count no view all go through reserve.

// bucket names a counter by a digest of its parts, so the table holds no
// address, email or token.
func bucket(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// clientKey is the key a client is limited by (ratelimit.Key).
func clientKey(ip string) string { return ratelimit.Key(ip) }

// slot is a reservation: the rate events it took.
type slot []int64

// reserve takes a slot under every limit, or returns a CodeTooMany error
// whose message, made by tooMany from the wait, says when to retry. A
// read-only look at the counters first turns away a client that is over its
// limit without writing anything; a slot is only ever granted by
// store.Reserve, which checks and takes it in one transaction.
func (s *Service) reserve(ctx context.Context, now time.Time, tooMany func(time.Duration) string, limits ...store.Limit) (slot, error) {
	wait, err := s.fullFor(ctx, now, limits)
	if err != nil {
		return nil, err
	}
	if wait == 0 {
		// Free at the last commit (or freed since the look): take it.
		var ids []int64
		if ids, wait, err = s.store.Reserve(ctx, now, limits...); err != nil {
			return nil, err
		}
		if wait == 0 {
			return ids, nil
		}
	}
	return nil, &push.Error{Code: push.CodeTooMany, Message: tooMany(wait), RetryAfter: wait}
}

// fullFor is how long until every limit has a free slot at now, as the
// last commit left them, without taking the writer: 0 when no limit is
// full.
func (s *Service) fullFor(ctx context.Context, now time.Time, limits []store.Limit) (time.Duration, error) {
	for _, l := range limits {
		n, err := s.store.CountEvents(ctx, l.Bucket, now, l.Window)
		if err != nil {
			return 0, err
		}
		if n >= l.Max {
			return s.store.Wait(ctx, now, limits...)
		}
	}
	return 0, nil
}

// release gives a slot back: the attempt succeeded.
func (s *Service) release(ctx context.Context, sl slot) error {
	return s.store.Release(context.WithoutCancel(ctx), sl)
}

// retryIn says when to try again in words that agree with Retry-After: "in
// a minute" up to a minute, else the minutes rounded up.
func retryIn(wait time.Duration) string {
	if wait <= time.Minute {
		return "in a minute"
	}
	return fmt.Sprintf("in %d minutes", int((wait+time.Minute-1)/time.Minute))
}

// Passphrase guessing: failed attempts only count (a right passphrase gives
// its slot back). Per client and push, and a ceiling per push from every
// client: whoever holds the link can spend that ceiling and keep the real
// recipient out for up to an hour, but cannot read the push.
const (
	guessPerClient       = 5
	guessPerClientWindow = time.Minute
	guessPerPush         = 20
	guessPerPushWindow   = time.Hour
)

func passphraseLimits(tokenKey, client string) []store.Limit {
	return []store.Limit{
		{Bucket: bucket("passphrase-client", tokenKey, client), Max: guessPerClient, Window: guessPerClientWindow},
		{Bucket: bucket("passphrase-push", tokenKey), Max: guessPerPush, Window: guessPerPushWindow},
	}
}

// tooManyGuesses is the 429 message of the passphrase limits. Up to a
// minute it is Password Pusher's own text, which clients match on.
func tooManyGuesses(wait time.Duration) string {
	if wait <= time.Minute {
		return MsgTooManyGuess
	}
	return "Too many passphrase attempts. Please try again " + retryIn(wait) + "."
}

// Sign-in limits. Every attempt reserves (the password hashing an attacker
// can cause is bounded); a successful one gives its slots back. One client
// gets 5 tries a minute at one account and 20 a minute over all accounts; an
// account takes at most 50 failures an hour from all clients together, so
// locking its owner out takes at least ten clients (addresses or IPv6 /64s)
// working at once.
const (
	signInPerClientEmail = 5
	signInPerClient      = 20
	signInWindow         = time.Minute
	signInPerEmail       = 50
	signInPerEmailWindow = time.Hour
)

func signInLimits(client, email string) []store.Limit {
	return []store.Limit{
		{Bucket: bucket("signin-client-email", client, email), Max: signInPerClientEmail, Window: signInWindow},
		{Bucket: bucket("signin-client", client), Max: signInPerClient, Window: signInWindow},
		{Bucket: bucket("signin-email", email), Max: signInPerEmail, Window: signInPerEmailWindow},
	}
}

func tooManySignIns(wait time.Duration) string {
	return "Too many sign-in attempts. Please try again " + retryIn(wait) + "."
}

// Second-factor codes (TOTP and recovery codes), at sign-in and when the
// second factor is turned on or off. Only a client that knew the password
// gets to try a code, so the ceilings per account can be low: one client
// gets 5 tries a minute at an account and 20 a minute over all accounts,
// and an account takes at most 10 failures an hour and 30 a day from all
// clients together. A code is 6 digits and 3 are accepted at a time (the
// steps before and after now too), so a guess is right once in 333,333:
// at 30 a day, a year of guessing succeeds with odds of about 3 in 100.
// Whoever has the password can keep the owner from signing in for up to a
// day this way; the owner's API token keeps working.
const (
	codePerClientAccount = 5
	codePerClient        = 20
	codeWindow           = time.Minute
	codePerAccountHour   = 10
	codePerAccountDay    = 30
)

func codeLimits(client string, userID int64) []store.Limit {
	account := fmt.Sprint(userID)
	return []store.Limit{
		{Bucket: bucket("code-client-account", client, account), Max: codePerClientAccount, Window: codeWindow},
		{Bucket: bucket("code-client", client), Max: codePerClient, Window: codeWindow},
		{Bucket: bucket("code-account-hour", account), Max: codePerAccountHour, Window: time.Hour},
		{Bucket: bucket("code-account-day", account), Max: codePerAccountDay, Window: longestWindow},
	}
}

// longestWindow is the longest window of any limit: the sweeper keeps rate
// events that long.
const longestWindow = 24 * time.Hour

func tooManyCodes(wait time.Duration) string {
	return "Too many wrong codes. Please try again " + retryIn(wait) + "."
}

// Sign-ups: 5 accounts an hour per client, so the sign-up form cannot be
// used to sweep for which addresses have accounts, nor to fill the users
// table.
const (
	signUpPerClient       = 5
	signUpPerClientWindow = time.Hour
)

// Where sign-ups are emailed (a confirmation link, or a notice to the owner
// of a taken address), 3 an hour per address from every client together,
// whether or not it has an account: the emails asked for by address have
// the same kind of bound (mailLimits).
const signUpMailPerEmail = 3

func signUpMailLimit(email string) store.Limit {
	return store.Limit{Bucket: bucket("signup-email", email), Max: signUpMailPerEmail, Window: mailWindow}
}

func tooManySignUps(wait time.Duration) string {
	return "Too many accounts were created from your address. Please try again " + retryIn(wait) + "."
}

// Audit entries that count no view (a recipient without the passphrase, a
// file download) are written once per client, push and minute: repeating
// the request cannot fill the audit log, and the log's cap keeps room for
// every view that is left (store.logCapped).
const noiseWindow = time.Minute

// logNoise writes a non-counting audit entry of a push unless this client
// already caused the same one about the same subject (the push, a file)
// within the window.
func (s *Service) logNoise(ctx context.Context, pushID int64, subject string, ev push.Event) error {
	l := store.Limit{Bucket: bucket("audit-noise", ev.Kind.String(), subject, clientKey(ev.IP)), Max: 1, Window: noiseWindow}
	_, err := s.reserve(ctx, ev.CreatedAt, retryIn, l)
	if push.ErrorCode(err) == push.CodeTooMany {
		return nil
	}
	if err != nil {
		return err
	}
	return s.store.LogEvent(ctx, pushID, ev)
}

// Emails asked for by address (a password reset, a new confirmation link):
// 3 an hour per client and address, 10 an hour per client, and 10 an hour
// per address from every client together, so that the form cannot fill
// someone's mailbox, and a stranger who spends an address's allowance keeps
// its owner waiting an hour at most. Every request counts, whether or not
// the address has an account, so the limits tell nothing about accounts.
const (
	mailPerClientEmail = 3
	mailPerClient      = 10
	mailPerEmail       = 10
	mailWindow         = time.Hour
)

func mailLimits(kind, client, email string) []store.Limit {
	return []store.Limit{
		{Bucket: bucket(kind+"-client-email", client, email), Max: mailPerClientEmail, Window: mailWindow},
		{Bucket: bucket(kind+"-client", client), Max: mailPerClient, Window: mailWindow},
		{Bucket: bucket(kind+"-email", email), Max: mailPerEmail, Window: mailWindow},
	}
}

func tooManyMails(wait time.Duration) string {
	return "Too many emails were asked for. Please try again " + retryIn(wait) + "."
}

// Emailing a push's link (notify_emails): 5 requests a minute per user, as
// Password Pusher.
const (
	notifyPerUser       = 5
	notifyPerUserWindow = time.Minute
)

func notifyLimit(userID int64) store.Limit {
	return store.Limit{Bucket: bucket("notify-user", fmt.Sprint(userID)), Max: notifyPerUser, Window: notifyPerUserWindow}
}

// tooManyNotify is Password Pusher's 429 message while the wait is a
// minute or less.
func tooManyNotify(wait time.Duration) string {
	return "Too many email notification requests. Please try again " + retryIn(wait) + "."
}

// A receipt of wrong passphrases is emailed once per push in this window;
// the audit log lists every one.
const receiptQuiet = 15 * time.Minute

func failedReceiptLimit(tokenKey string) store.Limit {
	return store.Limit{Bucket: bucket("receipt-failed-passphrase", tokenKey), Max: 1, Window: receiptQuiet}
}
