package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"hush/internal/httpx"
	"hush/internal/push"
	"hush/internal/service"
)

// The webhook endpoints of the API (docs/decisions.md, D48): an account's
// endpoints, and with ?scope=instance an admin's endpoints for every push.
// Every route needs an API token; an endpoint of another account is 404.

// maxHookBody bounds the body of a webhook request.
const maxHookBody = 64 << 10

type webhookJSON struct {
	ID             int64    `json:"id"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	Enabled        bool     `json:"enabled"`
	Scope          string   `json:"scope"`
	DisabledReason string   `json:"disabled_reason,omitempty"`
	FailingSince   *string  `json:"failing_since"`
	CreatedAt      string   `json:"created_at"`
	UpdatedAt      string   `json:"updated_at"`
	// Secret is shown once, in the answer of the create.
	Secret string `json:"secret,omitempty"`
}

func renderWebhook(w *push.Webhook) webhookJSON {
	out := webhookJSON{ID: w.ID, URL: w.URL, Events: w.Events.Names(), Enabled: w.Enabled, Scope: "account",
		DisabledReason: w.DisabledReason, CreatedAt: formatTime(w.CreatedAt), UpdatedAt: formatTime(w.UpdatedAt)}
	if w.UserID == 0 {
		out.Scope = "instance"
	}
	if !w.FailingSince.IsZero() {
		t := formatTime(w.FailingSince)
		out.FailingSince = &t
	}
	return out
}

type hookAttemptJSON struct {
	ID         int64   `json:"id"`
	MessageID  int64   `json:"message_id"`
	WebhookID  string  `json:"webhook_id"`
	Event      string  `json:"event"`
	Attempt    int     `json:"attempt"`
	StatusCode *int    `json:"status_code"`
	LatencyMS  int64   `json:"latency_ms"`
	Error      string  `json:"error,omitempty"`
	NextRetry  *string `json:"next_retry_at"`
	CreatedAt  string  `json:"created_at"`
}

type hookMessageJSON struct {
	ID         int64  `json:"id"`
	WebhookID  string `json:"webhook_id"`
	EventID    string `json:"event_id"`
	Event      string `json:"event"`
	State      string `json:"state"`
	Attempts   int    `json:"attempts"`
	LastStatus *int   `json:"last_status"`
	CreatedAt  string `json:"created_at"`
}

// hookScope reads ?scope: "account" (the default) or "instance".
func hookScope(r *http.Request) (bool, error) {
	switch v := httpx.Query(r, "scope"); v {
	case "", "account":
		return false, nil
	case "instance":
		return true, nil
	}
	return false, badRequest("scope must be account or instance")
}

// hookID reads the endpoint id of the path; an id that is not one is 404.
func hookID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, push.ErrNotFound
	}
	return id, nil
}

// userAndHook is the signed-in caller and the endpoint id of the path,
// checked in that order (an anonymous caller learns nothing of ids).
func (s *Server) userAndHook(r *http.Request) (*push.User, int64, error) {
	user, err := s.requireUser(r)
	if err != nil {
		return nil, 0, err
	}
	id, err := hookID(r, "id")
	return user, id, err
}

// listWebhooks answers GET /api/v2/webhooks.
func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	user, err := s.requireUser(r)
	if err != nil {
		return err
	}
	instance, err := hookScope(r)
	if err != nil {
		return err
	}
	list, err := s.svc.Webhooks(r.Context(), user, instance)
	if err != nil {
		return err
	}
	out := make([]webhookJSON, len(list))
	for i, h := range list {
		out[i] = renderWebhook(h)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// hookBody reads a webhook request's JSON object, with or without a
// "webhook" wrapper.
func (s *Server) hookBody(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxHookBody)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, bodyError(err)
	}
	if !utf8.Valid(body) {
		return nil, badRequest("The request body is not valid UTF-8.")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, badRequest("The request body is not a JSON object.")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badRequest("The request body is not valid JSON.")
	}
	if inner, ok := obj["webhook"]; ok && len(obj) == 1 {
		obj = nil
		if err := json.Unmarshal(inner, &obj); err != nil || obj == nil {
			return nil, badRequest("webhook must be a JSON object.")
		}
	}
	return obj, nil
}

// hookInput reads url, events, enabled and scope from a body; events may
// be a list of names or one comma-separated string.
func hookInput(obj map[string]json.RawMessage) (service.WebhookInput, error) {
	var in service.WebhookInput
	errs := push.FieldErrors{}
	if raw, ok := obj["url"]; ok {
		if json.Unmarshal(raw, &in.URL) != nil {
			errs.Add("url", "must be a string")
		}
	}
	if raw, ok := obj["events"]; ok {
		var one string
		switch {
		case json.Unmarshal(raw, &in.Events) == nil:
			if in.Events == nil {
				in.Events = []string{}
			}
		case json.Unmarshal(raw, &one) == nil:
			in.Events = strings.Split(one, ",")
		default:
			errs.Add("events", "must be a list of event names")
		}
	}
	if raw, ok := obj["enabled"]; ok {
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			errs.Add("enabled", "must be true or false")
		}
		in.Enabled = &b
	}
	if raw, ok := obj["scope"]; ok {
		var scope string
		_ = json.Unmarshal(raw, &scope)
		switch scope {
		case "account":
		case "instance":
			in.Instance = true
		default:
			errs.Add("scope", "must be account or instance")
		}
	}
	return in, errs.Err()
}

// createWebhook answers POST /api/v2/webhooks: 201 with the endpoint and
// its signing secret, which no other answer shows.
func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) error {
	user, err := s.requireUser(r)
	if err != nil {
		return err
	}
	obj, err := s.hookBody(w, r)
	if err != nil {
		return err
	}
	in, err := hookInput(obj)
	if err != nil {
		return err
	}
	if in.Events == nil {
		in.Events = []string{}
	}
	h, secret, err := s.svc.CreateWebhook(r.Context(), user, in)
	if err != nil {
		return err
	}
	out := renderWebhook(h)
	out.Secret = secret
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// showWebhook answers GET /api/v2/webhooks/{id}.
func (s *Server) showWebhook(w http.ResponseWriter, r *http.Request) error {
	user, id, err := s.userAndHook(r)
	if err != nil {
		return err
	}
	h, err := s.svc.Webhook(r.Context(), user, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, renderWebhook(h))
	return nil
}

// updateWebhook answers PATCH (and PUT) /api/v2/webhooks/{id}: events
// and enabled; the URL of an endpoint does not change (delete it and add
// another, with a new secret).
func (s *Server) updateWebhook(w http.ResponseWriter, r *http.Request) error {
	user, id, err := s.userAndHook(r)
	if err != nil {
		return err
	}
	obj, err := s.hookBody(w, r)
	if err != nil {
		return err
	}
	if _, ok := obj["url"]; ok {
		return &push.Error{Code: push.CodeInvalid, Fields: push.FieldErrors{"url": {"cannot be changed; add a new endpoint"}}}
	}
	in, err := hookInput(obj)
	if err != nil {
		return err
	}
	h, err := s.svc.UpdateWebhook(r.Context(), user, id, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, renderWebhook(h))
	return nil
}

// deleteWebhook answers DELETE /api/v2/webhooks/{id}.
func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	user, id, err := s.userAndHook(r)
	if err != nil {
		return err
	}
	if err := s.svc.DeleteWebhook(r.Context(), user, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// webhookDeliveries answers GET /api/v2/webhooks/{id}/deliveries: a page
// of the delivery log (attempts, newest first) and of the messages.
func (s *Server) webhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	user, id, err := s.userAndHook(r)
	if err != nil {
		return err
	}
	page, err := pageParam(r)
	if err != nil {
		return err
	}
	d, err := s.svc.WebhookDeliveries(r.Context(), user, id, page)
	if err != nil {
		return err
	}
	out := struct {
		Attempts []hookAttemptJSON `json:"attempts"`
		Messages []hookMessageJSON `json:"messages"`
	}{Attempts: make([]hookAttemptJSON, len(d.Attempts)), Messages: make([]hookMessageJSON, len(d.Messages))}
	for i, a := range d.Attempts {
		out.Attempts[i] = hookAttemptJSON{ID: a.ID, MessageID: a.MessageID, WebhookID: a.MsgID, Event: a.Event.String(),
			Attempt: a.Attempt, StatusCode: nonZero(a.StatusCode), LatencyMS: a.Latency.Milliseconds(), Error: a.Error,
			NextRetry: timeOrNil(a.NextRetry), CreatedAt: formatTime(a.CreatedAt)}
	}
	for i, m := range d.Messages {
		out.Messages[i] = hookMessageJSON{ID: m.ID, WebhookID: m.MsgID, EventID: m.EventID, Event: m.Event.String(),
			State: m.State, Attempts: m.Attempts, LastStatus: nonZero(m.LastStatus), CreatedAt: formatTime(m.CreatedAt)}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// redeliver answers POST /api/v2/webhooks/{id}/deliveries/{message}/redeliver:
// 202 once the message is queued again.
func (s *Server) redeliver(w http.ResponseWriter, r *http.Request) error {
	user, id, err := s.userAndHook(r)
	if err != nil {
		return err
	}
	msg, err := hookID(r, "message")
	if err != nil {
		return err
	}
	if err := s.svc.Redeliver(r.Context(), user, id, msg); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"message": "The delivery is queued."})
	return nil
}

func nonZero(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

func timeOrNil(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := formatTime(t)
	return &s
}
