package config

import (
	"errors"
	"fmt"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Mail is how Hush reaches its SMTP server. Config.Mail is nil unless an
// SMTP address is set; then Hush sends email (docs/decisions.md, D35).
type Mail struct {
	Host        string
	Port        int
	Username    string
	Password    string
	Auth        string // none, plain, login or cram_md5
	StartTLS    string // required, opportunistic or off
	TLS         bool   // implicit TLS (SMTPS)
	SkipVerify  bool   // PWP__MAIL__SMTP_OPENSSL_VERIFY_MODE=none
	HELO        string // PWP__MAIL__SMTP_DOMAIN
	From        string // the sender, "Name <address>" or an address
	OpenTimeout time.Duration
	ReadTimeout time.Duration
}

// mailSetting is one SMTP setting: Hush's name and Password Pusher's. Hush's
// wins when both are set.
type mailSetting struct{ hush, pwp string }

var (
	smtpAddress  = mailSetting{"HUSH_SMTP_ADDRESS", "PWP__MAIL__SMTP_ADDRESS"}
	smtpPort     = mailSetting{"HUSH_SMTP_PORT", "PWP__MAIL__SMTP_PORT"}
	smtpUser     = mailSetting{"HUSH_SMTP_USER_NAME", "PWP__MAIL__SMTP_USER_NAME"}
	smtpPassword = mailSetting{"HUSH_SMTP_PASSWORD", "PWP__MAIL__SMTP_PASSWORD"}
	smtpAuth     = mailSetting{"HUSH_SMTP_AUTHENTICATION", "PWP__MAIL__SMTP_AUTHENTICATION"}
	smtpStartTLS = mailSetting{"HUSH_SMTP_STARTTLS", "PWP__MAIL__SMTP_STARTTLS"}
	smtpAutoTLS  = mailSetting{"HUSH_SMTP_ENABLE_STARTTLS_AUTO", "PWP__MAIL__SMTP_ENABLE_STARTTLS_AUTO"}
	smtpTLS      = mailSetting{"HUSH_SMTP_TLS", ""}
	smtpVerify   = mailSetting{"HUSH_SMTP_OPENSSL_VERIFY_MODE", "PWP__MAIL__SMTP_OPENSSL_VERIFY_MODE"}
	smtpDomain   = mailSetting{"HUSH_SMTP_DOMAIN", "PWP__MAIL__SMTP_DOMAIN"}
	smtpOpen     = mailSetting{"HUSH_SMTP_OPEN_TIMEOUT", "PWP__MAIL__SMTP_OPEN_TIMEOUT"}
	smtpRead     = mailSetting{"HUSH_SMTP_READ_TIMEOUT", "PWP__MAIL__SMTP_READ_TIMEOUT"}
	smtpFrom     = mailSetting{"HUSH_SMTP_FROM", "PWP__MAIL__MAILER_SENDER"}
)

// mailSettings are the settings that mean nothing without an SMTP address.
var mailSettings = []mailSetting{smtpPort, smtpUser, smtpPassword, {"HUSH_SMTP_PASSWORD_FILE", "PWP__MAIL__SMTP_PASSWORD_FILE"},
	smtpAuth, smtpStartTLS, smtpAutoTLS, smtpTLS, smtpVerify, smtpDomain, smtpOpen, smtpRead, smtpFrom}

// get reads a mail setting: Hush's name, then Password Pusher's.
func (m mailSetting) get(s *source) (value, name string, ok bool) {
	if v, n, ok := s.env(m.hush); ok {
		return v, n, true
	}
	if m.pwp == "" {
		return "", m.hush, false
	}
	return s.env(m.pwp)
}

// loadMail reads the SMTP settings, and the account settings that need
// email: PWP__ENABLE_USER_ACCOUNT_EMAILS (new accounts confirm their
// address), PWP__NOTIFY_BY_EMAIL__ENABLED and PWP__SIGNUP_EMAIL_REGEXP.
// The password never appears in an error.
func loadMail(s *source, c *Config) error {
	errs := []error{loadAccountMail(s, c)}
	host, hostName, ok := smtpAddress.get(s)
	if !ok {
		for _, m := range mailSettings {
			if _, name, set := m.get(s); set {
				errs = append(errs, fmt.Errorf("%s is set but no SMTP server is (HUSH_SMTP_ADDRESS or PWP__MAIL__SMTP_ADDRESS)", name))
			}
		}
		if c.ConfirmAccounts {
			errs = append(errs, errors.New("PWP__ENABLE_USER_ACCOUNT_EMAILS=true needs an SMTP server (HUSH_SMTP_ADDRESS or PWP__MAIL__SMTP_ADDRESS)"))
		}
		c.Push.NotifyByEmail = false
		return errors.Join(errs...)
	}
	m := &Mail{Host: host, OpenTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second}
	if strings.ContainsAny(host, "/:@ ") {
		errs = append(errs, fmt.Errorf("%s: %q must be a host name or address alone (the port is HUSH_SMTP_PORT)", hostName, host))
	}
	if c.BaseURL == "" {
		// A link emailed must name the instance itself: a request's Host
		// header is the client's to choose, and a password reset asked for
		// with another site's name would send the victim's link there.
		errs = append(errs, fmt.Errorf("%s needs HUSH_BASE_URL (or PWP__OVERRIDE_BASE_URL): the links Hush emails name the instance's address, never the one a request names", hostName))
	}
	errs = append(errs, loadMailSecurity(s, m), loadMailAuth(s, m), loadMailTimeouts(s, m))
	if v, name, ok := smtpFrom.get(s); ok {
		if a, err := mail.ParseAddress(v); err != nil || strings.ContainsAny(a.Address, " <>\"") || !strings.Contains(a.Address, "@") {
			errs = append(errs, fmt.Errorf("%s: %q is not a sender (\"Name <address>\" or an address)", name, v))
		}
		m.From = v
	} else {
		errs = append(errs, errors.New("HUSH_SMTP_FROM (or PWP__MAIL__MAILER_SENDER) is required with an SMTP server: the sender of Hush's messages"))
	}
	if v, _, ok := smtpDomain.get(s); ok {
		m.HELO = v
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	c.Mail = m
	c.Push.Receipts = true
	c.Push.NotifyByEmail = c.Push.NotifyByEmail && !c.DisableLogins
	return nil
}

// loadAccountMail reads the account settings that email serves.
func loadAccountMail(s *source, c *Config) error {
	var errs []error
	c.Push.NotifyByEmail = true
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"PWP__ENABLE_USER_ACCOUNT_EMAILS", &c.ConfirmAccounts}, {"PWP__NOTIFY_BY_EMAIL__ENABLED", &c.Push.NotifyByEmail}} {
		if v, name, ok := s.env(b.name); ok {
			val, err := parseBool(name, v)
			errs = append(errs, err)
			*b.dst = val && err == nil
		}
	}
	if v, name, ok := s.env("PWP__SIGNUP_EMAIL_REGEXP"); ok {
		re, err := regexp.Compile(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %q is not a regular expression Hush can read (RE2 syntax: \\A, \\z, groups and classes work; look-arounds and back-references do not): %w", name, v, err))
		}
		c.SignupEmailRegexp = re
	}
	return errors.Join(errs...)
}

// loadMailSecurity reads the port and the TLS settings: implicit TLS
// (HUSH_SMTP_TLS, and the default port 465 with it), STARTTLS required
// (SMTP_STARTTLS) or when offered (SMTP_ENABLE_STARTTLS_AUTO, the
// default), and whether the certificate is checked.
func loadMailSecurity(s *source, m *Mail) error {
	var errs []error
	if v, name, ok := smtpTLS.get(s); ok {
		b, err := parseBool(name, v)
		errs = append(errs, err)
		m.TLS = b
	}
	m.Port = 587
	if m.TLS {
		m.Port = 465
	}
	if v, name, ok := smtpPort.get(s); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 65535 {
			errs = append(errs, fmt.Errorf("%s: %q is not a port (1 to 65535)", name, v))
		}
		m.Port = n
	}
	m.StartTLS = "opportunistic"
	if v, name, ok := smtpAutoTLS.get(s); ok {
		b, err := parseBool(name, v)
		errs = append(errs, err)
		if !b {
			m.StartTLS = "off"
		}
	}
	if v, name, ok := smtpStartTLS.get(s); ok {
		b, err := parseBool(name, v)
		errs = append(errs, err)
		if b {
			m.StartTLS = "required"
		}
	}
	if v, name, ok := smtpVerify.get(s); ok {
		switch strings.ToLower(v) {
		case "peer":
		case "none":
			m.SkipVerify = true
		default:
			errs = append(errs, fmt.Errorf("%s: %q is not a verify mode (want peer or none)", name, v))
		}
	}
	return errors.Join(errs...)
}

// loadMailAuth reads the credentials and the mechanism: plain by default
// when a user name is set, none otherwise.
func loadMailAuth(s *source, m *Mail) error {
	var errs []error
	user, _, hasUser := smtpUser.get(s)
	m.Username = user
	pw, err := secretSetting(s, smtpPassword.hush, false)
	errs = append(errs, err)
	if pw == "" {
		pw, err = secretSetting(s, smtpPassword.pwp, false)
		errs = append(errs, err)
	}
	m.Password = pw
	m.Auth = "none"
	if hasUser {
		m.Auth = "plain"
	}
	if v, name, ok := smtpAuth.get(s); ok {
		switch a := strings.ToLower(strings.TrimPrefix(v, ":")); a {
		case "plain", "login", "cram_md5", "none":
			m.Auth = a
		default:
			errs = append(errs, fmt.Errorf("%s: %q is not an authentication (want plain, login, cram_md5 or none)", name, v))
		}
	}
	if m.Auth != "none" && (m.Username == "" || m.Password == "") {
		errs = append(errs, fmt.Errorf("SMTP authentication %s needs a user name and a password (HUSH_SMTP_USER_NAME, HUSH_SMTP_PASSWORD or their PWP__MAIL__ forms)", m.Auth))
	}
	return errors.Join(errs...)
}

// loadMailTimeouts reads the timeouts: whole seconds, as Password Pusher
// takes them, or a Go duration.
func loadMailTimeouts(s *source, m *Mail) error {
	var errs []error
	for _, t := range []struct {
		set mailSetting
		dst *time.Duration
	}{{smtpOpen, &m.OpenTimeout}, {smtpRead, &m.ReadTimeout}} {
		v, name, ok := t.set.get(s)
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			*t.dst = time.Duration(n) * time.Second
			continue
		}
		d, err := parseDuration(name, v, time.Second)
		errs = append(errs, err)
		*t.dst = d
	}
	return errors.Join(errs...)
}
