package config

import (
	"slices"
	"strings"
	"testing"
)

// TestInForceHidesSecrets: the settings shown to admins name every
// setting's value but the secrets', which show only that they are set.
func TestInForceHidesSecrets(t *testing.T) {
	secrets := map[string]string{
		"HUSH_MASTER_KEY":          testKey,
		"HUSH_MASTER_KEY_PREVIOUS": strings.Repeat("ab", 32),
		"HUSH_DATABASE_URL":        "postgres://hush:db-pass-Zq81@db.internal:5432/hush?sslmode=disable&password=query-pass-Kx20",
		"HUSH_S3_ENDPOINT":         "s3.example.com:9000",
		"HUSH_S3_BUCKET":           "hush-files",
		"HUSH_S3_ACCESS_KEY":       "access-key-Wm55",
		"HUSH_S3_SECRET_KEY":       "secret-key-Jt73",
		"HUSH_REQUIRE_2FA":         "yes",
		"HUSH_SMTP_ADDRESS":        "smtp.example.com",
		"HUSH_BASE_URL":            "https://hush.example.com",
		"HUSH_SMTP_FROM":           "Hush <hush@example.com>",
		"HUSH_SMTP_USER_NAME":      "hush-mailer",
		"HUSH_SMTP_PASSWORD":       "smtp-pass-Pq44",
	}
	c := mustLoad(t, nil, secrets)
	var all strings.Builder
	shown := map[string]string{}
	for _, s := range c.InForce() {
		all.WriteString(s.Name + "=" + s.Value + "\n")
		shown[s.Name] = s.Value
	}
	for _, leak := range []string{testKey, strings.Repeat("ab", 32), "db-pass-Zq81", "query-pass-Kx20", "access-key-Wm55", "secret-key-Jt73", "smtp-pass-Pq44"} {
		if strings.Contains(all.String(), leak) {
			t.Errorf("the settings shown hold a secret %q:\n%s", leak, all.String())
		}
	}
	for name, want := range map[string]string{
		"HUSH_MASTER_KEY": "set", "HUSH_MASTER_KEY_PREVIOUS": "1 key", "HUSH_S3_SECRET_KEY": "set",
		"HUSH_DATABASE_URL": "PostgreSQL hush@db.internal:5432/hush (with parameters)", "HUSH_S3_BUCKET": "hush-files",
		"PWP__REQUIRE_MFA": "true", "HUSH_SMTP_PASSWORD": "set", "HUSH_SMTP_USER_NAME": "hush-mailer", "PWP__PW__…": "days 7 (1–90), views 5 (1–100), retrieval step offered, on by default, deletable by viewers offered, on by default",
	} {
		if shown[name] != want {
			t.Errorf("%s shown as %q, want %q", name, shown[name], want)
		}
	}
	if !c.RequireTwoFactor {
		t.Error("HUSH_REQUIRE_2FA=yes did not require a second factor")
	}
}

func TestRequireMFA(t *testing.T) {
	for env, want := range map[string]bool{"": false, "true": true, "0": false, "on": true} {
		c := mustLoad(t, nil, map[string]string{"PWP__REQUIRE_MFA": env})
		if c.RequireTwoFactor != want {
			t.Errorf("PWP__REQUIRE_MFA=%q: %v", env, c.RequireTwoFactor)
		}
	}
	// The Password Pusher name wins over the alias when both are set.
	if c := mustLoad(t, nil, map[string]string{"PWP__REQUIRE_MFA": "false", "HUSH_REQUIRE_2FA": "true"}); c.RequireTwoFactor {
		t.Error("the alias won over PWP__REQUIRE_MFA")
	}
	_, err := Load(nil, envMap(map[string]string{"HUSH_REQUIRE_2FA": "sometimes"}))
	if err == nil || !strings.Contains(err.Error(), "HUSH_REQUIRE_2FA") {
		t.Errorf("a bad value: %v", err)
	}
}

// TestInForceCoversUsage: every setting of `hush serve -h` is on the admin
// overview (a setting added later must say there whether it is a secret).
func TestInForceCoversUsage(t *testing.T) {
	shown := map[string]bool{}
	for _, s := range mustLoad(t, nil, map[string]string{"HUSH_S3_ENDPOINT": "s3.example.com:9000", "HUSH_S3_BUCKET": "b",
		"HUSH_S3_ACCESS_KEY": "a", "HUSH_S3_SECRET_KEY": "s",
		"HUSH_SMTP_ADDRESS": "smtp.example.com", "HUSH_SMTP_FROM": "hush@example.com", "HUSH_BASE_URL": "https://hush.example.com",
		"HUSH_OIDC_ISSUER": "https://id.example.com", "HUSH_OIDC_CLIENT_ID": "hush", "HUSH_OIDC_CLIENT_SECRET": "s"}).InForce() {
		shown[s.Name] = true
	}
	for _, r := range slices.Concat(usageRows(), hardeningUsage(), brandUsage(), generatorUsage()) {
		name := r.env
		if strings.Contains(name, "<") || strings.HasSuffix(name, "_FILE") {
			continue // the kinds' rows are shown per kind; a _FILE is its setting's source
		}
		if !shown[name] {
			t.Errorf("%s is not on the admin overview", name)
		}
	}
	if u := Usage(); !strings.Contains(u, "PWP__REQUIRE_MFA") || !strings.Contains(u, "HUSH_REQUIRE_2FA") {
		t.Error("Usage does not mention PWP__REQUIRE_MFA and its alias")
	}
}
