// Package config loads the settings of `hush serve` from command-line flags
// and the environment, including Password Pusher's PWP__ variables.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"hush/internal/push"
)

// Default values of the HUSH_ settings.
const (
	defaultAddr              = ":5100"
	defaultDataDir           = "./data"
	defaultLogFormat         = "text"
	defaultMaxJSONBody       = push.MaxEncodedPayload + 1<<20 // the largest payload in its worst encoding, and 1 MiB for the other fields: 13 MiB
	defaultMaxFileSize       = 100 << 20
	defaultMaxPushSize       = 1 << 30
	defaultSweepInterval     = time.Minute
	defaultShutdownTimeout   = 15 * time.Second
	defaultSQLiteSync        = "normal"
	defaultSQLiteBusyTimeout = 10 * time.Second
	sqliteFileName           = "hush.db"
)

// Config is the complete runtime configuration of the server.
type Config struct {
	Addr              string         // listen address (HUSH_ADDR / -addr)
	DataDir           string         // data directory (HUSH_DATA_DIR / -data-dir)
	DatabaseURL       string         // "" (SQLite in DataDir), "sqlite:<path>", "file:<path>" or a postgres:// URL
	SQLiteSync        string         // HUSH_SQLITE_SYNC: "normal" or "full" (SQLite's synchronous; ignored for PostgreSQL)
	SQLiteBusyTimeout time.Duration  // HUSH_SQLITE_BUSY_TIMEOUT: how long a write waits for the database lock before 503
	MasterKey         string         // 64 hex characters, or "" when unset
	MasterKeyFile     string         // the file MasterKey was read from (HUSH_MASTER_KEY_FILE), if any
	MasterKeyPrevious []string       // retired master keys still accepted for decryption
	BaseURL           string         // absolute http(s) URL without trailing "/", or ""
	TrustedProxies    []netip.Prefix // proxies whose X-Forwarded-For is honoured
	LogFormat         string         // "text" or "json"
	LogLevel          slog.Level     // minimum log level
	MaxJSONBody       int64          // maximum JSON request body in bytes
	MaxFileSize       int64          // maximum size of one attached file in bytes
	MaxPushSize       int64          // maximum size of all files of one push in bytes
	SweepInterval     time.Duration  // how often expired pushes are swept
	ShutdownTimeout   time.Duration  // grace period for in-flight requests on shutdown
	PurgeAfter        time.Duration  // purge expired pushes after this long; 0 disables purging
	Push              push.Settings  // push limits and defaults from the PWP__ variables
	DisableSignups    bool           // PWP__DISABLE_SIGNUPS: no self-service sign-up page
	DisableLogins     bool           // PWP__DISABLE_LOGINS: no web sign-in (API tokens still work)
	RequireTwoFactor  bool           // PWP__REQUIRE_MFA (alias HUSH_REQUIRE_2FA): every account must set up a second factor
	S3                *S3            // S3-compatible file storage, or nil for <data-dir>/files
	CORSOrigins       []string       // HUSH_CORS_ORIGINS: origins whose pages may call the API, "*" for any; nil: no CORS
	Hardening         Hardening      // rate limits, server timeouts, metrics listener (hardening.go)
	Mail              *Mail          // the SMTP server, or nil: no email (mail.go)
	ConfirmAccounts   bool           // PWP__ENABLE_USER_ACCOUNT_EMAILS: new accounts confirm their address
	SignupEmailRegexp *regexp.Regexp // PWP__SIGNUP_EMAIL_REGEXP: what a new account's address must match; nil: any
	Brand             Brand          // the pages' branding and blur (brand.go)
	OIDC              *OIDC          // single sign-on, or nil (oidc.go)
	PasswordSignIn    bool           // HUSH_PASSWORD_SIGN_IN: password sign-in, sign-up and reset; false only with OIDC
	// WebhookAllowPrivate (HUSH_WEBHOOK_ALLOW_PRIVATE) lets webhook
	// endpoints be http URLs and reach private, loopback and link-local
	// addresses (docs/decisions.md, D49).
	WebhookAllowPrivate bool
	UntranslatedLang    string // a PWP__DEFAULT_LOCALE without a translation yet: English stands in for it
}

// serveFlag ties a command-line flag of `hush serve` to its environment variable.
type serveFlag struct {
	name  string // flag name without the leading "-"
	env   string // environment variable that overrides the flag
	usage string
}

// serveFlags lists every flag of `hush serve`.
func serveFlags() []serveFlag {
	return []serveFlag{
		{"addr", "HUSH_ADDR", "listen address"},
		{"data-dir", "HUSH_DATA_DIR", "data directory"},
		{"database-url", "HUSH_DATABASE_URL", "database URL"},
		{"master-key-file", "HUSH_MASTER_KEY_FILE", "file holding the master key"},
		{"base-url", "HUSH_BASE_URL", "public base URL"},
		{"trusted-proxies", "HUSH_TRUSTED_PROXIES", "trusted proxy CIDRs"},
		{"log-format", "HUSH_LOG_FORMAT", "log format: text or json"},
		{"log-level", "HUSH_LOG_LEVEL", "log level: debug, info, warn or error"},
	}
}

// Load builds the Config from the flags of `hush serve` (args excludes the
// program name and verb) and the environment read through getenv (os.Getenv
// when nil). Environment variables win over flags; empty variables count as
// unset. For -h or -help the returned error wraps flag.ErrHelp.
func Load(args []string, getenv func(string) string) (*Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	values := make(map[string]*string)
	for _, f := range serveFlags() {
		values[f.name] = fs.String(f.name, "", f.usage)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, fmt.Errorf("serve flags: %w", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("serve flags: unexpected argument %q", fs.Arg(0))
	}
	src := &source{getenv: getenv, flags: make(map[string]flagValue)}
	for _, f := range serveFlags() {
		if v := strings.TrimSpace(*values[f.name]); v != "" {
			src.flags[f.env] = flagValue{name: f.name, value: v}
		}
	}

	c := &Config{
		Addr:              defaultAddr,
		DataDir:           defaultDataDir,
		SQLiteSync:        defaultSQLiteSync,
		SQLiteBusyTimeout: defaultSQLiteBusyTimeout,
		LogFormat:         defaultLogFormat,
		LogLevel:          slog.LevelInfo,
		MaxJSONBody:       defaultMaxJSONBody,
		MaxFileSize:       defaultMaxFileSize,
		MaxPushSize:       defaultMaxPushSize,
		SweepInterval:     defaultSweepInterval,
		ShutdownTimeout:   defaultShutdownTimeout,
		Push:              push.DefaultSettings(),
		CORSOrigins:       []string{"*"},
	}
	steps := []func(*source, *Config) error{
		loadServer,
		loadMasterKeys,
		loadSQLite,
		loadWebhooks,
		loadTimings,
		loadWeb,
		loadBrand, // after loadServer: files are read from the data directory
		loadGenerator,
		loadS3,
		loadHardening,
		loadCompat,
		loadMail, // after loadWeb: auto-dispatch needs web sign-ins
		loadOIDC, // after loadServer: the callback is under the base URL
	}
	var errs []error
	for _, step := range steps {
		if err := step(src, c); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, loadPush(src, &c.Push)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if errs := validatePush(&c.Push); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// loadServer reads the listener, storage, URL, proxy and logging settings.
func loadServer(s *source, c *Config) error {
	var errs []error
	if v, _, ok := s.get("HUSH_ADDR"); ok {
		c.Addr = v
	}
	if v, _, ok := s.get("HUSH_DATA_DIR"); ok {
		c.DataDir = v
	}
	if v, name, ok := s.get("HUSH_DATABASE_URL"); ok {
		if err := checkDatabaseURL(name, v); err != nil {
			errs = append(errs, err)
		} else {
			c.DatabaseURL = v
		}
	}
	if v, name, ok := s.getAlias("HUSH_BASE_URL", "PWP__OVERRIDE_BASE_URL"); ok {
		u, err := parseBaseURL(name, v)
		if err != nil {
			errs = append(errs, err)
		} else {
			c.BaseURL = u
		}
	}
	if v, name, ok := s.get("HUSH_TRUSTED_PROXIES"); ok {
		p, err := parseProxies(name, v)
		if err != nil {
			errs = append(errs, err)
		} else {
			c.TrustedProxies = p
		}
	}
	if v, name, ok := s.get("HUSH_LOG_FORMAT"); ok {
		switch f := strings.ToLower(v); f {
		case "text", "json":
			c.LogFormat = f
		default:
			errs = append(errs, fmt.Errorf("%s: %q is not a log format (want text or json)", name, v))
		}
	}
	if v, name, ok := s.get("HUSH_LOG_LEVEL"); ok {
		l, err := parseLevel(name, v)
		if err != nil {
			errs = append(errs, err)
		} else {
			c.LogLevel = l
		}
	}
	return errors.Join(errs...)
}

// loadSQLite reads the settings of the SQLite engine.
func loadSQLite(s *source, c *Config) error {
	var errs []error
	if v, name, ok := s.env("HUSH_SQLITE_SYNC"); ok {
		switch m := strings.ToLower(v); m {
		case "normal", "full":
			c.SQLiteSync = m
		default:
			errs = append(errs, fmt.Errorf("%s: %q is not a SQLite sync mode (want normal or full)", name, v))
		}
	}
	if v, name, ok := s.env("HUSH_SQLITE_BUSY_TIMEOUT"); ok {
		d, err := parseDuration(name, v, time.Millisecond)
		if err != nil {
			errs = append(errs, err)
		} else {
			c.SQLiteBusyTimeout = d
		}
	}
	return errors.Join(errs...)
}

// loadWebhooks reads the settings of webhooks.
func loadWebhooks(s *source, c *Config) error {
	if v, name, ok := s.env("HUSH_WEBHOOK_ALLOW_PRIVATE"); ok {
		b, err := parseBool(name, v)
		if err != nil {
			return err
		}
		c.WebhookAllowPrivate = b
	}
	return nil
}

// loadTimings reads the body limit and the duration settings.
func loadTimings(s *source, c *Config) error {
	var errs []error
	for _, size := range []struct {
		env string
		dst *int64
	}{{"HUSH_MAX_JSON_BODY", &c.MaxJSONBody}, {"HUSH_MAX_FILE_SIZE", &c.MaxFileSize}, {"HUSH_MAX_PUSH_SIZE", &c.MaxPushSize}} {
		v, name, ok := s.env(size.env)
		if !ok {
			continue
		}
		n, err := parseInt(name, v, 64)
		switch {
		case err != nil:
			errs = append(errs, err)
		case n <= 0:
			errs = append(errs, fmt.Errorf("%s: %d must be greater than 0", name, n))
		default:
			*size.dst = n
		}
	}
	if v, name, ok := s.env("HUSH_SWEEP_INTERVAL"); ok {
		d, err := parseDuration(name, v, time.Second)
		if err != nil {
			errs = append(errs, err)
		} else {
			c.SweepInterval = d
		}
	}
	if v, name, ok := s.env("HUSH_SHUTDOWN_TIMEOUT"); ok {
		d, err := parseDuration(name, v, 1)
		if err != nil {
			errs = append(errs, err)
		} else {
			c.ShutdownTimeout = d
		}
	}
	if v, name, ok := s.env("PWP__PURGE_AFTER"); ok {
		d, err := parsePurgeAfter(name, v)
		if err != nil {
			errs = append(errs, err)
		} else {
			c.PurgeAfter = d
		}
	}
	return errors.Join(errs...)
}

// SQLitePath returns the SQLite file path if the config selects SQLite: the
// file hush.db in DataDir for an empty DatabaseURL, or the path after
// "sqlite:" or "file:". It returns ok=false for PostgreSQL.
func (c *Config) SQLitePath() (path string, ok bool) {
	if c.DatabaseURL == "" {
		return filepath.Join(c.DataDir, sqliteFileName), true
	}
	return SQLitePathOf(c.DatabaseURL)
}

// sqlitePrefixes are the prefixes of a database URL that names a SQLite
// file, longest first.
var sqlitePrefixes = []string{"sqlite://", "sqlite:", "file:"}

// SQLitePathOf returns the file a SQLite database URL names
// (sqlite://PATH, sqlite:PATH or file:PATH); false for any other URL. The
// one rule for every place that reads a database URL.
func SQLitePathOf(u string) (path string, ok bool) {
	for _, p := range sqlitePrefixes {
		if rest, found := strings.CutPrefix(u, p); found {
			return rest, true
		}
	}
	return "", false
}
