package push

// Generator holds the instance's defaults for the create page's password
// generator (Password Pusher's gen section): a password is SyllablesCount
// syllables, each of MinSyllableLength to MaxSyllableLength letters
// alternating between Consonants and Vowels, capitalised when TitleCased,
// followed by a digit when HasNumbers, and joined by one of Separators when
// UseSeparators. The browser generates; the server only passes these on.
type Generator struct {
	HasNumbers        bool
	TitleCased        bool
	UseSeparators     bool
	Consonants        string
	Vowels            string
	Separators        string
	MaxSyllableLength int
	MinSyllableLength int
	SyllablesCount    int
}

// Bounds of the generator settings: enough for any sensible password, few
// enough that a page never builds a huge one.
const (
	GenMaxSyllableLength = 16 // letters in a syllable at most
	GenMaxSyllables      = 32 // syllables in a password at most
	GenMaxSetLength      = 64 // characters in a consonant, vowel or separator set at most
)

// DefaultGenerator returns Password Pusher's generator defaults: three
// syllables of one to three letters, title-cased, each with a digit,
// separated by -, _ or =.
func DefaultGenerator() Generator {
	return Generator{
		HasNumbers:        true,
		TitleCased:        true,
		UseSeparators:     true,
		Consonants:        "bcdfghklmnprstvz",
		Vowels:            "aeiouy",
		Separators:        "-_=",
		MaxSyllableLength: 3,
		MinSyllableLength: 1,
		SyllablesCount:    3,
	}
}
