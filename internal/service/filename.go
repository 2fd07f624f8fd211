package service

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SafeFileName keeps the last path element of a client's file name, without
// control characters (C0 and C1) or line separators, so no client can be
// led to write outside a folder, and without bidirectional controls, so
// that a name cannot show another extension than it has
// ("invoice\u202Efdp.exe" reads "invoiceexe.pdf").
func SafeFileName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		// C0, DEL and C1 (a terminal reads U+009B as CSI), the line and
		// paragraph separators, and the bidirectional controls.
		if unicode.IsControl(r) || r == utf8.RuneError || r == 0x2028 || r == 0x2029 || isBidiControl(r) {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if name == "" || name == "." || name == ".." {
		return "file"
	}
	return name
}

// isBidiControl reports whether r is one of Unicode's bidirectional
// formatting characters (embeddings, overrides, isolates and marks).
func isBidiControl(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}
