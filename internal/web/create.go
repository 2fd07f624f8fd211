package web

import (
	"errors"
	"net/http"
	"strconv"

	"hush/internal/push"
	"hush/internal/service"
)

// kindTab is one tab of the create form.
type kindTab struct {
	Kind    string
	Label   string
	Current bool
}

// createView is what create.html shows.
type createView struct {
	NeedSignIn    bool
	Kind          string
	Tabs          []kindTab
	S             push.KindSettings
	SignedIn      bool
	ShowRetrieval bool
	ShowDeletable bool
	Payload       string
	Name          string
	Note          string
	Days          int
	Views         int
	RetrievalStep bool
	Deletable     bool
	Errors        map[string][]string
}

// createKind picks the form's kind: text unless an enabled url or qr is asked
// for. File pushes are created through the API until the form supports them.
func (s *Server) createKind(k string) push.Kind {
	kind, ok := push.ParseKind(k)
	if !ok || kind == push.KindFile || !s.Service.Settings.KindEnabled(kind) {
		return push.KindText
	}
	return kind
}

// newCreateView fills the form with the instance defaults for kind.
func (s *Server) newCreateView(kind push.Kind, u *push.User) createView {
	set := &s.Service.Settings
	ks := *set.ForKind(kind)
	v := createView{
		NeedSignIn:    u == nil && !set.AllowAnonymous,
		Kind:          string(kind),
		S:             ks,
		SignedIn:      u != nil,
		ShowRetrieval: ks.EnableRetrievalStep,
		ShowDeletable: kind != push.KindURL && ks.EnableDeletable,
		Days:          ks.ExpireAfterDaysDefault,
		Views:         ks.ExpireAfterViewsDefault,
		RetrievalStep: ks.RetrievalStepDefault,
		Deletable:     ks.DeletableDefault,
	}
	for _, t := range []kindTab{{"text", "Text", false}, {"url", "URL", false}, {"qr", "QR code", false}} {
		if set.KindEnabled(push.Kind(t.Kind)) {
			t.Current = t.Kind == v.Kind
			v.Tabs = append(v.Tabs, t)
		}
	}
	return v
}

// createForm serves GET /.
func (s *Server) createForm(w http.ResponseWriter, r *http.Request) {
	u := s.currentUser(r)
	s.render(w, r, "create.html", page{Title: "Share a secret", User: u,
		Data: s.newCreateView(s.createKind(r.URL.Query().Get("kind")), u)})
}

// createSubmit serves POST /: create the push, remember it in the session as
// this visitor's own, and show its preview.
func (s *Server) createSubmit(w http.ResponseWriter, r *http.Request) {
	u := s.currentUser(r)
	if err := parseForm(w, r); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.renderError(w, r, http.StatusRequestEntityTooLarge, "Too large", "The secret is too large.")
			return
		}
		s.renderError(w, r, http.StatusBadRequest, "Bad request", "The form could not be read.")
		return
	}
	f := r.PostForm
	kind := s.createKind(f.Get("kind"))
	v := s.newCreateView(kind, u)
	if v.NeedSignIn {
		s.render(w, r, "create.html", page{Title: "Share a secret", User: u, Status: http.StatusUnauthorized, Data: v})
		return
	}
	params := push.Params{
		"kind":               string(kind),
		"payload":            f.Get("payload"),
		"passphrase":         f.Get("passphrase"),
		"name":               f.Get("name"),
		"expire_after_days":  f.Get("expire_after_days"),
		"expire_after_views": f.Get("expire_after_views"),
		"retrieval_step":     strconv.FormatBool(f.Has("retrieval_step")),
	}
	if u != nil {
		params["note"] = f.Get("note")
	}
	if kind != push.KindURL {
		params["deletable_by_viewer"] = strconv.FormatBool(f.Has("deletable_by_viewer"))
	}
	c, err := s.Service.Create(r.Context(), u, params, service.FileSet{}, s.meta(r))
	var e *push.Error
	if errors.As(err, &e) && e.Code == push.CodeInvalid {
		v.Payload, v.Name, v.Note = f.Get("payload"), f.Get("name"), f.Get("note")
		v.Days, _ = strconv.Atoi(f.Get("expire_after_days"))
		v.Views, _ = strconv.Atoi(f.Get("expire_after_views"))
		v.RetrievalStep, v.Deletable = f.Has("retrieval_step"), f.Has("deletable_by_viewer")
		v.Errors = e.Fields
		s.render(w, r, "create.html", page{Title: "Share a secret", User: u, Status: http.StatusUnprocessableEntity,
			Error: "Please correct the marked fields.", Data: v})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.rememberCreated(r, c.Push.URLToken)
	redirect(w, r, "/p/"+c.Push.URLToken+"/preview")
}
