package api

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"unicode/utf8"

	"hush/internal/push"
	"hush/internal/service"
)

// notifyEmails answers POST /api/v2/pushes/{token}/notify_emails: the
// owner emails the push's link to more recipients (docs/decisions.md,
// D37). The body carries notify_emails_to and notify_emails_to_locale at
// its top level, as JSON or a form. On an instance that sends no email the
// route does not exist: 404 as for any unknown path (D16).
func (s *Server) notifyEmails(w http.ResponseWriter, r *http.Request) error {
	if !s.svc.Settings().NotifyByEmail {
		writeJSON(w, http.StatusNotFound, errorBody{"Not Found"})
		return nil
	}
	user, err := s.requireUser(r)
	if err != nil {
		return err
	}
	p, err := s.notifyParams(w, r)
	if err != nil {
		return err
	}
	errs := push.FieldErrors{}
	in := service.NotifyInput{User: user, Token: r.PathValue("token"), Origin: s.origin(r), Meta: s.meta(r)}
	if !blank(p["notify_emails_to"]) {
		in.To = textParam(p, "notify_emails_to", errs)
	}
	if !blank(p["notify_emails_to_locale"]) {
		in.Locale = textParam(p, "notify_emails_to_locale", errs)
	}
	if err := errs.Err(); err != nil {
		return err
	}
	if err := s.svc.NotifyEmails(r.Context(), in); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"message": service.MsgNotifyQueued})
	return nil
}

// notifyParams reads the body of notify_emails: a JSON object, or an
// urlencoded form; an empty body has no fields. The keys may also come
// wrapped in "push", as a create's do.
func (s *Server) notifyParams(w http.ResponseWriter, r *http.Request) (Params, error) {
	r.Body = http.MaxBytesReader(w, r.Body, min(s.maxBody, 1<<20))
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, bodyError(err)
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return Params{}, nil
	case ct == "application/x-www-form-urlencoded" && trimmed[0] != '{':
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, badRequest("The form body is malformed.")
		}
		p := Params{}
		for _, k := range []string{"notify_emails_to", "notify_emails_to_locale"} {
			if v, ok := vals[k]; ok {
				p[k] = v[len(v)-1]
			} else if v, ok := vals["push["+k+"]"]; ok {
				p[k] = v[len(v)-1]
			}
		}
		return p, nil
	}
	if !utf8.Valid(body) {
		return nil, badRequest("The request body is not valid UTF-8.")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, badRequest("The request body is not a JSON object.")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badRequest("The request body is not valid JSON.")
	}
	return notifyKeys(obj), nil
}

// notifyKeys takes the notify fields of a JSON body: at its top level, or
// under "push".
func notifyKeys(obj map[string]any) Params {
	p := Params{}
	inner, _ := obj["push"].(map[string]any)
	for _, k := range []string{"notify_emails_to", "notify_emails_to_locale"} {
		if v, ok := obj[k]; ok {
			p[k] = v
		} else if v, ok := inner[k]; ok {
			p[k] = v
		}
	}
	return p
}
