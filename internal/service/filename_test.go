package service

import "testing"

func TestSafeFileName(t *testing.T) {
	for in, want := range map[string]string{
		"report.pdf":                           "report.pdf",
		"../../etc/passwd":                     "passwd",
		`C:\Users\me\notes.txt`:                "notes.txt",
		"a\x00b\x1b[31m.txt":                   "ab[31m.txt",
		"a\u009b31mX.txt":                      "a31mX.txt", // C1: CSI
		"next\u0085line.txt":                   "nextline.txt",
		"one\u2028two\u2029three.txt":          "onetwothree.txt",
		"invoice\u202efdp.exe":                 "invoicefdp.exe",
		"caf\u00e9 \u062a\u200c\u0627.txt":     "caf\u00e9 \u062a\u200c\u0627.txt", // a joiner Persian needs stays
		"family\U0001F468\u200d\U0001F469.png": "family\U0001F468\u200d\U0001F469.png",
		" .. ":                                 "file",
		"\u0085":                               "file",
	} {
		if got := SafeFileName(in); got != want {
			t.Errorf("SafeFileName(%q) = %q, want %q", in, got, want)
		}
	}
}
