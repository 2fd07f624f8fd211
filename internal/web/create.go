package web

import (
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hush/internal/httpx"
	"hush/internal/i18n"
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
	Durations     []durationOption // offered instead of days, when the instance offers them for the kind
	Duration      string           // the duration chosen ("" for the days)
	RetrievalStep bool
	Deletable     bool
	MaxFiles      int          // file kind: how many files one push may carry
	MaxFileSize   string       // file kind: the size limit of a file, for people
	MaxPushSize   string       // file kind: the size limit of all files, for people
	MaxNotify     int          // the most addresses the link may be emailed to
	Receipts      []receiptBox // signed in, where the server sends email: the owner's receipts
	Notify        bool         // signed in, where links may be emailed: the recipients field
	NotifyTo      string
	PushLocale    string          // the language of the recipient's page and email ("": the recipient's own)
	Languages     []i18n.Language // the languages push_locale may name
	Errors        map[string][]string
	PayloadLimit  int            // the characters a payload may have (0: no limit), for the counter
	Gen           push.Generator // the password generator's defaults, for the text kind
	GenBounds     genBounds
}

// durationOption is one duration under a day the form offers, in the
// page's language.
type durationOption struct {
	Code  int
	Label string
}

// genBounds are the limits of the generator's settings, for its form.
type genBounds struct{ SyllableLength, Syllables, Set int }

// payloadLimit is the most characters the payload of kind may have, as
// push.Validate counts them; 0 for a URL, whose length has no rule.
func payloadLimit(kind push.Kind) int {
	switch kind {
	case push.KindURL:
		return 0
	case push.KindQR:
		return push.MaxQRPayload
	default:
		return push.MaxTextPayload
	}
}

// createKind picks the form's kind: text unless an enabled url or qr is asked
// for, or file when u may attach files.
func (s *Server) createKind(k string, u *push.User) push.Kind {
	kind, ok := push.ParseKind(k)
	if !ok || !s.settings().KindEnabled(kind) || (kind == push.KindFile && !s.filesAllowed(u)) {
		return push.KindText
	}
	return kind
}

// newCreateView fills the form with the instance defaults for kind, in
// loc's language.
func (s *Server) newCreateView(loc *i18n.Localizer, kind push.Kind, u *push.User) createView {
	st := s.settings()
	set := &st
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
		Languages:     i18n.Languages(),
		MaxFileSize:   sizeIn(loc, s.svc.MaxFileSize()),
		MaxPushSize:   sizeIn(loc, s.svc.MaxPushSize()),
		MaxNotify:     push.MaxNotifyRecipients,
		PayloadLimit:  payloadLimit(kind),
		Gen:           set.Generator,
		GenBounds:     genBounds{push.GenMaxSyllableLength, push.GenMaxSyllables, push.GenMaxSetLength},
	}
	if set.SubDayOffered(kind) {
		v.Durations = durationOptions(loc)
	}
	if u != nil {
		v.Receipts = localReceipts(loc, s.receiptBoxes(u.ReceiptsDefault))
		v.Notify = set.NotifyByEmail
	}
	for _, k := range []string{"text", "url", "qr", "file"} {
		if set.KindEnabled(push.Kind(k)) && (k != "file" || s.filesAllowed(u)) {
			v.Tabs = append(v.Tabs, kindTab{Kind: k, Label: loc.T("create.kind."+k, nil), Current: k == v.Kind})
		}
	}
	return v
}

// durationOptions are the durations under a day, in loc's language.
func durationOptions(loc *i18n.Localizer) []durationOption {
	out := make([]durationOption, len(push.SubDayDurations))
	for i, d := range push.SubDayDurations {
		n, unit := int(d.Limit/time.Minute), "duration.minutes"
		if d.Limit >= time.Hour {
			n, unit = int(d.Limit/time.Hour), "duration.hours"
		}
		out[i] = durationOption{Code: d.Code, Label: loc.N(unit, n, nil)}
	}
	return out
}

// localReceipts are the receipt boxes with their labels in loc's language.
func localReceipts(loc *i18n.Localizer, boxes []receiptBox) []receiptBox {
	for i, b := range boxes {
		boxes[i].Label = loc.T("create.receipt."+strings.TrimPrefix(b.Field, "receipt_on_"), nil)
	}
	return boxes
}

// createForm serves GET /.
func (s *Server) createForm(w http.ResponseWriter, r *http.Request) error {
	u := s.currentUser(r)
	s.render(w, r, "create.html", page{TitleKey: "create.title", User: u,
		Data: s.newCreateView(s.localizer(r), s.createKind(httpx.Query(r, "kind"), u), u)})
	return nil
}

// createSubmit serves POST /: create the push and show its preview. The file kind's form is
// multipart; its files are streamed into the file store as they arrive.
func (s *Server) createSubmit(w http.ResponseWriter, r *http.Request) error {
	u := s.currentUser(r)
	up := s.svc.NewUploads()
	defer up.Discard(r.Context())
	f, err := s.readCreateForm(w, r, u, up)
	if err != nil {
		s.createFormError(w, r, u, err)
		return nil
	}
	kind := s.createKind(httpx.Last(f, "kind"), u)
	r = switchTo(r, createPage(kind))
	loc := s.localizer(r)
	v := s.newCreateView(loc, kind, u)
	if v.NeedSignIn {
		s.render(w, r, "create.html", page{TitleKey: "create.title", User: u, Status: http.StatusUnauthorized, Data: v})
		return nil
	}
	if u == nil && httpx.Last(f, "signed_in") != "" {
		// The form was a signed-in account's, and its session ended
		// meanwhile: its note, recipients and receipts would be dropped
		// and the push would be nobody's. Nothing is created.
		v.Payload = httpx.Last(f, "payload")
		s.render(w, r, "create.html", page{TitleKey: "create.title", Status: http.StatusUnauthorized,
			Error: loc.T("create.signed_out", nil), Data: v})
		return nil
	}
	var c *service.Created
	if kind == push.KindFile && up.Count() == 0 {
		err = &push.Error{Code: push.CodeInvalid, Fields: map[string][]string{"files": {msgNoFile}}}
	} else {
		req := formRequest(f, kind, u)
		s.formEmail(req, f, u)
		c, err = s.svc.Create(r.Context(), service.CreateInput{User: u, Request: req, Uploads: up, Meta: s.meta(r), Origin: s.origin(r)})
	}
	var e *push.Error
	if errors.As(err, &e) && e.Code == push.CodeInvalid {
		v.Payload, v.Name, v.Note = httpx.Last(f, "payload"), httpx.Last(f, "name"), httpx.Last(f, "note")
		v.Days, _ = strconv.Atoi(httpx.Last(f, "expire_after_days"))
		v.Views, _ = strconv.Atoi(httpx.Last(f, "expire_after_views"))
		v.Duration = httpx.Last(f, "expire_after_duration")
		v.RetrievalStep, v.Deletable = f.Has("retrieval_step"), f.Has("deletable_by_viewer")
		v.NotifyTo = httpx.Last(f, "notify_emails_to")
		v.PushLocale = httpx.Last(f, "push_locale")
		if v.Receipts != nil {
			v.Receipts = localReceipts(loc, s.receiptBoxes(formReceipts(f)))
		}
		v.Errors = s.localFieldErrors(loc, e.Fields)
		s.render(w, r, "create.html", page{TitleKey: "create.title", User: u, Status: http.StatusUnprocessableEntity,
			Error: loc.T("create.fix_fields", nil), Field: firstInvalid(e.Fields, formOrder), Data: v})
		return nil
	}
	if err != nil {
		return err
	}
	redirect(w, r, "/p/"+c.Push.URLToken+"/preview")
	return nil
}

// createPage is the address of the create form of kind, where the
// language switch of the pages that answer it leads.
func createPage(kind push.Kind) string {
	if kind == push.KindText {
		return "/"
	}
	return "/?kind=" + string(kind)
}

// formRequest is the create the form asks for: its fields are typed values
// already (a checkbox is there or not), except days and views, which a
// browser sends as text. A duration under a day, when one is chosen,
// replaces the days (docs/decisions.md, D4).
func formRequest(f url.Values, kind push.Kind, u *push.User) *push.CreateRequest {
	errs := push.FieldErrors{}
	req := &push.CreateRequest{Kind: &kind, Payload: httpx.Last(f, "payload"), Passphrase: httpx.Last(f, "passphrase"),
		Name: httpx.Last(f, "name"), PushLocale: strings.TrimSpace(httpx.Last(f, "push_locale")), Errors: errs}
	req.ExpireAfterDays = formInt(f, "expire_after_days", errs)
	req.ExpireAfterViews = formInt(f, "expire_after_views", errs)
	if code, err := strconv.Atoi(httpx.Last(f, "expire_after_duration")); err == nil && code >= 0 && code < len(push.SubDayDurations) {
		req.ExpireAfterDays, req.ExpireAfterDuration = nil, &code
	}
	step := f.Has("retrieval_step")
	req.RetrievalStep = &step
	if u != nil {
		req.Note = httpx.Last(f, "note")
	}
	if kind != push.KindURL {
		deletable := f.Has("deletable_by_viewer")
		req.DeletableByViewer = &deletable
	}
	return req
}

// formEmail reads the e-mail fields of the form, which a signed-in user
// sees where the server sends email: the recipients of the link, and each
// receipt, which the form always states (an unchecked box is a no).
func (s *Server) formEmail(req *push.CreateRequest, f url.Values, u *push.User) {
	if u == nil {
		return
	}
	st := s.settings()
	if st.NotifyByEmail {
		req.NotifyEmailsTo = strings.TrimSpace(httpx.Last(f, "notify_emails_to"))
	}
	if st.Receipts {
		got := formReceipts(f)
		view, failed, expire := got.Has(push.ReceiptView), got.Has(push.ReceiptFailedPassphrase), got.Has(push.ReceiptExpire)
		req.ReceiptOnView, req.ReceiptOnFailedPassphrase, req.ReceiptOnExpire = &view, &failed, &expire
	}
}

// formInt reads a number field: blank is absent (the default applies).
func formInt(f url.Values, key string, errs push.FieldErrors) *int {
	v := strings.TrimSpace(httpx.Last(f, key))
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		errs.Add(key, msgNotInteger)
		return nil
	}
	return &n
}

// readCreateForm reads the create form: urlencoded, or multipart with files
// into up. Either way a field sent twice is read through httpx.Last, its
// last value counting (docs/decisions.md, D65).
func (s *Server) readCreateForm(w http.ResponseWriter, r *http.Request, u *push.User, up *service.Uploads) (url.Values, error) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		return s.parseCreateMultipart(w, r, u, up)
	}
	if err := parseFormMax(w, r, maxForm); err != nil {
		if err == errFormTooLarge {
			return nil, errTextTooLarge
		}
		return nil, httpx.ErrFormMalformed
	}
	return r.PostForm, nil
}

// createFormError answers a create form that could not be read: files
// refused or too large are told on the file form, with the right status.
func (s *Server) createFormError(w http.ResponseWriter, r *http.Request, u *push.User, err error) {
	loc := s.localizer(r)
	fileForm := func(status int, msg string) {
		kind := push.KindText
		if s.filesAllowed(u) {
			kind = push.KindFile
		}
		s.render(w, switchTo(r, createPage(kind)), "create.html", page{TitleKey: "create.title", User: u, Status: status,
			Error: msg, Data: s.newCreateView(loc, kind, u)})
	}
	var e *push.Error
	tooLarge := errors.As(err, &e) && e.Code == push.CodeTooLarge
	switch {
	case errors.Is(err, errFilesSignIn):
		fileForm(http.StatusUnauthorized, loc.T("create.files_sign_in", nil))
	case errors.Is(err, errFilesOff):
		fileForm(http.StatusUnprocessableEntity, loc.T("create.error.kind_file", nil))
	case tooLarge && s.filesAllowed(u):
		fileForm(http.StatusRequestEntityTooLarge, s.tooLargeMessage(loc))
	case tooLarge || errors.Is(err, errTextTooLarge):
		s.renderError(w, r, http.StatusRequestEntityTooLarge, "message.too_large.title", "message.too_large.secret")
	case errors.Is(err, httpx.ErrFormMalformed):
		s.renderError(w, r, http.StatusBadRequest, "message.bad_request.title", "message.bad_request.form")
	case e != nil && e.Code == push.CodeInvalid && len(e.Fields["files"]) > 0 && s.filesAllowed(u):
		// A file the store refused (its name, its content type): the form
		// again, with the reason at the files field.
		v := s.newCreateView(loc, push.KindFile, u)
		v.Errors = s.localFieldErrors(loc, e.Fields)
		s.render(w, switchTo(r, createPage(push.KindFile)), "create.html", page{TitleKey: "create.title", User: u,
			Status: http.StatusUnprocessableEntity, Error: loc.T("create.fix_fields", nil), Field: "files", Data: v})
	default:
		s.fail(w, r, err)
	}
}

// tooLargeMessage states the limits of attachments in loc's language.
func (s *Server) tooLargeMessage(loc *i18n.Localizer) string {
	return loc.T("create.files_too_large", map[string]any{"FileSize": sizeIn(loc, s.svc.MaxFileSize()),
		"PushSize": sizeIn(loc, s.svc.MaxPushSize())})
}
