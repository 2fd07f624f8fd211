package config

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"hush/internal/push"
)

// loadGenerator reads the password generator's defaults (Password Pusher's
// PWP__GEN__ section) and refuses settings that could not make a password.
func loadGenerator(s *source, c *Config) error {
	g := &c.Push.Generator
	l := &pushLoader{src: s}
	l.boolVar("PWP__GEN__HAS_NUMBERS", &g.HasNumbers)
	l.boolVar("PWP__GEN__TITLE_CASED", &g.TitleCased)
	l.boolVar("PWP__GEN__USE_SEPARATORS", &g.UseSeparators)
	l.intVar("PWP__GEN__MAX_SYLLABLE_LENGTH", &g.MaxSyllableLength)
	l.intVar("PWP__GEN__MIN_SYLLABLE_LENGTH", &g.MinSyllableLength)
	l.intVar("PWP__GEN__SYLLABLES_COUNT", &g.SyllablesCount)
	for _, v := range []struct {
		name string
		dst  *string
	}{
		{"PWP__GEN__CONSONANTS", &g.Consonants},
		{"PWP__GEN__VOWELS", &g.Vowels},
		{"PWP__GEN__SEPARATORS", &g.Separators},
	} {
		// An empty variable counts as unset, as everywhere: the default stays.
		if val, name, ok := s.env(v.name); ok {
			if err := checkCharSet(name, val); err != nil {
				l.errs = append(l.errs, err)
			} else {
				*v.dst = val
			}
		}
	}
	if len(l.errs) > 0 {
		return errors.Join(l.errs...)
	}
	return checkGenerator(g)
}

// checkGenerator checks the lengths and counts of the generator settings.
func checkGenerator(g *push.Generator) error {
	var errs []error
	for _, v := range []struct {
		name string
		n    int
		max  int
	}{
		{"PWP__GEN__MIN_SYLLABLE_LENGTH", g.MinSyllableLength, push.GenMaxSyllableLength},
		{"PWP__GEN__MAX_SYLLABLE_LENGTH", g.MaxSyllableLength, push.GenMaxSyllableLength},
		{"PWP__GEN__SYLLABLES_COUNT", g.SyllablesCount, push.GenMaxSyllables},
	} {
		if v.n < 1 || v.n > v.max {
			errs = append(errs, fmt.Errorf("%s: %d is outside 1..%d", v.name, v.n, v.max))
		}
	}
	if g.MinSyllableLength > g.MaxSyllableLength {
		errs = append(errs, fmt.Errorf("PWP__GEN__MIN_SYLLABLE_LENGTH (%d) must not exceed PWP__GEN__MAX_SYLLABLE_LENGTH (%d)",
			g.MinSyllableLength, g.MaxSyllableLength))
	}
	return errors.Join(errs...)
}

// checkCharSet checks a set of characters to draw from: at most
// push.GenMaxSetLength printable characters, none blank and none twice (a
// repeated one would be drawn more often than the others).
func checkCharSet(name, v string) error {
	if !utf8.ValidString(v) {
		return fmt.Errorf("%s: is not valid UTF-8", name)
	}
	if n := utf8.RuneCountInString(v); n > push.GenMaxSetLength {
		return fmt.Errorf("%s: %d characters, at most %d", name, n, push.GenMaxSetLength)
	}
	for i, r := range v {
		switch {
		case unicode.IsSpace(r) || !unicode.IsPrint(r):
			return fmt.Errorf("%s: %q is not a printable character", name, r)
		case strings.ContainsRune(v[i+utf8.RuneLen(r):], r):
			return fmt.Errorf("%s: %q appears more than once", name, r)
		}
	}
	return nil
}

// generatorUsage lists the password generator's settings for Usage.
func generatorUsage() []usageRow {
	d := push.DefaultGenerator()
	return []usageRow{
		{"PWP__GEN__HAS_NUMBERS", "", fmt.Sprint(d.HasNumbers), "generated passwords: a digit after each syllable"},
		{"PWP__GEN__TITLE_CASED", "", fmt.Sprint(d.TitleCased), "generated passwords: each syllable starts with a capital"},
		{"PWP__GEN__USE_SEPARATORS", "", fmt.Sprint(d.UseSeparators), "generated passwords: a separator between syllables"},
		{"PWP__GEN__CONSONANTS", "", d.Consonants, fmt.Sprintf("generated passwords: the consonants (1 to %d characters)", push.GenMaxSetLength)},
		{"PWP__GEN__VOWELS", "", d.Vowels, fmt.Sprintf("generated passwords: the vowels (1 to %d characters)", push.GenMaxSetLength)},
		{"PWP__GEN__SEPARATORS", "", d.Separators, "generated passwords: the separators, one drawn for each gap"},
		{"PWP__GEN__MAX_SYLLABLE_LENGTH", "", fmt.Sprint(d.MaxSyllableLength), fmt.Sprintf("generated passwords: letters in a syllable at most (1..%d)", push.GenMaxSyllableLength)},
		{"PWP__GEN__MIN_SYLLABLE_LENGTH", "", fmt.Sprint(d.MinSyllableLength), "generated passwords: letters in a syllable at least (1..MAX_SYLLABLE_LENGTH)"},
		{"PWP__GEN__SYLLABLES_COUNT", "", fmt.Sprint(d.SyllablesCount), fmt.Sprintf("generated passwords: syllables (1..%d)", push.GenMaxSyllables)},
	}
}

// generatorShown is the generator's settings for the admin overview.
func (c *Config) generatorShown() []Setting {
	g := c.Push.Generator
	return []Setting{
		{"PWP__GEN__HAS_NUMBERS", fmt.Sprint(g.HasNumbers)},
		{"PWP__GEN__TITLE_CASED", fmt.Sprint(g.TitleCased)},
		{"PWP__GEN__USE_SEPARATORS", fmt.Sprint(g.UseSeparators)},
		{"PWP__GEN__CONSONANTS", g.Consonants},
		{"PWP__GEN__VOWELS", g.Vowels},
		{"PWP__GEN__SEPARATORS", g.Separators},
		{"PWP__GEN__MAX_SYLLABLE_LENGTH", fmt.Sprint(g.MaxSyllableLength)},
		{"PWP__GEN__MIN_SYLLABLE_LENGTH", fmt.Sprint(g.MinSyllableLength)},
		{"PWP__GEN__SYLLABLES_COUNT", fmt.Sprint(g.SyllablesCount)},
	}
}
