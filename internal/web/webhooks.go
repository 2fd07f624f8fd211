package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"hush/internal/httpx"
	"hush/internal/i18n"
	"hush/internal/push"
	"hush/internal/service"
)

// The webhook pages (docs/decisions.md, D48): an account's endpoints under
// /users/webhooks, the instance's under /admin/webhooks (admins only). The
// same handlers serve both; an endpoint is found only under the pages of
// its owner (or, for the instance's, the admin pages).

// hookScope is one of the two places endpoints are managed.
type hookScope struct {
	Base     string // /users/webhooks or /admin/webhooks
	Instance bool
}

var (
	accountHooks = hookScope{Base: "/users/webhooks"}
	adminHooks   = hookScope{Base: "/admin/webhooks", Instance: true}
)

// hookEventView is one event's checkbox.
type hookEventView struct {
	Name    string
	Checked bool
}

// webhooksView is what webhooks.html shows.
type webhooksView struct {
	Scope    hookScope
	Hooks    []*push.Webhook
	Events   []hookEventView
	URL      string        // the create form's URL, kept after an error
	Created  *push.Webhook // the endpoint just created, whose secret is shown
	Secret   string
	Private  bool // http and private addresses are allowed
	MaxHooks int
}

// webhookView is what webhook.html shows.
type webhookView struct {
	Scope      hookScope
	Hook       *push.Webhook
	Events     []hookEventView
	Deliveries service.HookDeliveries
	Delete     question
}

func hookEventViews(set push.HookEvents) []hookEventView {
	var out []hookEventView
	for _, n := range push.HookEventNames() {
		e, _ := push.ParseHookEvents([]string{n})
		out = append(out, hookEventView{Name: n, Checked: set&e != 0})
	}
	return out
}

// hookUser is the signed-in user allowed on the pages of scope, or nil
// once the visitor has been answered.
func (s *Server) hookUser(w http.ResponseWriter, r *http.Request, scope hookScope) *push.User {
	if !s.svc.WebhooksEnabled() {
		s.notFound(w, r)
		return nil
	}
	if scope.Instance {
		return s.requireAdmin(w, r)
	}
	return s.requireUser(w, r)
}

// inScope is handler h on the pages of scope: an account's endpoints
// under /users/webhooks, the instance's under /admin/webhooks.
func inScope(h func(*Server, http.ResponseWriter, *http.Request, hookScope) error, s *Server, scope hookScope) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error { return h(s, w, r, scope) }
}

// webhooksPage serves GET …/webhooks: the endpoints and the form to add one.
func (s *Server) webhooksPage(w http.ResponseWriter, r *http.Request, scope hookScope) error {
	u := s.hookUser(w, r, scope)
	if u == nil {
		return nil
	}
	return s.renderWebhooks(w, r, u, scope, webhooksView{Events: hookEventViews(0)}, nil)
}

// renderWebhooks shows the list with v's form (and err's message).
func (s *Server) renderWebhooks(w http.ResponseWriter, r *http.Request, u *push.User, scope hookScope, v webhooksView, err error) error {
	hooks, lerr := s.svc.Webhooks(r.Context(), u, scope.Instance)
	if lerr != nil {
		return lerr
	}
	loc := s.localizer(r)
	for _, h := range hooks {
		h.DisabledReason = hookReason(loc, h.DisabledReason)
	}
	v.Scope, v.Hooks, v.Private, v.MaxHooks = scope, hooks, s.svc.WebhookAllowPrivate(), service.MaxWebhooks
	p := page{TitleKey: "webhooks.title", User: u, Data: v, NoSwitch: v.Created != nil} // the secret is shown once
	if scope.Instance {
		p.TitleKey = "admin.webhooks.title"
	}
	if err != nil {
		p.Error, p.Status = webhookError(loc, err), http.StatusUnprocessableEntity
	}
	s.render(w, r, "webhooks.html", p)
	return nil
}

// webhookError says what was wrong with a form, field by field, in loc's
// language.
func webhookError(loc *i18n.Localizer, err error) string {
	var e *push.Error
	if !errors.As(err, &e) || e.Code != push.CodeInvalid {
		return ""
	}
	var msgs []string
	for _, f := range []string{"url", "events", "base"} {
		for _, m := range e.Fields[f] {
			msgs = append(msgs, hookFieldMessage(loc, f, m))
		}
	}
	return strings.Join(msgs, " ")
}

// webhookCreate serves POST …/webhooks: the endpoint is added and its
// secret shown, this once.
func (s *Server) webhookCreate(w http.ResponseWriter, r *http.Request, scope hookScope) error {
	u := s.hookUser(w, r, scope)
	if u == nil {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	in := service.WebhookInput{URL: formValue(r, "url"), Events: r.PostForm["events"], Instance: scope.Instance}
	if in.Events == nil {
		in.Events = []string{}
	}
	h, secret, err := s.svc.CreateWebhook(r.Context(), u, in)
	if push.ErrorCode(err) == push.CodeInvalid {
		set, _ := push.ParseHookEvents(in.Events)
		return s.renderWebhooks(w, r, u, scope, webhooksView{URL: in.URL, Events: hookEventViews(set)}, err)
	}
	if err != nil {
		return err
	}
	return s.renderWebhooks(w, r, u, scope, webhooksView{Events: hookEventViews(0), Created: h, Secret: secret}, nil)
}

// scopedHook loads the endpoint of the path for u, under scope: an
// endpoint of the other scope is not found here.
func (s *Server) scopedHook(w http.ResponseWriter, r *http.Request, u *push.User, scope hookScope) (*push.Webhook, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return nil, s.notFound(w, r)
	}
	h, err := s.svc.Webhook(r.Context(), u, id)
	if push.ErrorCode(err) == push.CodeNotFound || (err == nil && (h.UserID == 0) != scope.Instance) {
		return nil, s.notFound(w, r)
	}
	return h, err
}

// webhookPage serves GET …/webhooks/{id}: the endpoint, its events and
// its delivery log.
func (s *Server) webhookPage(w http.ResponseWriter, r *http.Request, scope hookScope) error {
	u := s.hookUser(w, r, scope)
	if u == nil {
		return nil
	}
	h, err := s.scopedHook(w, r, u, scope)
	if h == nil {
		return err
	}
	page, _ := strconv.Atoi(httpx.Query(r, "page"))
	d, err := s.svc.WebhookDeliveries(r.Context(), u, h.ID, min(max(page, 1), service.MaxPage))
	if err != nil {
		return err
	}
	loc := s.localizer(r)
	h.DisabledReason = hookReason(loc, h.DisabledReason)
	for i := range d.Attempts {
		d.Attempts[i].Error = hookAttemptError(loc, d.Attempts[i].Error)
	}
	s.render(w, r, "webhook.html", pageOf(loc, u, h, webhookView{Scope: scope, Hook: h, Events: hookEventViews(h.Events),
		Deliveries: d, Delete: hookDeleteQuestion(loc, h)}))
	return nil
}

func pageOf(loc *i18n.Localizer, u *push.User, h *push.Webhook, v webhookView) page {
	return page{Title: loc.T("webhooks.page_title", map[string]any{"URL": h.URL}), User: u, Data: v}
}

func hookDeleteQuestion(loc *i18n.Localizer, h *push.Webhook) question {
	return question{loc.T("webhooks.delete.title", nil), loc.T("webhooks.delete.text", map[string]any{"URL": h.URL}),
		loc.T("webhooks.delete.button", nil)}
}

// webhookAct serves POST …/webhooks/{id}/{action}: update (events and
// on/off), delete (confirmed), redeliver (a message).
func (s *Server) webhookAct(w http.ResponseWriter, r *http.Request, scope hookScope) error {
	u := s.hookUser(w, r, scope)
	if u == nil {
		return nil
	}
	h, err := s.scopedHook(w, r, u, scope)
	if h == nil {
		return err
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	self := fmt.Sprintf("%s/%d", scope.Base, h.ID)
	loc := s.localizer(r)
	switch r.PathValue("action") {
	case "update":
		err = s.webhookUpdate(r, u, h)
	case "delete":
		if !s.confirmed(w, r, hookDeleteQuestion(loc, h), self, false) {
			return nil
		}
		if err := s.svc.DeleteWebhook(r.Context(), u, h.ID); err != nil {
			return err
		}
		s.flash(r, loc.T("webhooks.deleted", nil))
		redirect(w, r, scope.Base)
		return nil
	case "redeliver":
		err = s.webhookRedeliver(r, u, h)
	default:
		return s.notFound(w, r)
	}
	var e *push.Error
	if errors.As(err, &e) && (e.Code == push.CodeInvalid || e.Code == push.CodeConflict) {
		s.flash(r, firstNonEmpty(webhookError(loc, err), say(loc, e.Message)))
		err = nil
	}
	if err != nil {
		return err
	}
	redirect(w, r, self)
	return nil
}

// webhookUpdate sets an endpoint's events and state from the form.
func (s *Server) webhookUpdate(r *http.Request, u *push.User, h *push.Webhook) error {
	events := r.PostForm["events"]
	if events == nil {
		events = []string{}
	}
	on := formValue(r, "enabled") == "on"
	_, err := s.svc.UpdateWebhook(r.Context(), u, h.ID, service.WebhookInput{Events: events, Enabled: &on})
	if err == nil {
		s.flash(r, s.localizer(r).T("webhooks.saved", nil))
	}
	return err
}

// webhookRedeliver queues the form's message again.
func (s *Server) webhookRedeliver(r *http.Request, u *push.User, h *push.Webhook) error {
	msg, err := strconv.ParseInt(formValue(r, "message"), 10, 64)
	if err != nil {
		return &push.Error{Code: push.CodeBadRequest, Message: msgHookNoMessage}
	}
	if err := s.svc.Redeliver(r.Context(), u, h.ID, msg); err != nil {
		return err
	}
	s.flash(r, s.localizer(r).T("webhooks.requeued", nil))
	return nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
