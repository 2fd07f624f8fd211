package i18n

import (
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"
)

func TestLanguages(t *testing.T) {
	if len(Known()) != 13 {
		t.Errorf("%d known languages, want 13", len(Known()))
	}
	for _, l := range Known() {
		if l.Name == "" || (l.Dir != "ltr" && l.Dir != "rtl") {
			t.Errorf("%s: name %q dir %q", l.Code, l.Name, l.Dir)
		}
		if l.RTL() != (l.Code == "ar") {
			t.Errorf("%s: RTL %v", l.Code, l.RTL())
		}
		if _, ok := dateLayouts[l.Code]; !ok {
			t.Errorf("%s: no date layout", l.Code)
		}
	}
	for _, code := range []string{"de", "DE", "En"} {
		if _, ok := Lookup(code); !ok {
			t.Errorf("Lookup(%q) failed", code)
		}
	}
	for _, code := range []string{"", "xx", "de-", "fr-FR", "../de"} {
		if l, ok := Lookup(code); ok {
			t.Errorf("Lookup(%q) = %v", code, l)
		}
	}
}

func TestMatch(t *testing.T) {
	cases := map[string]string{
		"de-DE,de;q=0.9,en;q=0.8": "de",
		"de-AT":                   "de",
		"ko-KR, de;q=0.5":         "de",
		"fr-CA, de;q=0.5":         "fr",
		"pt-PT, en;q=0.5":         "pt-BR",
		"en-GB,en;q=0.9":          "en",
		"en;q=0.5, de;q=0.9":      "de",
	}
	for header, want := range cases {
		l, ok := Match(header)
		if !ok || l.Code != want {
			t.Errorf("Match(%q) = %q %v, want %q", header, l.Code, ok, want)
		}
	}
	for _, header := range []string{"", "xx-YY", "ko", "*", ";;;q=x"} {
		if l, ok := Match(header); ok {
			t.Errorf("Match(%q) = %q, want none", header, l.Code)
		}
	}
}

func TestLocalize(t *testing.T) {
	de, en := For("de"), For("en")
	if got := de.N("views.count", 1, nil); got != "1 Aufruf" {
		t.Errorf("de one: %q", got)
	}
	if got := de.N("views.count", 1234, nil); got != "1.234 Aufrufe" {
		t.Errorf("de many: %q", got)
	}
	if got := en.N("views.count", 1234, nil); got != "1,234 views" {
		t.Errorf("en many: %q", got)
	}
	if got := de.T("limits", map[string]any{"Time": "2 Tage", "Views": "3 Aufrufe"}); got != "2 Tage oder 3 Aufrufe" {
		t.Errorf("de placeholders: %q", got)
	}
	if got := de.T("no.such.key", nil); got != "no.such.key" {
		t.Errorf("missing key: %q", got)
	}
	if For("xx") != en || For("de") != de {
		t.Error("For: wrong localizer")
	}
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600))
	if got := de.Date(at); got != "04.03.2026, 04:06 UTC" {
		t.Errorf("de date: %q", got)
	}
	if got := en.DateTime(at); got != "2026-03-04 04:06:07 UTC" {
		t.Errorf("en datetime: %q", got)
	}
	if got := de.Decimal(12.5, 1); got != "12,5" {
		t.Errorf("de decimal: %q", got)
	}
}

// TestLocalizePluralForms: each language's CLDR rule picks the form its
// catalog wrote for it: Polish one, few and many, French zero as one.
func TestLocalizePluralForms(t *testing.T) {
	for _, c := range []struct {
		code string
		n    int
		want string
	}{
		{"pl", 1, "1 wyświetlenie"}, {"pl", 3, "3 wyświetlenia"}, {"pl", 5, "5 wyświetleń"},
		{"pl", 12, "12 wyświetleń"}, {"pl", 22, "22 wyświetlenia"}, {"pl", 0, "0 wyświetleń"},
		{"fr", 0, "0 consultation"}, {"fr", 1, "1 consultation"}, {"fr", 2, "2 consultations"},
		{"fr", 1000000, "1\u00a0000\u00a0000 de consultations"},
		{"pt-BR", 0, "0 visualização"}, {"es", 1, "1 visualización"}, {"it", 2, "2 visualizzazioni"},
		{"nl", 1, "1 weergave"},
	} {
		if got := For(c.code).N("views.count", c.n, nil); got != c.want {
			t.Errorf("%s %d: %q, want %q", c.code, c.n, got, c.want)
		}
	}
}

// TestConcurrentLocalize: the shared localizers serve many goroutines at
// once (run with -race).
func TestConcurrentLocalize(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 200 {
				code := Codes()[(i+n)%len(Codes())]
				l := For(code)
				want := map[string]string{"en": " views", "de": " Aufrufe", "fr": " consultations", "es": " visualizaciones",
					"it": " visualizzazioni", "nl": " weergaven", "pt-BR": " visualizações"}[code]
				if got := l.N("views.count", n+2, nil); !strings.HasSuffix(got, want) {
					errs <- code + ": " + got
					return
				}
				if l.T("secret.copy", nil) == "secret.copy" {
					errs <- code + ": secret.copy missing"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestFallbackToDefault: each language's catalog is parsed alone, at its
// first use; a message it lacks comes from the default language's, in
// that language's plural form, with the count written the asking
// language's way.
func TestFallbackToDefault(t *testing.T) {
	fsys := fstest.MapFS{
		"locales/active.en.json": {Data: []byte(`{"hello": "Hello {{.Name}}", "only.en": "English only",
			"n": {"one": "{{.Count}} view", "other": "{{.Count}} views"}}`)},
		"locales/active.de.json": {Data: []byte(`{"hello": "Hallo {{.Name}}"}`)},
	}
	c, err := list(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.shipped) != 2 {
		t.Fatalf("shipped %v, want en and de", c.shipped)
	}
	de := c.byCode["de"]
	if de.loc != nil || c.byCode["en"].loc != nil {
		t.Fatal("a catalog was parsed before its first use")
	}
	loc := de.localizer()
	if got := loc.T("hello", map[string]any{"Name": "Ada"}); got != "Hallo Ada" {
		t.Errorf("own message: %q", got)
	}
	if got := loc.T("only.en", nil); got != "English only" {
		t.Errorf("missing message: %q, want the default language's", got)
	}
	if got := loc.N("n", 1234, nil); got != "1.234 views" {
		t.Errorf("missing plural message: %q, want English's form with German digits", got)
	}
	if got := loc.T("no.such.key", nil); got != "no.such.key" {
		t.Errorf("unknown key: %q", got)
	}
}
