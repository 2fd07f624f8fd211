package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func oidcEnv(extra map[string]string) map[string]string {
	m := map[string]string{"HUSH_OIDC_ISSUER": "https://id.example.com/", "HUSH_OIDC_CLIENT_ID": "hush",
		"HUSH_OIDC_CLIENT_SECRET": "s3cret-value", "HUSH_BASE_URL": "https://hush.example.com"}
	for k, v := range extra {
		if v == "" {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	return m
}

// TestOIDCSettings: the defaults, every setting read, the secret from a
// file, and the domain list cleaned.
func TestOIDCSettings(t *testing.T) {
	c := mustLoad(t, nil, oidcEnv(nil))
	o := c.OIDC
	if o == nil || o.Issuer != "https://id.example.com/" || o.ClientID != "hush" || o.ClientSecret != "s3cret-value" ||
		strings.Join(o.Scopes, " ") != "openid email profile" || o.CreateUsers || len(o.AllowedDomains) != 0 || !c.PasswordSignIn {
		t.Fatalf("defaults: %+v, password sign-in %v", o, c.PasswordSignIn)
	}
	file := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c = mustLoad(t, nil, oidcEnv(map[string]string{"HUSH_OIDC_CLIENT_SECRET": "", "HUSH_OIDC_CLIENT_SECRET_FILE": file,
		"HUSH_OIDC_SCOPES": "email", "HUSH_OIDC_BUTTON_LABEL": "Sign in with Example", "HUSH_OIDC_ALLOWED_DOMAINS": " Example.com, @corp.example.org ,",
		"HUSH_OIDC_CREATE_USERS": "true", "HUSH_PASSWORD_SIGN_IN": "false"}))
	o = c.OIDC
	if o.ClientSecret != "from-file" || strings.Join(o.Scopes, " ") != "openid email" || o.ButtonLabel != "Sign in with Example" ||
		!slices.Equal(o.AllowedDomains, []string{"example.com", "corp.example.org"}) || !o.CreateUsers || c.PasswordSignIn {
		t.Fatalf("set: %+v, password sign-in %v", o, c.PasswordSignIn)
	}
}

// TestOIDCRefusals: each wrong combination stops the start with a message
// naming what to do, and the client secret is never in it.
func TestOIDCRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"no base URL", oidcEnv(map[string]string{"HUSH_BASE_URL": ""}), "HUSH_OIDC_ISSUER needs HUSH_BASE_URL"},
		{"no client id", oidcEnv(map[string]string{"HUSH_OIDC_CLIENT_ID": ""}), "HUSH_OIDC_CLIENT_ID is required"},
		{"no secret", oidcEnv(map[string]string{"HUSH_OIDC_CLIENT_SECRET": ""}), "HUSH_OIDC_CLIENT_SECRET (or HUSH_OIDC_CLIENT_SECRET_FILE) is required"},
		{"both secrets", oidcEnv(map[string]string{"HUSH_OIDC_CLIENT_SECRET_FILE": "/nowhere"}), "are both set"},
		{"bad issuer", oidcEnv(map[string]string{"HUSH_OIDC_ISSUER": "id.example.com"}), "is not an http(s) issuer URL"},
		{"bad domain", oidcEnv(map[string]string{"HUSH_OIDC_ALLOWED_DOMAINS": "user@example.com"}), "is not an email domain"},
		{"bad bool", oidcEnv(map[string]string{"HUSH_OIDC_CREATE_USERS": "maybe"}), "HUSH_OIDC_CREATE_USERS"},
		{"password off without SSO", map[string]string{"HUSH_PASSWORD_SIGN_IN": "false"}, "HUSH_PASSWORD_SIGN_IN=false needs single sign-on"},
		{"settings without issuer", map[string]string{"HUSH_OIDC_CLIENT_ID": "hush"}, "HUSH_OIDC_CLIENT_ID is set but HUSH_OIDC_ISSUER is not"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(nil, envMap(tc.env))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load: %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "s3cret-value") {
				t.Fatalf("the client secret is in the error: %v", err)
			}
		})
	}
}

// TestOIDCInForce: the overview shows the settings, the secret only as set.
func TestOIDCInForce(t *testing.T) {
	for _, s := range mustLoad(t, nil, oidcEnv(nil)).InForce() {
		if strings.Contains(s.Value, "s3cret-value") {
			t.Fatalf("%s shows the client secret", s.Name)
		}
		if s.Name == "HUSH_OIDC_CLIENT_SECRET" && s.Value != "set" {
			t.Fatalf("HUSH_OIDC_CLIENT_SECRET shows %q", s.Value)
		}
	}
}
