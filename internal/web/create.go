package web

import (
	"errors"
	"mime"
	"net/http"
	"net/url"
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
	MaxFiles      int    // file kind: how many files one push may carry
	FileLimits    string // file kind: the size limits, for people
	Errors        map[string][]string
}

// createKind picks the form's kind: text unless an enabled url or qr is asked
// for, or file when u may attach files.
func (s *Server) createKind(k string, u *push.User) push.Kind {
	kind, ok := push.ParseKind(k)
	if !ok || !s.Service.Settings.KindEnabled(kind) || (kind == push.KindFile && !s.filesAllowed(u)) {
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
		MaxFiles:      set.MaxFileUploads,
		FileLimits:    "at most " + humanSize(s.Service.MaxFileSize) + " each and " + humanSize(s.Service.MaxPushSize) + " in all",
	}
	for _, t := range []kindTab{{"text", "Text", false}, {"url", "URL", false}, {"qr", "QR code", false}, {"file", "File", false}} {
		if set.KindEnabled(push.Kind(t.Kind)) && (t.Kind != "file" || s.filesAllowed(u)) {
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
		Data: s.newCreateView(s.createKind(r.URL.Query().Get("kind"), u), u)})
}

// createSubmit serves POST /: create the push, remember it in the session as
// this visitor's own, and show its preview. The file kind's form is
// multipart; its files are streamed into the file store as they arrive.
func (s *Server) createSubmit(w http.ResponseWriter, r *http.Request) {
	u := s.currentUser(r)
	f, files, err := s.readCreateForm(w, r, u)
	if err != nil {
		s.createFormError(w, r, u, err)
		return
	}
	kind := s.createKind(f.Get("kind"), u)
	v := s.newCreateView(kind, u)
	if v.NeedSignIn {
		s.Service.Discard(r.Context(), files.Uploads)
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
	var c *service.Created
	if kind == push.KindFile && files.Count == 0 {
		err = &push.Error{Code: push.CodeInvalid, Fields: map[string][]string{"files": {"Choose at least one file."}}}
	} else {
		c, err = s.Service.Create(r.Context(), u, params, files, s.meta(r)) // discards the uploads on error
	}
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

// readCreateForm reads the create form: urlencoded, or multipart with files.
func (s *Server) readCreateForm(w http.ResponseWriter, r *http.Request, u *push.User) (url.Values, service.FileSet, error) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		return s.parseCreateMultipart(w, r, u)
	}
	if err := parseForm(w, r); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, service.FileSet{}, errTextTooLarge
		}
		return nil, service.FileSet{}, service.ErrFormMalformed
	}
	return r.PostForm, service.FileSet{}, nil
}

// createFormError answers a create form that could not be read: files
// refused or too large are told on the file form, with the right status.
func (s *Server) createFormError(w http.ResponseWriter, r *http.Request, u *push.User, err error) {
	fileForm := func(status int, msg string) {
		kind := push.KindText
		if s.filesAllowed(u) {
			kind = push.KindFile
		}
		s.render(w, r, "create.html", page{Title: "Share a secret", User: u, Status: status,
			Error: msg, Data: s.newCreateView(kind, u)})
	}
	var e *push.Error
	tooLarge := errors.As(err, &e) && e.Code == push.CodeTooLarge
	switch {
	case errors.Is(err, errFilesSignIn):
		fileForm(http.StatusUnauthorized, "Sign in to attach files.")
	case errors.Is(err, errFilesOff):
		fileForm(http.StatusUnprocessableEntity, "File pushes are disabled.")
	case tooLarge && s.filesAllowed(u):
		fileForm(http.StatusRequestEntityTooLarge, s.tooLargeMessage())
	case tooLarge || errors.Is(err, errTextTooLarge):
		s.renderError(w, r, http.StatusRequestEntityTooLarge, "Too large", "The secret is too large.")
	case errors.Is(err, service.ErrFormMalformed):
		s.renderError(w, r, http.StatusBadRequest, "Bad request", "The form could not be read.")
	default:
		s.fail(w, r, err)
	}
}

// tooLargeMessage states the limits of attachments.
func (s *Server) tooLargeMessage() string {
	return "The files are too large: at most " + humanSize(s.Service.MaxFileSize) + " per file and " +
		humanSize(s.Service.MaxPushSize) + " per push."
}
