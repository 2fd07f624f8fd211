package service

import "testing"

// TestValidEmail: plain addresses, UTF-8 ones included, pass; anything a
// page or an email could show as another address does not.
func TestValidEmail(t *testing.T) {
	for in, want := range map[string]bool{
		"a@b.example":                  true,
		"jos\u00e9@exemple.fr":         true,
		"\u7528\u6237@\u4f8b\u5b50.cn": true,
		"a@localhost":                  false,
		"Name <a@b.example>":           false,
		"a b@c.example":                false,
		"evil\u202emoc.elgoog@ex.com":  false, // right-to-left override
		"a\u2066b@c.example":           false, // left-to-right isolate
		"a\u200bb@c.example":           false, // zero-width space
		"a\u200db@c.example":           false, // zero-width joiner
		"a\u2028b@c.example":           false,
		"a\x00b@c.example":             false,
		"a\x7fb@c.example":             false,
		"a\u0085b@c.example":           false,
		"x\xff@example.com":            false, // not UTF-8
	} {
		if got := ValidEmail(in); got != want {
			t.Errorf("ValidEmail(%q) = %v, want %v", in, got, want)
		}
	}
}
