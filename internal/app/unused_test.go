package app

import (
	"regexp"
	"slices"
	"testing"
)

// TestUnusedSettingsNamed: serve names, in one warning, the Password Pusher
// settings of its environment that Hush does not read, and only those.
func TestUnusedSettingsNamed(t *testing.T) {
	// The process environment is what an operator sets; the harness's own
	// settings come through getenv.
	t.Setenv("PWP__FEEDBACK__EMAIL", "feedback@example.com")
	t.Setenv("PWP__BRAND__FAVICON", "x.png")                             // no such brand setting
	t.Setenv("PWP__BRAND__TITLE", "Acme secrets")                        // read by Hush (the branding)
	t.Setenv("PWP__BRAND__SHOW_FOOTER_MENU", "false")                    // read by Hush
	t.Setenv("PWP__BRAND__ICON_57x57", "https://cdn.example.com/57.png") // read by Hush
	t.Setenv("PWP__FILES__ENABLE_BLUR", "false")                         // read by Hush
	t.Setenv("PWP__PURGE_AFTER", "disabled")                             // read by Hush
	t.Setenv("PWP__PW__EXPIRE_AFTER_DAYS_DEFAULT", "3")                  // read by Hush, a per-kind name
	t.Setenv("PWP__GEN__SYLLABLES_COUNT", "4")                           // read by Hush, the password generator
	t.Setenv("PWP__DEFAULT_LOCALE", "de")                                // read by Hush
	s := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	warning := regexp.MustCompile(`level=WARN msg="these Password Pusher settings are set but Hush does not support them; they have no effect" settings="([^"]*)"`)
	m := warning.FindAllStringSubmatch(s.log.String(), -1)
	if len(m) != 1 {
		t.Fatalf("%d warnings about unused settings, want 1:\n%s", len(m), s.log.String())
	}
	if m[0][1] != "PWP__BRAND__FAVICON PWP__FEEDBACK__EMAIL" {
		t.Errorf("named %q, want the two settings Hush does not read only", m[0][1])
	}
}

func TestSettingsReadUnused(t *testing.T) {
	r := newSettingsRead(func(string) string { return "" })
	r.get("PWP__ALLOW_ANONYMOUS")
	r.get("HUSH_ADDR")
	got := r.unused([]string{"PWP__ALLOW_ANONYMOUS=false", "PWP__X=1=2", "HUSH_OTHER=1", "PATH=/bin", "PWP__A=", "PWP__X=3"})
	if want := []string{"PWP__A", "PWP__X"}; !slices.Equal(got, want) {
		t.Errorf("unused: %v, want %v", got, want)
	}
}
