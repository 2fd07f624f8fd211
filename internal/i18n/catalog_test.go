package i18n

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
)

// pluralForms are the keys of a plural message in a catalog.
var pluralForms = map[string]plural.Form{"zero": plural.Zero, "one": plural.One, "two": plural.Two,
	"few": plural.Few, "many": plural.Many, "other": plural.Other}

// entry is one message of a catalog: its text, or its plural forms.
type entry struct {
	text  string
	forms map[string]string
}

// readCatalog reads a catalog file as a translator writes it.
func readCatalog(fsys fs.FS, name string) (map[string]entry, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	out := map[string]entry{}
	for k, v := range raw {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[k] = entry{text: s}
			continue
		}
		var forms map[string]string
		if err := json.Unmarshal(v, &forms); err != nil {
			return nil, fmt.Errorf("%s: neither a text nor plural forms: %w", k, err)
		}
		out[k] = entry{forms: forms}
	}
	return out, nil
}

var placeholder = regexp.MustCompile(`\{\{\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// placeholders lists the named placeholders of an entry, all forms
// together, sorted and without repeats.
func (e entry) placeholders() []string {
	texts := []string{e.text}
	for _, f := range e.forms {
		texts = append(texts, f)
	}
	seen := map[string]bool{}
	for _, t := range texts {
		for _, m := range placeholder.FindAllStringSubmatch(t, -1) {
			seen[m[1]] = true
		}
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// requiredForms are the plural forms CLDR gives the language's whole
// numbers (the only counts Hush passes), and "other", which every plural
// message needs.
func requiredForms(tag language.Tag) map[plural.Form]bool {
	req := map[plural.Form]bool{plural.Other: true}
	for n := 0; n <= 1000; n++ {
		req[plural.Cardinal.MatchPlural(tag, n, 0, 0, 0, 0)] = true
	}
	return req
}

func formName(f plural.Form) string {
	for k, v := range pluralForms {
		if v == f {
			return k
		}
	}
	return fmt.Sprint(f)
}

// checkCatalogs compares every catalog in fsys with the English one and
// returns what is wrong, one line a fault.
func checkCatalogs(fsys fs.FS) []string {
	var bad []string
	en, err := readCatalog(fsys, "locales/active.en.json")
	if err != nil {
		return []string{"en: " + err.Error()}
	}
	files, _ := fs.Glob(fsys, "locales/active.*.json")
	for _, f := range files {
		code := strings.TrimSuffix(strings.TrimPrefix(path.Base(f), "active."), ".json")
		tag, err := language.Parse(code)
		if err != nil || !slices.ContainsFunc(known, func(l Language) bool { return l.Code == code }) {
			bad = append(bad, fmt.Sprintf("%s: not a language of i18n.Known", code))
			continue
		}
		cat, err := readCatalog(fsys, f)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", code, err))
			continue
		}
		bad = append(bad, compareCatalog(code, tag, en, cat)...)
	}
	sort.Strings(bad)
	return bad
}

func compareCatalog(code string, tag language.Tag, en, cat map[string]entry) []string {
	var bad []string
	for k := range en {
		if _, ok := cat[k]; !ok {
			bad = append(bad, fmt.Sprintf("%s: %s is missing", code, k))
		}
	}
	req := requiredForms(tag)
	for k, e := range cat {
		ee, ok := en[k]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: %s is not in the English catalog", code, k))
			continue
		}
		if got, want := e.placeholders(), ee.placeholders(); !slices.Equal(got, want) {
			bad = append(bad, fmt.Sprintf("%s: %s has placeholders %v, English has %v", code, k, got, want))
		}
		if (e.forms == nil) != (ee.forms == nil) {
			bad = append(bad, fmt.Sprintf("%s: %s must be plural forms exactly where English has them", code, k))
			continue
		}
		for f := range req {
			if _, ok := e.forms[formName(f)]; e.forms != nil && !ok {
				bad = append(bad, fmt.Sprintf("%s: %s lacks the plural form %q", code, k, formName(f)))
			}
		}
		for f := range e.forms {
			if _, ok := pluralForms[f]; !ok {
				bad = append(bad, fmt.Sprintf("%s: %s has %q, which is no plural form", code, k, f))
			}
		}
	}
	return bad
}

// TestCatalogs holds every shipped catalog to the English one: the same
// keys, the same placeholders, and every plural form the language needs.
func TestCatalogs(t *testing.T) {
	for _, line := range checkCatalogs(localeFS) {
		t.Error(line)
	}
	if len(Languages()) < 2 {
		t.Fatalf("shipped languages %v: want English and at least one other", Codes())
	}
}

// TestCatalogCheckFinds feeds the check broken catalogs: each fault must
// be reported.
func TestCatalogCheckFinds(t *testing.T) {
	en := `{"a": "Hello {{.Name}}", "n": {"one": "{{.Count}} thing", "other": "{{.Count}} things"}}`
	cases := map[string]struct{ file, want string }{
		"missing key":      {`{"n": {"one": "x", "other": "y {{.Count}}"}}`, "de: a is missing"},
		"extra key":        {`{"a": "Hallo {{.Name}}", "n": {"one": "{{.Count}}", "other": "{{.Count}}"}, "b": "x"}`, "de: b is not in the English catalog"},
		"placeholder":      {`{"a": "Hallo {{.Nom}}", "n": {"one": "{{.Count}}", "other": "{{.Count}}"}}`, "de: a has placeholders [Nom], English has [Name]"},
		"plural lacks few": {`{"a": "x {{.Name}}", "n": {"one": "{{.Count}}", "other": "{{.Count}}"}}`, `pl: n lacks the plural form "few"`},
		"plural lacks one": {`{"a": "Hallo {{.Name}}", "n": {"other": "{{.Count}}"}}`, `de: n lacks the plural form "one"`},
		"text not plural":  {`{"a": "Hallo {{.Name}}", "n": "{{.Count}}"}`, "de: n must be plural forms exactly where English has them"},
		"unknown form":     {`{"a": "Hallo {{.Name}}", "n": {"one": "{{.Count}}", "other": "{{.Count}}", "lots": "{{.Count}}"}}`, `de: n has "lots", which is no plural form`},
		"unknown language": {`{}`, "xx: not a language of i18n.Known"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			code := strings.SplitN(c.want, ":", 2)[0]
			fsys := fstest.MapFS{
				"locales/active.en.json":           {Data: []byte(en)},
				"locales/active." + code + ".json": {Data: []byte(c.file)},
			}
			got := checkCatalogs(fsys)
			if !slices.Contains(got, c.want) {
				t.Errorf("got %q, want it to hold %q", got, c.want)
			}
		})
	}
	// Polish needs one, few and many for whole numbers.
	pl := requiredForms(language.Polish)
	for _, f := range []plural.Form{plural.One, plural.Few, plural.Many, plural.Other} {
		if !pl[f] {
			t.Errorf("Polish: form %s not required", formName(f))
		}
	}
	if ja := requiredForms(language.Japanese); len(ja) != 1 {
		t.Errorf("Japanese forms %v: want other alone", ja)
	}
}
