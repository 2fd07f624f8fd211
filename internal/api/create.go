package api

import (
	"net/http"

	"hush/internal/httpx"
	"hush/internal/push"
	"hush/internal/service"
)

// create answers POST /api/v2/pushes.
func (s *Server) create(w http.ResponseWriter, r *http.Request) error {
	user, err := s.caller(r)
	if err != nil {
		return err
	}
	up := s.svc.NewUploads()
	defer up.Discard(r.Context())
	params, err := s.decodeCreate(w, r, user, "push", up)
	if err != nil {
		return err
	}
	return s.createAndAnswer(w, r, user, params, up)
}

// createAndAnswer creates the push and answers 201 with it as its owner
// sees it (v2 and v1 alike). A request that names files needs a signed-in
// caller before anything else is said about it.
func (s *Server) createAndAnswer(w http.ResponseWriter, r *http.Request, user *push.User, params Params, up *service.Uploads) error {
	if user == nil && needsAuth(params) {
		return unauthenticated(service.MsgSignIn)
	}
	// push_locale may also come in the query (docs/decisions.md, D53).
	if q := httpx.Query(r, "push_locale"); q != "" && blank(params["push_locale"]) {
		params["push_locale"] = q
	}
	req, err := createRequest(params, up.Count())
	if err != nil {
		return err
	}
	c, err := s.svc.Create(r.Context(), service.CreateInput{User: user, Request: req, Uploads: up, Meta: s.meta(r), Origin: s.origin(r)})
	if err != nil {
		return err
	}
	out := ownerPushJSON{
		pushJSON: s.render(r, c.Push, &c.Draft.Passphrase),
		Note:     c.Draft.Note,
		Name:     c.Draft.Name,
	}
	if req.NotifyEmailsTo == "" {
		writeJSON(w, http.StatusCreated, out)
		return nil
	}
	// As Password Pusher: the notification fields, as sent, when there
	// were recipients.
	var locale *string
	if req.NotifyEmailsToLocale != "" {
		locale = &req.NotifyEmailsToLocale
	}
	writeJSON(w, http.StatusCreated, notifiedPushJSON{ownerPushJSON: out, NotifyEmailsTo: req.NotifyEmailsTo, NotifyEmailsToLocale: locale})
	return nil
}

// notifiedPushJSON is the create variant of a push whose link was emailed.
type notifiedPushJSON struct {
	ownerPushJSON
	NotifyEmailsTo       string  `json:"notify_emails_to"`
	NotifyEmailsToLocale *string `json:"notify_emails_to_locale"`
}
