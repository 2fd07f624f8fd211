package api

import (
	"net/http"

	"hush/internal/push"
)

type enabledJSON struct {
	Enabled bool `json:"enabled"`
}

type versionJSON struct {
	ApplicationVersion string `json:"application_version"`
	APIVersion         string `json:"api_version"`
	Edition            string `json:"edition"`
	Features           struct {
		AnonymousAccess        bool        `json:"anonymous_access"`
		APITokenAuthentication bool        `json:"api_token_authentication"`
		Accounts               enabledJSON `json:"accounts"`
		Pushes                 struct {
			Enabled           bool `json:"enabled"`
			EmailAutoDispatch bool `json:"email_auto_dispatch"`
			FileAttachments   struct {
				Enabled                bool `json:"enabled"`
				RequiresAuthentication bool `json:"requires_authentication"`
			} `json:"file_attachments"`
			URLPushes    enabledJSON `json:"url_pushes"`
			QRCodePushes enabledJSON `json:"qr_code_pushes"`
		} `json:"pushes"`
		Requests enabledJSON `json:"requests"`
	} `json:"features"`
}

// versionAuth is the one check of the version endpoints, public as they
// are: where the instance requires a second factor, a valid token of an
// account without one gets the 403 every endpoint gives it, as Password
// Pusher's version does (docs/decisions.md, D40). An absent or bad token
// is ignored, and so is a failed look-up: the answer is public anyway.
func (s *Server) versionAuth(r *http.Request) error {
	if !s.svc.RequireTwoFactor() {
		return nil
	}
	if _, err := s.authenticate(r); push.ErrorCode(err) == push.CodeForbidden {
		return err
	}
	return nil
}

// versionV2 answers GET /api/v2/version. It is public; tokens are ignored
// but for versionAuth's.
func (s *Server) versionV2(w http.ResponseWriter, r *http.Request) error {
	if err := s.versionAuth(r); err != nil {
		return err
	}
	st := s.svc.Settings()
	var v versionJSON
	v.ApplicationVersion = s.version
	v.APIVersion = APIVersion
	v.Edition = "oss"
	f := &v.Features
	f.AnonymousAccess = st.AllowAnonymous
	f.APITokenAuthentication = true
	f.Pushes.Enabled = true
	f.Pushes.EmailAutoDispatch = st.NotifyByEmail
	f.Pushes.FileAttachments.Enabled = st.EnableFilePushes
	f.Pushes.FileAttachments.RequiresAuthentication = true
	f.Pushes.URLPushes.Enabled = st.EnableURLPushes
	f.Pushes.QRCodePushes.Enabled = st.EnableQRPushes
	writeJSON(w, http.StatusOK, v)
	return nil
}
