package api

import (
	"net/http"

	"hush/internal/push"
)

// APIVersionV1 is the version of the legacy JSON API that Hush speaks.
const APIVersionV1 = "1.5"

// versionV1 answers GET /api/v1/version(.json). Public; tokens are ignored
// but for versionAuth's.
func (s *Server) versionV1(w http.ResponseWriter, r *http.Request) error {
	if err := s.versionAuth(r); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		ApplicationVersion string `json:"application_version"`
		APIVersion         string `json:"api_version"`
		Edition            string `json:"edition"`
	}{s.version, APIVersionV1, "oss"})
	return nil
}

// createV1 answers POST /p.json, /f.json and /r.json: the v2 create with the
// prefix's wrapper, permitted keys and forced kind. /f and /r always need a
// token; /p only for files or when anonymous access is off.
func (s *Server) createV1(w http.ResponseWriter, r *http.Request, pfx v1Prefix) error {
	var user *push.User
	var err error
	if pfx.kind != "" {
		user, err = s.requireUser(r)
	} else {
		user, err = s.caller(r)
	}
	if err != nil {
		return err
	}
	up := s.svc.NewUploads()
	defer up.Discard(r.Context())
	params, err := s.decodeCreate(w, r, user, pfx.wrapper, up)
	if err != nil {
		return err
	}
	permitted := Params{}
	for _, k := range pfx.keys {
		if v, ok := params[k]; ok {
			permitted[k] = v
		}
	}
	if _, ok := permitted["files"]; !ok && up.Count() > 0 {
		// A prefix without files (/r) drops what was uploaded.
		up.Discard(r.Context())
		up = s.svc.NewUploads()
	}
	if pfx.kind != "" {
		permitted["kind"] = string(pfx.kind)
	}
	if v, ok := params["push_locale"]; ok {
		// Every prefix takes the language of the link (docs/decisions.md, D53).
		permitted["push_locale"] = v
	}
	return s.createAndAnswer(w, r, user, permitted, up)
}

// auditEntryV1JSON is a v1 audit entry: Password Pusher's raw audit row,
// its columns in alphabetical order.
type auditEntryV1JSON struct {
	CreatedAt string `json:"created_at"`
	IP        string `json:"ip"`
	Kind      string `json:"kind"`
	Referrer  string `json:"referrer"`
	UpdatedAt string `json:"updated_at"`
	UserAgent string `json:"user_agent"`
}

// auditV1 answers GET /p/<token>/audit.json: the v2 audit as {"views":[…]}.
func (s *Server) auditV1(w http.ResponseWriter, r *http.Request) error {
	events, err := s.auditEvents(r)
	if err != nil {
		return err
	}
	views := make([]auditEntryV1JSON, len(events))
	for i, ev := range events {
		at := formatTime(ev.CreatedAt)
		views[i] = auditEntryV1JSON{CreatedAt: at, IP: ev.IP, Kind: ev.Kind.String(),
			Referrer: ev.Referrer, UpdatedAt: at, UserAgent: ev.UserAgent}
	}
	writeJSON(w, http.StatusOK, map[string]any{"views": views})
	return nil
}
