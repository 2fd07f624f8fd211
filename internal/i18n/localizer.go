package i18n

import (
	"time"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/number"
)

// Localizer speaks one shipped language. It is safe for concurrent use;
// one exists per language (For), so getting one costs a map look-up.
type Localizer struct {
	lang    Language
	static  map[string]string // the messages without placeholders or plural forms, as they are
	loc     *goi18n.Localizer
	printer *message.Printer
	layout  dateLayout
	// fallback is the default language's, for the messages this one's
	// catalog lacks; nil for the default language itself.
	fallback *Localizer
}

func newLocalizer(b *goi18n.Bundle, l Language) *Localizer {
	lay, ok := dateLayouts[l.Code]
	if !ok {
		lay = dateLayouts[Default]
	}
	return &Localizer{lang: l, loc: goi18n.NewLocalizer(b, l.Code), printer: message.NewPrinter(l.tag), layout: lay}
}

// Lang is the Localizer's language.
func (l *Localizer) Lang() Language { return l.lang }

// Tag is the language's BCP 47 tag.
func (l *Localizer) Tag() language.Tag { return l.lang.tag }

// T returns the message key with its named placeholders filled from data
// (nil when it has none). A message this language lacks is the default
// language's; a key no catalog has comes back as the key itself, so a
// missing text shows on the page instead of failing it (the catalog test
// keeps keys from going missing).
func (l *Localizer) T(key string, data map[string]any) string {
	return l.localize(&goi18n.LocalizeConfig{MessageID: key, TemplateData: data})
}

// N is T for a message with a count: the plural form is the one the
// language's CLDR rules choose for count, and the count is also the
// placeholder {{.Count}}, written with the locale's digits and grouping.
func (l *Localizer) N(key string, count int, data map[string]any) string {
	d := make(map[string]any, len(data)+1)
	for k, v := range data {
		d[k] = v
	}
	d["Count"] = l.Number(count)
	return l.localize(&goi18n.LocalizeConfig{MessageID: key, TemplateData: d, PluralCount: count})
}

// localize renders c from this language's catalog or, when it lacks the
// message, from the default language's (with the plural rules of the
// language whose text it is); the key itself when neither has it.
func (l *Localizer) localize(c *goi18n.LocalizeConfig) string {
	for loc := l; loc != nil; loc = loc.fallback {
		if s, ok := loc.static[c.MessageID]; ok && c.PluralCount == nil {
			return s
		}
		if s, err := loc.loc.Localize(c); err == nil || s != "" {
			return s
		}
	}
	return c.MessageID
}

// Number writes an integer the locale's way: 1,234 in English, 1.234 in
// German.
func (l *Localizer) Number(n int) string { return l.printer.Sprint(number.Decimal(n)) }

// Decimal writes a number with at most digits fraction digits: 12.5 in
// English, 12,5 in German.
func (l *Localizer) Decimal(v float64, digits int) string {
	return l.printer.Sprint(number.Decimal(v, number.MaxFractionDigits(digits), number.MinFractionDigits(digits)))
}

// Date writes an instant's day and time, in UTC, the locale's way.
func (l *Localizer) Date(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(l.layout.minute)
}

// DateTime is Date with seconds.
func (l *Localizer) DateTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(l.layout.second)
}

// dateLayout is how a language writes an instant. Only digits are used, so
// no month or day name needs translating: x/text has no date formatting,
// and a table of each language's numeric order and separators is enough
// for the few dates Hush shows (docs/decisions.md, D52).
type dateLayout struct{ minute, second string }

func layout(date string) dateLayout {
	return dateLayout{minute: date + " 15:04 UTC", second: date + " 15:04:05 UTC"}
}

var dateLayouts = map[string]dateLayout{
	"en":    layout("2006-01-02"),
	"de":    layout("02.01.2006,"),
	"fr":    layout("02/01/2006"),
	"es":    layout("02/01/2006,"),
	"it":    layout("02/01/2006,"),
	"nl":    layout("02-01-2006"),
	"pt-BR": layout("02/01/2006,"),
	"pl":    layout("02.01.2006,"),
	"sv":    layout("2006-01-02"),
	"ja":    layout("2006/01/02"),
	"zh-CN": layout("2006/01/02"),
	"uk":    layout("02.01.2006,"),
	"ar":    layout("02/01/2006،"),
}
