package api

import "net/http"

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

// versionV2 answers GET /api/v2/version. It is public and ignores tokens.
func (s *Server) versionV2(w http.ResponseWriter, r *http.Request) error {
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
