package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"hush/internal/i18n"
)

// loadWeb reads the settings of the web pages and accounts.
func loadWeb(s *source, c *Config) error {
	var errs []error
	for _, v := range []struct {
		name string
		dst  *bool
	}{
		{"PWP__DISABLE_SIGNUPS", &c.DisableSignups},
		{"PWP__DISABLE_LOGINS", &c.DisableLogins},
	} {
		if val, _, ok := s.env(v.name); ok {
			b, err := parseBool(v.name, val)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			*v.dst = b
		}
	}
	if v, name, ok := s.getAlias("PWP__REQUIRE_MFA", "HUSH_REQUIRE_2FA"); ok {
		b, err := parseBool(name, v)
		if err != nil {
			errs = append(errs, err)
		} else {
			c.RequireTwoFactor = b
		}
	}
	if err := loadLocale(s, c); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// loadLocale reads PWP__DEFAULT_LOCALE (docs/decisions.md, D53): a shipped
// language; a language Hush is to speak but has no translation of yet
// gives English (shown so in the settings in force); anything else is an
// error.
func loadLocale(s *source, c *Config) error {
	v, name, ok := s.env("PWP__DEFAULT_LOCALE")
	if !ok || strings.TrimSpace(v) == "" {
		return nil
	}
	v = strings.TrimSpace(v)
	if l, found := i18n.Lookup(v); found {
		c.Push.DefaultLocale = l.Code
		return nil
	}
	if slices.ContainsFunc(i18n.Known(), func(l i18n.Language) bool { return strings.EqualFold(l.Code, v) }) {
		c.UntranslatedLang = v
		return nil
	}
	return fmt.Errorf("%s: %q is not a language Hush speaks (%s)", name, v, strings.Join(i18n.Codes(), ", "))
}
