package i18n

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// keyUses are the ways the pages, emails and service name a catalog key
// literally: the templates' t, tf and tn, a page's TitleKey, a
// localizer's T and N, and the web layer's renderError, whose title and
// text may be keys.
var keyUses = []*regexp.Regexp{
	regexp.MustCompile(`\{\{-?\s*\(?(?:t|tf|tn)\s+"([^"]+)"`),
	regexp.MustCompile(`TitleKey(?::| =)\s*"([^"]+)"`),
	regexp.MustCompile(`\.(?:T|N)\("([^"]+)"`),
	regexp.MustCompile(`renderError\(w, r, [^,]+, "([a-z_]+\.[a-z0-9_.-]+)"(?:, "([a-z_]+\.[a-z0-9_.-]+)")?`),
}

// TestKeysUsedExist: every key the code names literally is in the
// English catalog (a key no catalog has shows itself on the page, so a
// renamed or dropped key would otherwise go unnoticed).
func TestKeysUsedExist(t *testing.T) {
	en, err := readCatalog(localeFS, "locales/active.en.json")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, dir := range []string{"../web", "../web/templates", "../mail", "../mail/templates", "../service"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || strings.HasSuffix(name, "_test.go") ||
				!(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".html") || strings.HasSuffix(name, ".txt")) {
				continue
			}
			b, err := fs.ReadFile(os.DirFS(dir), name)
			if err != nil {
				t.Fatal(err)
			}
			for _, re := range keyUses {
				for _, m := range re.FindAllStringSubmatch(string(b), -1) {
					for _, key := range m[1:] {
						// A key built at run time starts with a literal
						// prefix ("create.kind."+kind); a helper's own
						// parameter is named, not a key.
						if key == "" || strings.HasSuffix(key, ".") || !strings.Contains(key, ".") {
							continue
						}
						seen++
						if _, ok := en[key]; !ok {
							t.Errorf("%s names %q, which the English catalog lacks", filepath.Join(dir, name), key)
						}
					}
				}
			}
		}
	}
	if seen < 500 {
		t.Errorf("only %d key uses found: the patterns no longer match how the code names keys", seen)
	}
}
