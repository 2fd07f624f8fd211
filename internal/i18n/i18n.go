// Package i18n is Hush's languages (docs/decisions.md, D52): the message
// catalogs (locales/active.<code>.json, one file a language, embedded in
// the binary), a Localizer for each shipped language with plural-aware
// messages and named placeholders, the locale's numbers and dates, and the
// list of languages with their native names and writing direction.
//
// Messages live in go-i18n's JSON format: a key maps to a text, or to an
// object of CLDR plural forms ("one", "few", "other" …) for a message
// with a count. Placeholders are named, {{.Name}}; a plural message's count
// is {{.Count}}.
package i18n

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

//go:embed locales/*.json
var localeFS embed.FS

// Language is one language Hush knows.
type Language struct {
	Code string // the code in paths and settings: en, pt-BR, zh-CN
	Name string // its own name for itself: Deutsch, 日本語
	Dir  string // writing direction: ltr or rtl
	tag  language.Tag
}

// RTL reports whether the language is written right to left.
func (l Language) RTL() bool { return l.Dir == "rtl" }

// Default is the language of the catalog every other is checked against,
// and the fallback of a message a catalog lacks.
const Default = "en"

// known are the languages Hush is to speak. Only those with a catalog
// (Languages) are offered and accepted; the others wait for their
// translation.
var known = []Language{
	{Code: "en", Name: "English", Dir: "ltr"},
	{Code: "de", Name: "Deutsch", Dir: "ltr"},
	{Code: "fr", Name: "Français", Dir: "ltr"},
	{Code: "es", Name: "Español", Dir: "ltr"},
	{Code: "it", Name: "Italiano", Dir: "ltr"},
	{Code: "nl", Name: "Nederlands", Dir: "ltr"},
	{Code: "pt-BR", Name: "Português (Brasil)", Dir: "ltr"},
	{Code: "pl", Name: "Polski", Dir: "ltr"},
	{Code: "sv", Name: "Svenska", Dir: "ltr"},
	{Code: "ja", Name: "日本語", Dir: "ltr"},
	{Code: "zh-CN", Name: "简体中文", Dir: "ltr"},
	{Code: "uk", Name: "Українська", Dir: "ltr"},
	{Code: "ar", Name: "العربية", Dir: "rtl"},
}

// catalogs is what loads once: the shipped languages (those with a
// catalog file), the matcher over them, and each one's catalog.
type catalogs struct {
	shipped []Language
	byCode  map[string]*catalog // by lower-case code
	matcher language.Matcher
}

// catalog is a shipped language whose messages are parsed at its first use
// (localizer): parsed at start, the thirteen catalogs were about 6 of the
// 8 MB of an idle server's live heap, and most instances speak one or two
// languages.
type catalog struct {
	lang Language
	fsys fs.FS
	file string    // its catalog in fsys
	set  *catalogs // the default language's catalog is its fallback
	once sync.Once
	loc  *Localizer
}

var (
	loadOnce sync.Once
	loaded   *catalogs
)

// load lists the embedded catalogs; a catalog that does not parse is a
// build mistake, so its first use panics (the catalog test catches it
// first).
func load() *catalogs {
	loadOnce.Do(func() {
		c, err := list(localeFS)
		if err != nil {
			panic(err)
		}
		loaded = c
	})
	return loaded
}

func catalogFile(code string) string { return "locales/active." + code + ".json" }

func list(fsys fs.FS) (*catalogs, error) {
	c := &catalogs{byCode: map[string]*catalog{}}
	files, err := fs.Glob(fsys, catalogFile("*"))
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, f := range files {
		have[strings.TrimSuffix(strings.TrimPrefix(path.Base(f), "active."), ".json")] = true
	}
	var tags []language.Tag
	for _, l := range known {
		if !have[l.Code] {
			continue
		}
		l.tag = language.MustParse(l.Code)
		c.shipped = append(c.shipped, l)
		tags = append(tags, l.tag)
		c.byCode[strings.ToLower(l.Code)] = &catalog{lang: l, fsys: fsys, file: catalogFile(l.Code), set: c}
	}
	if c.byCode[Default] == nil {
		return nil, fmt.Errorf("i18n: no catalog for the default language %s", Default)
	}
	// known lists the default language first: the matcher's answer when
	// nothing fits better.
	c.matcher = language.NewMatcher(tags)
	return c, nil
}

// localizer returns the language's Localizer, parsing its catalog the first
// time.
func (c *catalog) localizer() *Localizer {
	c.once.Do(func() {
		loc, err := parse(c.fsys, c.lang, c.file)
		if err != nil {
			panic(err)
		}
		if c.lang.Code != Default {
			loc.fallback = c.set.byCode[Default].localizer()
		}
		c.loc = loc
	})
	return c.loc
}

// parse builds l's Localizer from its catalog alone: the default
// language's messages, which it falls back on, are parsed once, in the
// default language's own Localizer.
func parse(fsys fs.FS, l Language, file string) (*Localizer, error) {
	b := goi18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("json", json.Unmarshal)
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, err
	}
	mf, err := b.ParseMessageFileBytes(data, file)
	if err != nil {
		return nil, fmt.Errorf("i18n: %s: %w", file, err)
	}
	loc := newLocalizer(b, l)
	loc.static = staticMessages(mf)
	return loc, nil
}

// staticMessages are the messages of a file that need no template: no
// placeholder and no plural forms. Looking them up in a map spares the
// pages the cost of go-i18n's template execution.
func staticMessages(mf *goi18n.MessageFile) map[string]string {
	out := map[string]string{}
	for _, m := range mf.Messages {
		if m.One == "" && m.Few == "" && m.Many == "" && m.Two == "" && m.Zero == "" && !strings.Contains(m.Other, "{{") {
			out[m.ID] = m.Other
		}
	}
	return out
}

// Known returns every language Hush is to speak, shipped or not.
func Known() []Language { return append([]Language(nil), known...) }

// Languages returns the shipped languages: those with a catalog, in the
// order of Known.
func Languages() []Language { return append([]Language(nil), load().shipped...) }

// Codes returns the codes of the shipped languages.
func Codes() []string {
	var out []string
	for _, l := range load().shipped {
		out = append(out, l.Code)
	}
	return out
}

// Lookup returns the shipped language with this code (any case: pt-br is
// pt-BR), or false.
func Lookup(code string) (Language, bool) {
	if c, ok := load().byCode[strings.ToLower(code)]; ok {
		return c.lang, true
	}
	return Language{}, false
}

// Match picks the shipped language that fits an Accept-Language header
// best; false when none fits (the header names none of them, or cannot be
// read).
func Match(acceptLanguage string) (Language, bool) {
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(tags) == 0 {
		return Language{}, false
	}
	c := load()
	_, i, conf := c.matcher.Match(tags...)
	if conf == language.No {
		return Language{}, false
	}
	return c.shipped[i], true
}

// For returns the Localizer of the shipped language code, or of the
// default language when code is not one.
func For(code string) *Localizer {
	c := load()
	if l, ok := c.byCode[strings.ToLower(code)]; ok {
		return l.localizer()
	}
	return c.byCode[Default].localizer()
}
