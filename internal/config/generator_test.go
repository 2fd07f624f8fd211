package config

import (
	"strings"
	"testing"

	"hush/internal/push"
)

// TestGeneratorDefaults: without settings the generator has Password
// Pusher's defaults.
func TestGeneratorDefaults(t *testing.T) {
	g := mustLoad(t, nil, nil).Push.Generator
	want := push.Generator{HasNumbers: true, TitleCased: true, UseSeparators: true, Consonants: "bcdfghklmnprstvz",
		Vowels: "aeiouy", Separators: "-_=", MaxSyllableLength: 3, MinSyllableLength: 1, SyllablesCount: 3}
	if g != want {
		t.Errorf("defaults %+v, want %+v", g, want)
	}
}

func TestGeneratorFromEnv(t *testing.T) {
	g := mustLoad(t, nil, map[string]string{
		"PWP__GEN__HAS_NUMBERS":         "false",
		"PWP__GEN__TITLE_CASED":         "no",
		"PWP__GEN__USE_SEPARATORS":      "0",
		"PWP__GEN__CONSONANTS":          "bcdßж",
		"PWP__GEN__VOWELS":              "ae",
		"PWP__GEN__SEPARATORS":          ".",
		"PWP__GEN__MAX_SYLLABLE_LENGTH": "16",
		"PWP__GEN__MIN_SYLLABLE_LENGTH": "16",
		"PWP__GEN__SYLLABLES_COUNT":     " 32 ",
	}).Push.Generator
	want := push.Generator{Consonants: "bcdßж", Vowels: "ae", Separators: ".", MaxSyllableLength: 16,
		MinSyllableLength: 16, SyllablesCount: 32}
	if g != want {
		t.Errorf("got %+v, want %+v", g, want)
	}
}

// TestGeneratorRefused: settings that could not make a password stop the
// start, naming the variable and what is wrong.
func TestGeneratorRefused(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"PWP__GEN__MIN_SYLLABLE_LENGTH": "4"}, "PWP__GEN__MIN_SYLLABLE_LENGTH (4) must not exceed PWP__GEN__MAX_SYLLABLE_LENGTH (3)"},
		{map[string]string{"PWP__GEN__MIN_SYLLABLE_LENGTH": "0"}, "PWP__GEN__MIN_SYLLABLE_LENGTH: 0 is outside 1..16"},
		{map[string]string{"PWP__GEN__MAX_SYLLABLE_LENGTH": "17"}, "PWP__GEN__MAX_SYLLABLE_LENGTH: 17 is outside 1..16"},
		{map[string]string{"PWP__GEN__SYLLABLES_COUNT": "0"}, "PWP__GEN__SYLLABLES_COUNT: 0 is outside 1..32"},
		{map[string]string{"PWP__GEN__SYLLABLES_COUNT": "33"}, "PWP__GEN__SYLLABLES_COUNT: 33 is outside 1..32"},
		{map[string]string{"PWP__GEN__SYLLABLES_COUNT": "-1"}, "PWP__GEN__SYLLABLES_COUNT: -1 is outside 1..32"},
		{map[string]string{"PWP__GEN__SYLLABLES_COUNT": "three"}, `PWP__GEN__SYLLABLES_COUNT: "three" is not an integer`},
		{map[string]string{"PWP__GEN__SYLLABLES_COUNT": "99999999999999999999"}, "PWP__GEN__SYLLABLES_COUNT: \"99999999999999999999\" is out of range"},
		{map[string]string{"PWP__GEN__HAS_NUMBERS": "maybe"}, `PWP__GEN__HAS_NUMBERS: "maybe" is not a boolean`},
		{map[string]string{"PWP__GEN__CONSONANTS": "b c"}, `PWP__GEN__CONSONANTS: ' ' is not a printable character`},
		{map[string]string{"PWP__GEN__VOWELS": "aea"}, `PWP__GEN__VOWELS: 'a' appears more than once`},
		{map[string]string{"PWP__GEN__SEPARATORS": "-\x00"}, `PWP__GEN__SEPARATORS: '\x00' is not a printable character`},
		{map[string]string{"PWP__GEN__CONSONANTS": "\xff"}, "PWP__GEN__CONSONANTS: is not valid UTF-8"},
		{map[string]string{"PWP__GEN__CONSONANTS": strings.Repeat("bcdfghklmnprstvz", 3) + "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐ"}, "PWP__GEN__CONSONANTS: 65 characters, at most 64"},
	} {
		_, err := Load(nil, envMap(c.env))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.env, err, c.want)
		}
	}
}

// TestGeneratorUnsetWhenEmpty: an empty set counts as unset, as every
// empty variable does, so the default stays (a set can never be empty).
func TestGeneratorUnsetWhenEmpty(t *testing.T) {
	g := mustLoad(t, nil, map[string]string{"PWP__GEN__CONSONANTS": "  ", "PWP__GEN__SEPARATORS": ""}).Push.Generator
	if g.Consonants != "bcdfghklmnprstvz" || g.Separators != "-_=" {
		t.Errorf("empty values: %+v", g)
	}
}
