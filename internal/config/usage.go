package config

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
)

// usageRow is one line of the settings table.
type usageRow struct {
	env, flag, def, meaning string
}

// usageRows lists every setting for Usage.
func usageRows() []usageRow {
	return []usageRow{
		{"HUSH_ADDR", "-addr", defaultAddr, "listen address"},
		{"HUSH_DATA_DIR", "-data-dir", defaultDataDir, "data directory (SQLite database, uploaded files)"},
		{"HUSH_DATABASE_URL", "-database-url", "(SQLite <data-dir>/hush.db)", "sqlite:<path>, file:<path> or postgres://user:pass@host/db"},
		{"HUSH_SQLITE_SYNC", "", defaultSQLiteSync, "SQLite durability: normal (a power loss may lose the last commits) or full (fsync on every commit)"},
		{"HUSH_SQLITE_BUSY_TIMEOUT", "", defaultSQLiteBusyTimeout.String(), "how long a write waits for the SQLite lock held by another process before the request gets 503"},
		{"HUSH_MASTER_KEY", "", "(none)", "master encryption key, 64 hex characters"},
		{"HUSH_MASTER_KEY_FILE", "-master-key-file", "(none)", "file holding the master key (instead of HUSH_MASTER_KEY)"},
		{"HUSH_MASTER_KEY_PREVIOUS", "", "(none)", "comma-separated retired master keys, still used for decryption"},
		{"HUSH_MASTER_KEY_PREVIOUS_FILE", "", "(none)", "file of retired master keys, comma or newline separated"},
		{"HUSH_BASE_URL", "-base-url", "(from request)", "public http(s) base URL for generated links; alias PWP__OVERRIDE_BASE_URL"},
		{"HUSH_TRUSTED_PROXIES", "-trusted-proxies", "(none)", "comma-separated CIDRs or IPs whose X-Forwarded-For is trusted"},
		{"HUSH_LOG_FORMAT", "-log-format", defaultLogFormat, "log format: text or json"},
		{"HUSH_LOG_LEVEL", "-log-level", "info", "log level: debug, info, warn or error"},
		{"HUSH_S3_ENDPOINT", "", "(none: files in <data-dir>/files)", "S3-compatible server host:port; set to store files in a bucket"},
		{"HUSH_S3_BUCKET", "", "(none)", "bucket for files (required with HUSH_S3_ENDPOINT)"},
		{"HUSH_S3_ACCESS_KEY", "", "(none)", "S3 access key (required with HUSH_S3_ENDPOINT); or HUSH_S3_ACCESS_KEY_FILE"},
		{"HUSH_S3_SECRET_KEY", "", "(none)", "S3 secret key (required with HUSH_S3_ENDPOINT); or HUSH_S3_SECRET_KEY_FILE"},
		{"HUSH_S3_REGION", "", defaultS3Region, "S3 region"},
		{"HUSH_S3_USE_SSL", "", "true", "connect to the S3 server over TLS"},
		{"HUSH_S3_PREFIX", "", "(none)", "key prefix of the objects, e.g. hush/"},
		{"HUSH_MAX_JSON_BODY", "", fmt.Sprint(defaultMaxJSONBody), "maximum JSON request body in bytes"},
		{"HUSH_MAX_FILE_SIZE", "", fmt.Sprint(defaultMaxFileSize), "maximum size of one attached file in bytes"},
		{"HUSH_MAX_PUSH_SIZE", "", fmt.Sprint(defaultMaxPushSize), "maximum size of all files of one push in bytes"},
		{"HUSH_WEBHOOK_ALLOW_PRIVATE", "", "false", "true: webhook endpoints may be http URLs and reach private, loopback and link-local addresses"},
		{"HUSH_SWEEP_INTERVAL", "", defaultSweepInterval.String(), "how often expired pushes are swept (Go duration, >= 1s)"},
		{"HUSH_SHUTDOWN_TIMEOUT", "", defaultShutdownTimeout.String(), "grace period for requests on shutdown (Go duration)"},
		{"HUSH_CORS_ORIGINS", "", "*", "origins whose pages may call the JSON API from a browser (no credentials): *, comma-separated scheme://host[:port], or none"},
		{"HUSH_SUBDAY_DURATIONS", "", "true", "offer expiry after 15 minutes to 12 hours (expire_after_duration 0..5) on the form and honour it in the API; false gives such a request the shortest day limit"},
		{"PWP__PURGE_AFTER", "", "disabled", "delete expired pushes after e.g. \"3 months\" (minutes..years)"},
		{"PWP__ALLOW_ANONYMOUS", "", "true", "allow pushes without an account"},
		{"PWP__DISABLE_SIGNUPS", "", "false", "hide the sign-up page"},
		{"PWP__DEFAULT_LOCALE", "", "en", "language of pages and emails when neither the address, the account nor the browser chooses one"},
		{"PWP__DISABLE_LOGINS", "", "false", "disable web sign-in (API tokens still work)"},
		{"PWP__REQUIRE_MFA", "", "false", "every account must set up two-factor authentication (TOTP) before anything else; API tokens of accounts without it get 403; alias HUSH_REQUIRE_2FA"},
		{"PWP__ENABLE_FILE_PUSHES", "", "true", "enable file pushes"},
		{"PWP__ENABLE_URL_PUSHES", "", "true", "enable URL pushes"},
		{"PWP__ENABLE_QR_PUSHES", "", "true", "enable QR code pushes"},
		{"PWP__FILES__MAX_FILE_UPLOADS", "", "10", "maximum number of files per push (>= 0)"},
		{"HUSH_OIDC_ISSUER", "", "(none: no single sign-on)", "OpenID Connect provider's issuer URL; set it, with HUSH_BASE_URL, for single sign-on (callback <base URL>/users/sso/callback)"},
		{"HUSH_OIDC_CLIENT_ID", "", "(required with SSO)", "Hush's client id at the provider"},
		{"HUSH_OIDC_CLIENT_SECRET", "", "(required with SSO)", "the client's secret; or HUSH_OIDC_CLIENT_SECRET_FILE"},
		{"HUSH_OIDC_SCOPES", "", defaultOIDCScopes, "scopes asked for (openid is always added)"},
		{"HUSH_OIDC_BUTTON_LABEL", "", "Sign in with single sign-on", "text of the sign-in button"},
		{"HUSH_OIDC_ALLOWED_DOMAINS", "", "(any)", "comma-separated email domains allowed to sign in with SSO"},
		{"HUSH_OIDC_CREATE_USERS", "", "false", "true: a person without an account gets one on first SSO sign-in; false: the account must exist"},
		{"HUSH_PASSWORD_SIGN_IN", "", "true", "false: no password sign-in, sign-up or reset (needs HUSH_OIDC_ISSUER)"},
		{"HUSH_SMTP_ADDRESS", "", "(none: no email)", "SMTP server host; alias PWP__MAIL__SMTP_ADDRESS. Set it, with HUSH_BASE_URL, to send email"},
		{"HUSH_SMTP_PORT", "", "587 (465 with HUSH_SMTP_TLS)", "SMTP port; alias PWP__MAIL__SMTP_PORT"},
		{"HUSH_SMTP_FROM", "", "(required with email)", "sender, \"Name <address>\" or an address; alias PWP__MAIL__MAILER_SENDER"},
		{"HUSH_SMTP_USER_NAME", "", "(none)", "SMTP user name; alias PWP__MAIL__SMTP_USER_NAME"},
		{"HUSH_SMTP_PASSWORD", "", "(none)", "SMTP password; or HUSH_SMTP_PASSWORD_FILE; aliases PWP__MAIL__SMTP_PASSWORD(_FILE)"},
		{"HUSH_SMTP_AUTHENTICATION", "", "plain with a user name, else none", "plain, login, cram_md5 or none; alias PWP__MAIL__SMTP_AUTHENTICATION"},
		{"HUSH_SMTP_STARTTLS", "", "false", "true: require STARTTLS; alias PWP__MAIL__SMTP_STARTTLS"},
		{"HUSH_SMTP_ENABLE_STARTTLS_AUTO", "", "true", "use STARTTLS when offered; alias PWP__MAIL__SMTP_ENABLE_STARTTLS_AUTO"},
		{"HUSH_SMTP_TLS", "", "false", "implicit TLS from the first byte (SMTPS, port 465)"},
		{"HUSH_SMTP_OPENSSL_VERIFY_MODE", "", "peer", "peer checks the server's certificate, none does not; alias PWP__MAIL__SMTP_OPENSSL_VERIFY_MODE"},
		{"HUSH_SMTP_DOMAIN", "", "(the host name)", "name given in HELO/EHLO; alias PWP__MAIL__SMTP_DOMAIN"},
		{"HUSH_SMTP_OPEN_TIMEOUT", "", "10", "seconds to connect; alias PWP__MAIL__SMTP_OPEN_TIMEOUT"},
		{"HUSH_SMTP_READ_TIMEOUT", "", "10", "seconds for each reply; alias PWP__MAIL__SMTP_READ_TIMEOUT"},
		{"PWP__NOTIFY_BY_EMAIL__ENABLED", "", "true", "with email: owners may email a push's link to its recipients (notify_emails_to)"},
		{"PWP__ENABLE_USER_ACCOUNT_EMAILS", "", "false", "true: new accounts confirm their address by email before signing in (needs email)"},
		{"PWP__SIGNUP_EMAIL_REGEXP", "", "(any address)", "regular expression a new account's address must match to sign up"},
		{"PWP__<S>__EXPIRE_AFTER_DAYS_DEFAULT", "", "7", "default days until expiry"},
		{"PWP__<S>__EXPIRE_AFTER_DAYS_MIN", "", "1", "minimum days until expiry (>= 1)"},
		{"PWP__<S>__EXPIRE_AFTER_DAYS_MAX", "", "90", "maximum days until expiry (<= 3650)"},
		{"PWP__<S>__EXPIRE_AFTER_VIEWS_DEFAULT", "", "5", "default views until expiry"},
		{"PWP__<S>__EXPIRE_AFTER_VIEWS_MIN", "", "1", "minimum views until expiry (>= 1)"},
		{"PWP__<S>__EXPIRE_AFTER_VIEWS_MAX", "", "100", "maximum views until expiry (<= 1000000)"},
		{"PWP__<S>__ENABLE_RETRIEVAL_STEP", "", "true", "offer the click-through retrieval step"},
		{"PWP__<S>__RETRIEVAL_STEP_DEFAULT", "", "true", "retrieval step on by default"},
		{"PWP__<S>__ENABLE_DELETABLE_PUSHES", "", "true", "let viewers delete pushes (not for URL)"},
		{"PWP__<S>__DELETABLE_PUSHES_DEFAULT", "", "true", "viewer deletion on by default (not for URL)"},
	}
}

// Usage returns the help text of `hush serve`: its flags and a table of all
// environment variables with their defaults and meanings.
func Usage() string {
	var b strings.Builder
	b.WriteString(`Usage: hush serve [flags]

Settings come from environment variables and, for some, flags. An
environment variable wins over its flag; an empty variable counts as unset.
<S> is one of the Password Pusher sections PW (text), URL, FILES or QR.
Booleans accept true/false, 1/0, yes/no, on/off, t/f.

`)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIABLE\tFLAG\tDEFAULT\tMEANING")
	for _, r := range slices.Concat(usageRows(), hardeningUsage(), brandUsage(), generatorUsage()) {
		flag := r.flag
		if flag == "" {
			flag = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.env, flag, r.def, r.meaning)
	}
	tw.Flush()
	return b.String()
}
