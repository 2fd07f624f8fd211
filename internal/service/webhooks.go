package service

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hush/internal/mail"
	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/store"
)

// Signed webhooks (docs/decisions.md, D48 and D49). An account registers
// endpoints for the events of its pushes, an admin for those of every
// push. The store writes a message per event and endpoint in the
// transaction of the event (store/webhook.go), with what the audit log
// records of it; the outbox worker delivers it, signed as the Standard
// Webhooks specification says, through a WebhookPoster that refuses
// private addresses when it connects. A failed delivery is tried again,
// waiting twice as long each time (30 s up to 4 hours), for a day, the
// last time when the day ends; an endpoint whose deliveries have all
// failed for a day is turned off, and its owner emailed.
const (
	hookFirstTry     = 30 * time.Second
	hookMaxWait      = 4 * time.Hour
	hookRetryWindow  = 24 * time.Hour // a message is tried for a day
	hookDisableAfter = 24 * time.Hour // an endpoint failing for a day is turned off
	// HookKeep is how long a message and its delivery log are kept.
	HookKeep = 30 * 24 * time.Hour
	// hookSecretBytes is the length of a signing secret.
	hookSecretBytes = 32
	// HookSecretPrefix begins a signing secret as shown.
	HookSecretPrefix = "whsec_"
	maxHookURL       = 2048
	purposeHook      = "webhook-secret"
	kindWebhook      = store.OutboxKindWebhook
)

// WebhookPoster delivers one signed webhook request: a POST of body with
// the headers to rawURL, and the status of the answer. hush/internal/webhook
// is the one Hush uses: it connects to public addresses only (unless told
// otherwise), follows no redirect and bounds time and the answer's size.
type WebhookPoster interface {
	Post(ctx context.Context, rawURL string, header map[string]string, body []byte) (status int, err error)
}

// errHookGiveUp ends the delivery of a webhook message: its day of tries
// is over, or its endpoint was turned off.
var errHookGiveUp = errors.New("webhook: given up")

// hookWait is how long a webhook message waits after its attempt-th
// failure.
func hookWait(attempt int) time.Duration {
	d := hookFirstTry
	for i := 1; i < attempt && d < hookMaxWait; i++ {
		d *= 2
	}
	return min(d, hookMaxWait)
}

// WebhooksEnabled reports whether this instance delivers webhooks.
func (s *Service) WebhooksEnabled() bool { return s.hooks != nil }

// WebhookAllowPrivate reports whether endpoints may be http URLs and name
// private addresses (HUSH_WEBHOOK_ALLOW_PRIVATE).
func (s *Service) WebhookAllowPrivate() bool { return s.hookAllowPrivate }

// MaxWebhooks is the most endpoints an account, or the instance, has.
const MaxWebhooks = store.MaxWebhooksPerOwner

// WebhookInput is a new endpoint, or a change to one (nil fields stay).
type WebhookInput struct {
	URL    string
	Events []string
	// Instance asks for an endpoint of the instance (every push), which
	// only an admin may have.
	Instance bool
	Enabled  *bool
}

// errHooksOff answers the webhook requests of an instance without them.
var errHooksOff = &push.Error{Code: push.CodeNotFound, Message: "Not Found"}

// CheckHookURL checks an endpoint's URL: https (http only where private
// addresses are allowed), a host, no credentials or fragment, and, when
// the host is an address, a public one unless private ones are allowed.
func (s *Service) CheckHookURL(raw string) []string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return []string{"can't be blank"}
	}
	if len(raw) > maxHookURL {
		return []string{fmt.Sprintf("is too long (maximum is %d characters)", maxHookURL)}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" || u.Opaque != "" {
		return []string{"is not a valid URL"}
	}
	return append(s.hookScheme(u.Scheme), s.hookURLParts(raw, u)...)
}

// hookScheme checks an endpoint's scheme: https, or http where private
// addresses are allowed.
func (s *Service) hookScheme(scheme string) []string {
	switch {
	case scheme == "https", scheme == "http" && s.hookAllowPrivate:
		return nil
	case scheme == "http":
		return []string{"must use https"}
	}
	return []string{"must be an https URL"}
}

// hookURLParts checks the parts of an endpoint's URL but its scheme. The
// pages show the URL as given: it must show as written, and so must its
// host once unescaped (shownAsWritten).
func (s *Service) hookURLParts(raw string, u *url.URL) []string {
	var errs []string
	if !shownAsWritten(raw) || !shownAsWritten(u.Hostname()) {
		errs = append(errs, "must not hold a control or formatting character")
	}
	if u.User != nil {
		errs = append(errs, "must not hold a user name or password")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		errs = append(errs, "must not hold a fragment (#)")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			errs = append(errs, "has an invalid port")
		}
	}
	if a, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && !s.hookAllowPrivate && push.HookAddrRefused(a) {
		errs = append(errs, "must not name a private, loopback or link-local address")
	}
	return errs
}

// hookEvents reads the events of an input: at least one, all known.
func hookEvents(names []string, errs push.FieldErrors) push.HookEvents {
	set, unknown := push.ParseHookEvents(names)
	for _, u := range unknown {
		errs.Add("events", fmt.Sprintf("%q is not an event (%s)", u, strings.Join(push.HookEventNames(), ", ")))
	}
	if set == 0 && len(unknown) == 0 {
		errs.Add("events", "can't be empty")
	}
	return set
}

// CreateWebhook registers an endpoint for u (an instance endpoint when
// in.Instance, for an admin) and returns it with its signing secret,
// which is shown this once.
func (s *Service) CreateWebhook(ctx context.Context, u *push.User, in WebhookInput) (*push.Webhook, string, error) {
	if s.hooks == nil {
		return nil, "", errHooksOff
	}
	if u == nil {
		return nil, "", &push.Error{Code: push.CodeUnauthenticated, Message: MsgSignIn}
	}
	if in.Instance && !u.Admin {
		return nil, "", &push.Error{Code: push.CodeForbidden, Message: "Only an admin may add endpoints for the whole instance."}
	}
	errs := push.FieldErrors{}
	for _, m := range s.CheckHookURL(in.URL) {
		errs.Add("url", m)
	}
	events := hookEvents(in.Events, errs)
	if err := errs.Err(); err != nil {
		return nil, "", err
	}
	raw := make([]byte, hookSecretBytes)
	rand.Read(raw)
	ref := store.NewOutboxRef()
	sealed, err := s.keys.Seal(purposeHook, raw, hookAD(ref))
	if err != nil {
		return nil, "", fmt.Errorf("seal webhook secret: %w", err)
	}
	w := &push.Webhook{URL: strings.TrimSpace(in.URL), Events: events, Enabled: in.Enabled == nil || *in.Enabled,
		CreatedAt: s.Now()}
	if !in.Instance {
		w.UserID = u.ID
	}
	if err := s.store.CreateWebhook(ctx, w, sealed, ref); err != nil {
		return nil, "", err
	}
	return w, HookSecretPrefix + base64.StdEncoding.EncodeToString(raw), nil
}

// hookAD binds a sealed signing secret to its endpoint's ref.
func hookAD(ref string) []byte { return []byte("hush/webhook/" + ref) }

// resealHook re-seals a signing secret under the current master key.
func resealHook(keys *secure.Keyring, ref string, sealed []byte) ([]byte, bool, error) {
	plain, err := keys.Open(purposeHook, sealed, hookAD(ref))
	if err != nil {
		return nil, false, err
	}
	out, err := keys.Seal(purposeHook, plain, hookAD(ref))
	return out, err == nil, err
}

// Webhooks lists u's endpoints, or the instance's (for an admin).
func (s *Service) Webhooks(ctx context.Context, u *push.User, instance bool) ([]*push.Webhook, error) {
	if err := s.hookCaller(u, instance); err != nil {
		return nil, err
	}
	if instance {
		return s.store.Webhooks(ctx, 0)
	}
	return s.store.Webhooks(ctx, u.ID)
}

// hookCaller checks that u may see the endpoints of its account, or the
// instance's.
func (s *Service) hookCaller(u *push.User, instance bool) error {
	switch {
	case s.hooks == nil:
		return errHooksOff
	case u == nil:
		return &push.Error{Code: push.CodeUnauthenticated, Message: MsgSignIn}
	case instance && !u.Admin:
		return &push.Error{Code: push.CodeForbidden, Message: "Only an admin may see the instance's endpoints."}
	}
	return nil
}

// Webhook loads endpoint id for u: its own, or the instance's for an
// admin. Any other is not found, so ids tell a stranger nothing.
func (s *Service) Webhook(ctx context.Context, u *push.User, id int64) (*push.Webhook, error) {
	if err := s.hookCaller(u, false); err != nil {
		return nil, err
	}
	w, err := s.store.Webhook(ctx, id)
	if err != nil {
		return nil, err
	}
	if w.UserID != u.ID && (w.UserID != 0 || !u.Admin) {
		return nil, push.ErrNotFound
	}
	return w, nil
}

// UpdateWebhook changes the events or the state of endpoint id.
func (s *Service) UpdateWebhook(ctx context.Context, u *push.User, id int64, in WebhookInput) (*push.Webhook, error) {
	w, err := s.Webhook(ctx, u, id)
	if err != nil {
		return nil, err
	}
	events, enabled := w.Events, w.Enabled
	if in.Events != nil {
		errs := push.FieldErrors{}
		events = hookEvents(in.Events, errs)
		if err := errs.Err(); err != nil {
			return nil, err
		}
	}
	if in.Enabled != nil {
		enabled = *in.Enabled
	}
	if err := s.store.UpdateWebhook(ctx, id, events, enabled, s.Now()); err != nil {
		return nil, err
	}
	return s.store.Webhook(ctx, id)
}

// DeleteWebhook deletes endpoint id with its delivery log.
func (s *Service) DeleteWebhook(ctx context.Context, u *push.User, id int64) error {
	if _, err := s.Webhook(ctx, u, id); err != nil {
		return err
	}
	return s.store.DeleteWebhook(ctx, id)
}

// HookDeliveries is one page of an endpoint's delivery log and its latest
// messages.
type HookDeliveries struct {
	Attempts []push.HookAttempt
	Messages []*push.HookMessage
}

// HookPageSize is the length of a page of the delivery log.
const HookPageSize = 50

// WebhookDeliveries returns page (from 1) of endpoint id's delivery log.
func (s *Service) WebhookDeliveries(ctx context.Context, u *push.User, id int64, page int) (HookDeliveries, error) {
	var d HookDeliveries
	if _, err := s.Webhook(ctx, u, id); err != nil {
		return d, err
	}
	page = max(page, 1)
	var err error
	if d.Attempts, err = s.store.HookAttempts(ctx, id, HookPageSize, (page-1)*HookPageSize); err != nil {
		return d, err
	}
	d.Messages, err = s.store.HookMessages(ctx, id, HookPageSize, (page-1)*HookPageSize)
	return d, err
}

// Redeliver queues message messageID of endpoint id again, due at once.
func (s *Service) Redeliver(ctx context.Context, u *push.User, id, messageID int64) error {
	w, err := s.Webhook(ctx, u, id)
	if err != nil {
		return err
	}
	if !w.Enabled {
		return &push.Error{Code: push.CodeInvalid, Fields: push.FieldErrors{"base": {"The endpoint is turned off; turn it on first."}}}
	}
	ok, err := s.store.Redeliver(ctx, id, messageID, s.Now())
	if err != nil {
		return err
	}
	if !ok {
		return &push.Error{Code: push.CodeConflict, Message: "A delivery of this message is already waiting."}
	}
	return nil
}

// hookBody is the JSON body of a message: what happened to which push,
// when, from where, as the audit log records it — never its payload, note,
// passphrase, file names or link. The push is named by the digest of its
// token (the SHA-256 the database keeps), and by its name when it has one.
type hookBody struct {
	Type      string       `json:"type"`
	ID        string       `json:"id"`
	Timestamp string       `json:"timestamp"`
	Data      hookBodyData `json:"data"`
}

type hookBodyData struct {
	Push      hookBodyPush `json:"push"`
	IP        string       `json:"ip,omitempty"`
	UserAgent string       `json:"user_agent,omitempty"`
}

type hookBodyPush struct {
	Digest    string `json:"digest"`
	Name      string `json:"name,omitempty"`
	Kind      string `json:"kind"`
	ViewsLeft int    `json:"views_left"`
	DaysLeft  int    `json:"days_left"`
}

// HookBody writes the body of message m; the same on every attempt.
func HookBody(m *push.HookMessage) ([]byte, error) {
	days := 0
	if left := m.ExpiresAt.Sub(m.CreatedAt); left > 0 && m.ViewsLeft > 0 {
		days = int((left + 24*time.Hour - 1) / (24 * time.Hour))
	}
	return json.Marshal(hookBody{Type: m.Event.String(), ID: m.EventID, Timestamp: m.CreatedAt.UTC().Format(time.RFC3339Nano),
		Data: hookBodyData{IP: m.IP, UserAgent: m.UserAgent, Push: hookBodyPush{Digest: tokenDigest(m.TokenKey),
			Name: m.PushName, Kind: string(m.PushKind), ViewsLeft: m.ViewsLeft, DaysLeft: days}}})
}

// tokenDigest is the digest part of a token key (without the time prefix
// the link begins with).
func tokenDigest(key string) string {
	if d, ok := strings.CutPrefix(key, "~"); ok {
		return d
	}
	if len(key) > 8 {
		return key[8:]
	}
	return ""
}

// SignHook is the webhook-signature of a body: "v1," and the base64 of
// HMAC-SHA256(secret, id "." timestamp "." body).
func SignHook(secret []byte, msgID string, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(msgID + "." + strconv.FormatInt(ts, 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// hookTarget is what a delivery needs of a message: the message, its
// endpoint and the endpoint's secret; errNothingToSend when either is gone
// or the endpoint is off.
func (s *Service) hookTarget(ctx context.Context, m store.OutboxMessage) (*push.HookMessage, *push.Webhook, []byte, error) {
	msg, err := s.store.HookMessage(ctx, m.SubjectID)
	if push.ErrorCode(err) == push.CodeNotFound {
		return nil, nil, nil, errNothingToSend
	}
	if err != nil {
		return nil, nil, nil, err
	}
	ep, err := s.store.Webhook(ctx, msg.EndpointID)
	if push.ErrorCode(err) == push.CodeNotFound {
		return nil, nil, nil, errNothingToSend
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if !ep.Enabled {
		return nil, nil, nil, errors.Join(errNothingToSend, s.store.SetHookState(ctx, msg.ID, push.HookFailed, s.Now()))
	}
	sealed, ref, err := s.store.WebhookSecret(ctx, ep.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	secret, err := s.keys.Open(purposeHook, sealed, hookAD(ref))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: open the secret of webhook %d: %v", errHookGiveUp, ep.ID, err)
	}
	return msg, ep, secret, nil
}

// sendHook delivers the webhook message an outbox message names, logs the
// attempt and keeps the endpoint's record of failures.
func (s *Service) sendHook(ctx context.Context, m store.OutboxMessage) error {
	if s.hooks == nil {
		return fmt.Errorf("webhooks are off on this instance")
	}
	msg, ep, secret, err := s.hookTarget(ctx, m)
	if err != nil {
		return err
	}
	body, err := HookBody(msg)
	if err != nil {
		return err
	}
	now := s.Now()
	header := map[string]string{
		"Content-Type":      "application/json",
		"User-Agent":        "Hush-Webhooks/1",
		"webhook-id":        msg.MsgID,
		"webhook-timestamp": strconv.FormatInt(now.Unix(), 10),
		"webhook-signature": SignHook(secret, msg.MsgID, now.Unix(), body),
	}
	start := time.Now()
	status, perr := s.hooks.Post(ctx, ep.URL, header, body)
	o := store.HookOutcome{Message: msg, StatusCode: status, Latency: time.Since(start), At: s.Now(),
		Delivered: perr == nil && status >= 200 && status < 300}
	if !o.Delivered {
		o.Error = hookError(status, perr)
		o.NextRetry = hookNextTry(o.At, m.CreatedAt, m.Attempts)
		if !ep.FailingSince.IsZero() && o.At.Sub(ep.FailingSince) >= hookDisableAfter {
			o.Disable = fmt.Sprintf("every delivery failed for a day (since %s)", ep.FailingSince.UTC().Format(mailTimeFormat))
			o.NextRetry = time.Time{}
		}
	}
	off, err := s.store.RecordHookAttempt(context.WithoutCancel(ctx), o)
	if err != nil {
		return err
	}
	if off {
		s.hookTurnedOff(context.WithoutCancel(ctx), ep, o.Disable)
	}
	switch {
	case o.Delivered:
		return nil
	case o.NextRetry.IsZero():
		return fmt.Errorf("%w: %s", errHookGiveUp, o.Error)
	}
	return errors.New(o.Error)
}

// hookNextTry is when a message queued at queued and failed at now for
// the attempt-th time is tried again: after hookWait, the last time at the
// end of its day; zero once the day is over.
func hookNextTry(now, queued time.Time, attempt int) time.Time {
	next, deadline := now.Add(hookWait(attempt)), queued.Add(hookRetryWindow)
	switch {
	case !next.After(deadline):
		return next
	case now.Before(deadline):
		return deadline
	}
	return time.Time{}
}

// hookError says why an attempt failed, for the delivery log.
func hookError(status int, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("the endpoint answered %d", status)
}

// hookTurnedOff tells the owner of an endpoint that Hush turned it off,
// by email when Hush sends email; an instance endpoint has no owner to
// tell, and the log says it.
func (s *Service) hookTurnedOff(ctx context.Context, ep *push.Webhook, why string) {
	s.log.Warn("webhooks: an endpoint was turned off", "endpoint", ep.ID, "reason", why)
	if s.mail == nil || ep.UserID == 0 {
		return
	}
	u, err := s.store.UserByID(ctx, ep.UserID)
	if err != nil {
		return
	}
	d := mail.HookOffData{Origin: s.origin, URL: ep.URL}
	if s.origin != "" {
		d.Page = s.origin + "/users/webhooks"
	}
	loc := s.userLang(u)
	d.Since = loc.Date(ep.FailingSince)
	msg, err := mail.RenderIn(loc.Lang().Code, mail.TemplateHookOff, d)
	if err != nil {
		s.log.Warn("webhooks: could not write the email of an endpoint turned off", "endpoint", ep.ID, "err", err)
		return
	}
	msg.To = u.Email
	q, err := s.queueEmail(msg)
	if err == nil {
		err = s.store.Enqueue(ctx, s.Now(), q)
	}
	if err != nil {
		s.log.Warn("webhooks: could not queue the email of an endpoint turned off", "endpoint", ep.ID, "err", err)
		return
	}
	s.wake()
}
