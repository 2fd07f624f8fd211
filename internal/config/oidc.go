package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// OIDC is single sign-on through an OpenID Connect provider
// (docs/decisions.md, D50). Config.OIDC is nil unless HUSH_OIDC_ISSUER is set.
type OIDC struct {
	Issuer         string   // the provider's issuer URL, as its discovery document names it
	ClientID       string   // Hush's client at the provider
	ClientSecret   string   // never logged nor shown
	Scopes         []string // asked for; always with openid
	ButtonLabel    string   // the sign-in button's text
	AllowedDomains []string // lower-case email domains allowed to sign in; empty: any
	CreateUsers    bool     // an unknown person gets an account on first sign-in
}

// defaultOIDCScopes are the scopes asked for unless HUSH_OIDC_SCOPES says.
const defaultOIDCScopes = "openid email profile"

// oidcSettings mean nothing without an issuer.
var oidcSettings = []string{"HUSH_OIDC_CLIENT_ID", "HUSH_OIDC_CLIENT_SECRET", "HUSH_OIDC_CLIENT_SECRET_FILE", "HUSH_OIDC_SCOPES",
	"HUSH_OIDC_BUTTON_LABEL", "HUSH_OIDC_ALLOWED_DOMAINS", "HUSH_OIDC_CREATE_USERS"}

// loadOIDC reads the single sign-on settings and HUSH_PASSWORD_SIGN_IN
// (after loadServer: the callback URL is under HUSH_BASE_URL). The client
// secret never appears in an error.
func loadOIDC(s *source, c *Config) error {
	var errs []error
	c.PasswordSignIn = true
	if v, name, ok := s.env("HUSH_PASSWORD_SIGN_IN"); ok {
		b, err := parseBool(name, v)
		errs = append(errs, err)
		c.PasswordSignIn = b || err != nil
	}
	issuer, issuerName, ok := s.env("HUSH_OIDC_ISSUER")
	if !ok {
		for _, name := range oidcSettings {
			if _, _, set := s.env(name); set {
				errs = append(errs, fmt.Errorf("%s is set but HUSH_OIDC_ISSUER is not: single sign-on needs its provider", name))
			}
		}
		if !c.PasswordSignIn {
			errs = append(errs, errors.New("HUSH_PASSWORD_SIGN_IN=false needs single sign-on (HUSH_OIDC_ISSUER): no one could sign in"))
		}
		return errors.Join(errs...)
	}
	o := &OIDC{Issuer: issuer, ButtonLabel: "Sign in with single sign-on"}
	if !issuerURL(issuer) {
		errs = append(errs, fmt.Errorf("%s: %q is not an http(s) issuer URL", issuerName, issuer))
	}
	if c.BaseURL == "" {
		errs = append(errs, fmt.Errorf("%s needs HUSH_BASE_URL (or PWP__OVERRIDE_BASE_URL): the provider sends browsers back to <base URL>/users/sso/callback, an address the provider must know in advance", issuerName))
	}
	errs = append(errs, loadOIDCClient(s, o))
	o.Scopes = oidcScopes(s)
	if v, _, ok := s.env("HUSH_OIDC_BUTTON_LABEL"); ok {
		o.ButtonLabel = v
	}
	errs = append(errs, loadOIDCAccounts(s, o))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	c.OIDC = o
	return nil
}

// issuerURL reports whether v can be an issuer: an absolute http(s) URL
// without query or fragment.
func issuerURL(v string) bool {
	u, err := url.Parse(v)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.RawQuery == "" && u.Fragment == ""
}

// oidcScopes reads HUSH_OIDC_SCOPES, with openid always among them.
func oidcScopes(s *source) []string {
	v, _, ok := s.env("HUSH_OIDC_SCOPES")
	if !ok {
		v = defaultOIDCScopes
	}
	scopes := strings.Fields(strings.ReplaceAll(v, ",", " "))
	if !slices.Contains(scopes, "openid") {
		scopes = append([]string{"openid"}, scopes...)
	}
	return scopes
}

// loadOIDCClient reads Hush's client id and secret at the provider.
func loadOIDCClient(s *source, o *OIDC) error {
	var errs []error
	if v, _, ok := s.env("HUSH_OIDC_CLIENT_ID"); ok {
		o.ClientID = v
	} else {
		errs = append(errs, errors.New("HUSH_OIDC_CLIENT_ID is required with HUSH_OIDC_ISSUER"))
	}
	secret, err := secretSetting(s, "HUSH_OIDC_CLIENT_SECRET", false)
	errs = append(errs, err)
	if err == nil && secret == "" {
		errs = append(errs, errors.New("HUSH_OIDC_CLIENT_SECRET (or HUSH_OIDC_CLIENT_SECRET_FILE) is required with HUSH_OIDC_ISSUER"))
	}
	o.ClientSecret = secret
	return errors.Join(errs...)
}

// loadOIDCAccounts reads which people may sign in and whether they get
// accounts.
func loadOIDCAccounts(s *source, o *OIDC) error {
	var errs []error
	if v, name, ok := s.env("HUSH_OIDC_ALLOWED_DOMAINS"); ok {
		for _, d := range strings.Split(v, ",") {
			d = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(d), "@"))
			if d == "" {
				continue
			}
			if strings.ContainsAny(d, "@/: ") || !strings.Contains(d, ".") {
				errs = append(errs, fmt.Errorf("%s: %q is not an email domain (such as example.com)", name, d))
				continue
			}
			o.AllowedDomains = append(o.AllowedDomains, d)
		}
	}
	if v, name, ok := s.env("HUSH_OIDC_CREATE_USERS"); ok {
		b, err := parseBool(name, v)
		errs = append(errs, err)
		o.CreateUsers = b
	}
	return errors.Join(errs...)
}

// oidcShown is single sign-on on the admin overview: the client secret
// only as set.
func (c *Config) oidcShown() []Setting {
	out := []Setting{{"HUSH_PASSWORD_SIGN_IN", fmt.Sprint(c.PasswordSignIn)}}
	o := c.OIDC
	if o == nil {
		return append(out, Setting{"HUSH_OIDC_ISSUER", "(none: no single sign-on)"})
	}
	domains := strings.Join(o.AllowedDomains, ", ")
	if domains == "" {
		domains = "(any)"
	}
	return append(out,
		Setting{"HUSH_OIDC_ISSUER", o.Issuer},
		Setting{"HUSH_OIDC_CLIENT_ID", o.ClientID},
		Setting{"HUSH_OIDC_CLIENT_SECRET", "set"},
		Setting{"HUSH_OIDC_SCOPES", strings.Join(o.Scopes, " ")},
		Setting{"HUSH_OIDC_BUTTON_LABEL", o.ButtonLabel},
		Setting{"HUSH_OIDC_ALLOWED_DOMAINS", domains},
		Setting{"HUSH_OIDC_CREATE_USERS", fmt.Sprint(o.CreateUsers)})
}
