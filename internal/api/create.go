package api

import (
	"net/http"

	"hush/internal/push"
	"hush/internal/secure"
)

// urlTokenBytes gives 128-bit url_tokens (D10): 22 URL-safe characters.
const urlTokenBytes = 16

// create answers POST /api/v2/pushes.
func (s *Server) create(w http.ResponseWriter, r *http.Request) error {
	user, err := s.caller(r)
	if err != nil {
		return err
	}
	params, files, err := s.decodeCreate(w, r)
	if err != nil {
		return err
	}
	if user == nil && push.NeedsAuth(params) {
		return unauthenticated(msgSignIn)
	}
	d, err := push.Resolve(params, files, &s.Settings)
	if err != nil {
		return err
	}
	if files > 0 {
		return &push.Error{Code: push.CodeInvalid, Fields: map[string][]string{
			"files": {"File attachments are not available on this server yet."}}}
	}
	now := s.Now().UTC()
	p := &push.Push{
		Kind:              d.Kind,
		UserID:            userID(user),
		Name:              d.Name,
		ExpireAfterDays:   d.ExpireAfterDays,
		ExpireAfterViews:  d.ExpireAfterViews,
		DeletableByViewer: d.DeletableByViewer,
		RetrievalStep:     d.RetrievalStep,
		CreatedAt:         now,
		UpdatedAt:         now,
	}
	for attempt := 0; ; attempt++ {
		if p.URLToken, err = secure.NewToken(urlTokenBytes); err != nil {
			return err
		}
		if p.PayloadSealed, p.PassphraseSalt, err = s.sealPayload(r.Context(), p.URLToken, d.Payload, d.Passphrase); err != nil {
			return err
		}
		p.HasPassphrase = p.PassphraseSalt != nil
		if p.NoteSealed, err = s.sealNote(p.URLToken, d.Note); err != nil {
			return err
		}
		err = s.Store.CreatePush(r.Context(), p, s.event(r, push.EventCreation, user, now))
		if push.ErrorCode(err) != push.CodeConflict || attempt == 2 {
			break
		}
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, ownerPushJSON{
		pushJSON: s.render(r, p, &d.Passphrase, now),
		Note:     d.Note,
		Name:     d.Name,
	})
	return nil
}
