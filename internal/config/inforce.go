package config

import (
	"fmt"
	"net/url"
	"strings"

	"hush/internal/push"
)

// Setting is one setting in force, by its variable, as the admin overview
// shows it.
type Setting struct {
	Name  string
	Value string
}

// InForce lists the settings in force, for the admin overview: every value
// but the secrets, of which it says only whether they are set (the master
// keys, the S3 keys, the database's password and its query parameters;
// docs/decisions.md, D44).
func (c *Config) InForce() []Setting {
	out := []Setting{
		{"HUSH_ADDR", c.Addr},
		{"HUSH_DATA_DIR", c.DataDir},
		{"HUSH_DATABASE_URL", c.DatabaseShown()},
	}
	if _, ok := c.SQLitePath(); ok {
		out = append(out, Setting{"HUSH_SQLITE_SYNC", c.SQLiteSync}, Setting{"HUSH_SQLITE_BUSY_TIMEOUT", c.SQLiteBusyTimeout.String()})
	}
	key := "generated into the data directory"
	switch {
	case c.MasterKeyFile != "":
		key = "set, from " + c.MasterKeyFile
	case c.MasterKey != "":
		key = "set"
	}
	out = append(out, Setting{"HUSH_MASTER_KEY", key},
		Setting{"HUSH_MASTER_KEY_PREVIOUS", countOf(len(c.MasterKeyPrevious), "key", "keys")},
		Setting{"HUSH_BASE_URL", orNone(c.BaseURL, "(from the request)")},
		Setting{"HUSH_TRUSTED_PROXIES", joinPrefixes(c)},
		Setting{"HUSH_LOG_FORMAT", c.LogFormat}, Setting{"HUSH_LOG_LEVEL", strings.ToLower(c.LogLevel.String())})
	out = append(out, c.s3Shown()...)
	out = append(out, c.mailShown()...)
	out = append(out, c.brandShown()...)
	out = append(out, c.oidcShown()...)
	out = append(out, Setting{"HUSH_WEBHOOK_ALLOW_PRIVATE", fmt.Sprint(c.WebhookAllowPrivate)})
	out = append(out,
		Setting{"HUSH_MAX_JSON_BODY", fmt.Sprint(c.MaxJSONBody)},
		Setting{"HUSH_MAX_FILE_SIZE", fmt.Sprint(c.MaxFileSize)},
		Setting{"HUSH_MAX_PUSH_SIZE", fmt.Sprint(c.MaxPushSize)},
		Setting{"HUSH_SWEEP_INTERVAL", c.SweepInterval.String()},
		Setting{"HUSH_SHUTDOWN_TIMEOUT", c.ShutdownTimeout.String()},
		Setting{"HUSH_CORS_ORIGINS", orNone(strings.Join(c.CORSOrigins, ", "), "none")},
		Setting{"HUSH_SUBDAY_DURATIONS", fmt.Sprint(c.Push.SubDayDurations)},
		Setting{"PWP__PURGE_AFTER", purgeShown(c)},
		Setting{"PWP__ALLOW_ANONYMOUS", fmt.Sprint(c.Push.AllowAnonymous)},
		Setting{"PWP__DISABLE_SIGNUPS", fmt.Sprint(c.DisableSignups)},
		Setting{"PWP__DEFAULT_LOCALE", localeShown(c)},
		Setting{"PWP__DISABLE_LOGINS", fmt.Sprint(c.DisableLogins)},
		Setting{"PWP__REQUIRE_MFA", fmt.Sprint(c.RequireTwoFactor)},
		Setting{"PWP__ENABLE_FILE_PUSHES", fmt.Sprint(c.Push.EnableFilePushes)},
		Setting{"PWP__ENABLE_URL_PUSHES", fmt.Sprint(c.Push.EnableURLPushes)},
		Setting{"PWP__ENABLE_QR_PUSHES", fmt.Sprint(c.Push.EnableQRPushes)},
		Setting{"PWP__FILES__MAX_FILE_UPLOADS", fmt.Sprint(c.Push.MaxFileUploads)})
	for _, k := range []struct {
		section string
		s       push.KindSettings
	}{{"PW", c.Push.Text}, {"URL", c.Push.URL}, {"FILES", c.Push.Files}, {"QR", c.Push.QR}} {
		out = append(out, Setting{"PWP__" + k.section + "__…", kindShown(k.s, k.section != "URL")})
	}
	out = append(out, c.generatorShown()...)
	h := c.Hardening
	return append(out,
		Setting{"PWP__THROTTLING__MINUTE", fmt.Sprint(h.RatePerMinute)},
		Setting{"PWP__THROTTLING__SECOND", fmt.Sprint(h.RatePerSecond)},
		Setting{"HUSH_READ_HEADER_TIMEOUT", h.ReadHeaderTimeout.String()},
		Setting{"HUSH_READ_TIMEOUT", h.ReadTimeout.String()},
		Setting{"HUSH_WRITE_TIMEOUT", h.WriteTimeout.String()},
		Setting{"HUSH_IDLE_TIMEOUT", h.IdleTimeout.String()},
		Setting{"HUSH_MAX_HEADER_BYTES", fmt.Sprint(h.MaxHeaderBytes)},
		Setting{"HUSH_MAX_CONNS", orNone(nonZero(h.MaxConns), "half the file descriptor limit")},
		Setting{"HUSH_MAX_CONNS_PER_CLIENT", fmt.Sprint(h.MaxConnsPerClient)},
		Setting{"HUSH_METRICS_ADDR", orNone(h.MetricsAddr, "off")},
		Setting{"HUSH_PPROF", fmt.Sprint(h.Pprof)})
}

// DatabaseShown names the database: SQLite and its path, or PostgreSQL
// and its URL without the password or parameters.
func (c *Config) DatabaseShown() string {
	if path, ok := c.SQLitePath(); ok {
		return "SQLite " + path
	}
	u, err := url.Parse(c.DatabaseURL)
	if err != nil {
		return "PostgreSQL"
	}
	shown := "PostgreSQL " + u.Host + u.Path
	if u.User != nil {
		shown = "PostgreSQL " + u.User.Username() + "@" + u.Host + u.Path
	}
	if u.RawQuery != "" {
		shown += " (with parameters)"
	}
	return shown
}

func (c *Config) s3Shown() []Setting {
	if c.S3 == nil {
		return []Setting{{"HUSH_S3_ENDPOINT", "(none: files in the data directory)"}}
	}
	return []Setting{
		{"HUSH_S3_ENDPOINT", c.S3.Endpoint},
		{"HUSH_S3_BUCKET", c.S3.Bucket},
		{"HUSH_S3_ACCESS_KEY", "set"},
		{"HUSH_S3_SECRET_KEY", "set"},
		{"HUSH_S3_REGION", c.S3.Region},
		{"HUSH_S3_USE_SSL", fmt.Sprint(c.S3.UseSSL)},
		{"HUSH_S3_PREFIX", orNone(c.S3.Prefix, "(none)")},
	}
}

func kindShown(k push.KindSettings, deletable bool) string {
	s := fmt.Sprintf("days %d (%d–%d), views %d (%d–%d), retrieval step %s", k.ExpireAfterDaysDefault, k.ExpireAfterDaysMin,
		k.ExpireAfterDaysMax, k.ExpireAfterViewsDefault, k.ExpireAfterViewsMin, k.ExpireAfterViewsMax,
		offered(k.EnableRetrievalStep, k.RetrievalStepDefault))
	if deletable {
		s += ", deletable by viewers " + offered(k.EnableDeletable, k.DeletableDefault)
	}
	return s
}

func offered(enabled, byDefault bool) string {
	switch {
	case !enabled:
		return "off"
	case byDefault:
		return "offered, on by default"
	}
	return "offered, off by default"
}

func purgeShown(c *Config) string {
	if c.PurgeAfter == 0 {
		return "disabled"
	}
	return c.PurgeAfter.String()
}

func joinPrefixes(c *Config) string {
	var parts []string
	for _, p := range c.TrustedProxies {
		parts = append(parts, p.String())
	}
	return orNone(strings.Join(parts, ", "), "(none)")
}

func countOf(n int, one, many string) string {
	switch n {
	case 0:
		return "(none)"
	case 1:
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func orNone(v, none string) string {
	if v == "" {
		return none
	}
	return v
}

func nonZero(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}

// mailShown are the SMTP settings and the account settings that email
// serves; of the SMTP password only whether it is set.
func (c *Config) mailShown() []Setting {
	signUp := "(any address)"
	if c.SignupEmailRegexp != nil {
		signUp = c.SignupEmailRegexp.String()
	}
	out := []Setting{
		{"PWP__ENABLE_USER_ACCOUNT_EMAILS", fmt.Sprint(c.ConfirmAccounts)},
		{"PWP__NOTIFY_BY_EMAIL__ENABLED", fmt.Sprint(c.Push.NotifyByEmail)},
		{"PWP__SIGNUP_EMAIL_REGEXP", signUp},
	}
	m := c.Mail
	if m == nil {
		return append(out, Setting{"HUSH_SMTP_ADDRESS", "none: no email"})
	}
	password := "not set"
	if m.Password != "" {
		password = "set"
	}
	return append(out,
		Setting{"HUSH_SMTP_ADDRESS", m.Host},
		Setting{"HUSH_SMTP_PORT", fmt.Sprint(m.Port)},
		Setting{"HUSH_SMTP_FROM", m.From},
		Setting{"HUSH_SMTP_USER_NAME", orNone(m.Username, "none")},
		Setting{"HUSH_SMTP_PASSWORD", password},
		Setting{"HUSH_SMTP_AUTHENTICATION", m.Auth},
		Setting{"HUSH_SMTP_STARTTLS", m.StartTLS},
		Setting{"HUSH_SMTP_ENABLE_STARTTLS_AUTO", fmt.Sprint(m.StartTLS != "off")},
		Setting{"HUSH_SMTP_TLS", fmt.Sprint(m.TLS)},
		Setting{"HUSH_SMTP_OPENSSL_VERIFY_MODE", map[bool]string{false: "peer", true: "none"}[m.SkipVerify]},
		Setting{"HUSH_SMTP_DOMAIN", orNone(m.HELO, "(the host name)")},
		Setting{"HUSH_SMTP_OPEN_TIMEOUT", m.OpenTimeout.String()},
		Setting{"HUSH_SMTP_READ_TIMEOUT", m.ReadTimeout.String()})
}

// localeShown is the default language in force.
func localeShown(c *Config) string {
	switch {
	case c.UntranslatedLang != "":
		return "en (" + c.UntranslatedLang + " is not translated yet)"
	case c.Push.DefaultLocale == "":
		return "en"
	}
	return c.Push.DefaultLocale
}
