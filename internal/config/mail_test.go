package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMailOff(t *testing.T) {
	c := mustLoad(t, nil, nil)
	if c.Mail != nil || c.Push.NotifyByEmail || c.Push.Receipts || c.ConfirmAccounts || c.SignupEmailRegexp != nil {
		t.Errorf("without SMTP: mail %+v, notify %v, receipts %v, confirm %v", c.Mail, c.Push.NotifyByEmail, c.Push.Receipts, c.ConfirmAccounts)
	}
}

// Password Pusher's names work as they are; Hush's win when both are set.
func TestMailSettings(t *testing.T) {
	pwFile := filepath.Join(t.TempDir(), "smtp-password")
	if err := os.WriteFile(pwFile, []byte("from a file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := mustLoad(t, nil, map[string]string{
		"HUSH_BASE_URL": "https://hush.example", "PWP__MAIL__SMTP_ADDRESS": "smtp.example.com", "PWP__MAIL__SMTP_PORT": "2525",
		"PWP__MAIL__SMTP_USER_NAME": "pwp-user", "HUSH_SMTP_USER_NAME": "hush-user",
		"PWP__MAIL__SMTP_PASSWORD_FILE": pwFile, "PWP__MAIL__SMTP_AUTHENTICATION": ":login",
		"PWP__MAIL__SMTP_STARTTLS": "true", "PWP__MAIL__MAILER_SENDER": `"Hush" <hush@example.com>`,
		"PWP__MAIL__SMTP_OPEN_TIMEOUT": "3", "HUSH_SMTP_READ_TIMEOUT": "1500ms", "PWP__MAIL__SMTP_DOMAIN": "hush.example.com",
	})
	m := c.Mail
	if m == nil {
		t.Fatal("no mail settings")
	}
	want := Mail{Host: "smtp.example.com", Port: 2525, Username: "hush-user", Password: "from a file", Auth: "login",
		StartTLS: "required", From: `"Hush" <hush@example.com>`, HELO: "hush.example.com",
		OpenTimeout: 3 * time.Second, ReadTimeout: 1500 * time.Millisecond}
	if *m != want {
		t.Errorf("mail\n%+v, want\n%+v", *m, want)
	}
	if !c.Push.NotifyByEmail || !c.Push.Receipts {
		t.Errorf("with SMTP: notify %v, receipts %v", c.Push.NotifyByEmail, c.Push.Receipts)
	}

	// Implicit TLS takes port 465; a user name alone means plain.
	c = mustLoad(t, nil, map[string]string{"PWP__OVERRIDE_BASE_URL": "https://hush.example", "HUSH_SMTP_ADDRESS": "mail.example.com", "HUSH_SMTP_TLS": "true",
		"HUSH_SMTP_FROM": "hush@example.com", "HUSH_SMTP_USER_NAME": "u", "HUSH_SMTP_PASSWORD": "p",
		"PWP__MAIL__SMTP_ENABLE_STARTTLS_AUTO": "false", "PWP__MAIL__SMTP_OPENSSL_VERIFY_MODE": "none"})
	if m := c.Mail; m.Port != 465 || !m.TLS || m.Auth != "plain" || m.StartTLS != "off" || !m.SkipVerify {
		t.Errorf("implicit TLS: %+v", *m)
	}
	// Auto-dispatch follows PWP__NOTIFY_BY_EMAIL__ENABLED and web sign-in,
	// as Password Pusher's.
	base := map[string]string{"HUSH_BASE_URL": "https://hush.example", "HUSH_SMTP_ADDRESS": "mail.example.com", "HUSH_SMTP_FROM": "hush@example.com"}
	for k, v := range map[string]string{"PWP__NOTIFY_BY_EMAIL__ENABLED": "false", "PWP__DISABLE_LOGINS": "true"} {
		env := map[string]string{k: v}
		for bk, bv := range base {
			env[bk] = bv
		}
		if c := mustLoad(t, nil, env); c.Push.NotifyByEmail || !c.Push.Receipts {
			t.Errorf("%s=%s: notify %v, receipts %v", k, v, c.Push.NotifyByEmail, c.Push.Receipts)
		}
	}
	env := map[string]string{"PWP__ENABLE_USER_ACCOUNT_EMAILS": "true", "PWP__SIGNUP_EMAIL_REGEXP": `@example\.com\z`}
	for bk, bv := range base {
		env[bk] = bv
	}
	if c := mustLoad(t, nil, env); !c.ConfirmAccounts || !c.SignupEmailRegexp.MatchString("a@example.com") || c.SignupEmailRegexp.MatchString("a@example.com.evil") {
		t.Errorf("account settings: confirm %v, regexp %v", c.ConfirmAccounts, c.SignupEmailRegexp)
	}
}

// Invalid mail settings stop start-up with a message naming the setting,
// and never the password.
func TestMailErrors(t *testing.T) {
	base := map[string]string{"HUSH_BASE_URL": "https://hush.example", "HUSH_SMTP_ADDRESS": "mail.example.com", "HUSH_SMTP_FROM": "hush@example.com"}
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"PWP__MAIL__SMTP_PORT": "25"}, "PWP__MAIL__SMTP_PORT is set but no SMTP server is"},
		{map[string]string{"PWP__ENABLE_USER_ACCOUNT_EMAILS": "true"}, "PWP__ENABLE_USER_ACCOUNT_EMAILS=true needs an SMTP server"},
		{map[string]string{"PWP__SIGNUP_EMAIL_REGEXP": `(?<=a)b`}, "PWP__SIGNUP_EMAIL_REGEXP"},
		{map[string]string{"HUSH_SMTP_ADDRESS": "mail.example.com"}, "HUSH_SMTP_FROM (or PWP__MAIL__MAILER_SENDER) is required"},
		// A link must name the instance, never a request's Host (D36).
		{map[string]string{"HUSH_SMTP_ADDRESS": "mail.example.com", "HUSH_SMTP_FROM": "hush@example.com"}, "HUSH_SMTP_ADDRESS needs HUSH_BASE_URL"},
		{merge(base, "HUSH_SMTP_PORT", "smtp"), "HUSH_SMTP_PORT"},
		{merge(base, "HUSH_SMTP_PORT", "70000"), "HUSH_SMTP_PORT"},
		{merge(base, "HUSH_SMTP_ADDRESS", "mail.example.com:587"), "HUSH_SMTP_ADDRESS"},
		{merge(base, "HUSH_SMTP_FROM", "hush@example.com\r\nBcc: x@evil.example"), "HUSH_SMTP_FROM"},
		{merge(base, "HUSH_SMTP_FROM", "not an address"), "HUSH_SMTP_FROM"},
		{merge(base, "PWP__MAIL__SMTP_AUTHENTICATION", "ntlm"), "PWP__MAIL__SMTP_AUTHENTICATION"},
		{merge(base, "HUSH_SMTP_OPENSSL_VERIFY_MODE", "sometimes"), "HUSH_SMTP_OPENSSL_VERIFY_MODE"},
		{merge(base, "HUSH_SMTP_STARTTLS", "maybe"), "HUSH_SMTP_STARTTLS"},
		{merge(base, "HUSH_SMTP_AUTHENTICATION", "plain", "HUSH_SMTP_PASSWORD", "hunter2-secret"), "needs a user name and a password"},
		{merge(base, "HUSH_SMTP_PASSWORD", "hunter2-secret", "HUSH_SMTP_PASSWORD_FILE", "/nonexistent"), "use only one"},
	} {
		_, err := Load(nil, envMap(tc.env))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.env, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "hunter2-secret") {
			t.Errorf("%v: the error shows the password: %v", tc.env, err)
		}
	}
}

// merge is base with the pairs kv set.
func merge(base map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}
