package config

import (
	"strings"
	"testing"

	"hush/internal/i18n"
)

func TestWebSettings(t *testing.T) {
	c := mustLoad(t, nil, nil)
	if c.DisableSignups || c.DisableLogins {
		t.Errorf("defaults: signups disabled %v, logins disabled %v", c.DisableSignups, c.DisableLogins)
	}
	c = mustLoad(t, nil, map[string]string{"PWP__DISABLE_SIGNUPS": "true", "PWP__DISABLE_LOGINS": "1"})
	if !c.DisableSignups || !c.DisableLogins {
		t.Errorf("set: signups disabled %v, logins disabled %v", c.DisableSignups, c.DisableLogins)
	}
	c = mustLoad(t, nil, map[string]string{"PWP__DISABLE_SIGNUPS": "false"})
	if c.DisableSignups {
		t.Error("PWP__DISABLE_SIGNUPS=false disables sign-ups")
	}
	_, err := Load(nil, envMap(map[string]string{"PWP__DISABLE_LOGINS": "maybe"}))
	if err == nil || !strings.Contains(err.Error(), "PWP__DISABLE_LOGINS") {
		t.Errorf("bad value: %v", err)
	}
}

// TestDefaultLocale: PWP__DEFAULT_LOCALE names a shipped language; one
// Hush is to speak but has no translation of gives English, said so in
// the settings in force; anything else stops the start.
func TestDefaultLocale(t *testing.T) {
	shown := func(c *Config) string {
		for _, s := range c.InForce() {
			if s.Name == "PWP__DEFAULT_LOCALE" {
				return s.Value
			}
		}
		return "(not shown)"
	}
	c := mustLoad(t, nil, nil)
	if c.Push.DefaultLocale != "" || shown(c) != "en" {
		t.Errorf("unset: %q, shown %q", c.Push.DefaultLocale, shown(c))
	}
	c = mustLoad(t, nil, map[string]string{"PWP__DEFAULT_LOCALE": "DE"})
	if c.Push.DefaultLocale != "de" || shown(c) != "de" {
		t.Errorf("DE: %q, shown %q", c.Push.DefaultLocale, shown(c))
	}
	// A language Hush is to speak whose translation has not shipped yet.
	untranslated := ""
	for _, l := range i18n.Known() {
		if _, ok := i18n.Lookup(l.Code); !ok && untranslated == "" {
			untranslated = l.Code
		}
	}
	if untranslated == "" {
		t.Log("every known language is translated: no untranslated default to try")
	} else {
		c = mustLoad(t, nil, map[string]string{"PWP__DEFAULT_LOCALE": untranslated})
		if c.Push.DefaultLocale != "" || shown(c) != "en ("+untranslated+" is not translated yet)" {
			t.Errorf("%s: %q, shown %q", untranslated, c.Push.DefaultLocale, shown(c))
		}
	}
	c = mustLoad(t, nil, map[string]string{"PWP__DEFAULT_LOCALE": "pt-br"})
	if c.Push.DefaultLocale != "pt-BR" || shown(c) != "pt-BR" {
		t.Errorf("pt-br: %q, shown %q", c.Push.DefaultLocale, shown(c))
	}
	for _, bad := range []string{"klingon", "xx", "de-DE/../", "e"} {
		_, err := Load(nil, envMap(map[string]string{"PWP__DEFAULT_LOCALE": bad}))
		if err == nil || !strings.Contains(err.Error(), "PWP__DEFAULT_LOCALE") || !strings.Contains(err.Error(), "en, de") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
