package config

import (
	"strings"
	"testing"
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
