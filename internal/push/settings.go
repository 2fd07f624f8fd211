package push

// KindSettings are the per-kind limits and defaults of Password Pusher's settings
// (settings sections pw, url, files and qr of Password Pusher).
type KindSettings struct {
	ExpireAfterDaysDefault  int
	ExpireAfterDaysMin      int
	ExpireAfterDaysMax      int
	ExpireAfterViewsDefault int
	ExpireAfterViewsMin     int
	ExpireAfterViewsMax     int
	EnableRetrievalStep     bool
	RetrievalStepDefault    bool
	EnableDeletable         bool // not used for url pushes: they are never deletable by viewers
	DeletableDefault        bool
}

// Settings are the instance settings that shape pushes.
type Settings struct {
	AllowAnonymous   bool
	EnableFilePushes bool
	EnableURLPushes  bool
	EnableQRPushes   bool
	Text             KindSettings // Password Pusher's "pw" section
	URL              KindSettings
	Files            KindSettings
	QR               KindSettings
	MaxFileUploads   int
	// SubDayDurations offers the durations under a day (15 minutes to 12
	// hours, SubDayDurations): on the create form, and honoured when the API
	// asks for them (docs/decisions.md, D4).
	SubDayDurations bool
	// NotifyByEmail is e-mail auto-dispatch: the link of a new push may be
	// emailed to its recipients (notify_emails_to). It needs an SMTP server.
	NotifyByEmail bool
	// Receipts lets owners be emailed about their pushes (push.Receipts).
	// It needs an SMTP server.
	Receipts bool
	// Generator is the create page's password generator defaults.
	Generator Generator
	// Locales are the codes of the languages push_locale may name: the
	// shipped ones (docs/decisions.md, D53). Empty refuses every push_locale.
	Locales []string
	// DefaultLocale is the language of pages and emails when nothing else
	// chooses one (PWP__DEFAULT_LOCALE); "" is English.
	DefaultLocale string
}

// DefaultKindSettings are the values every kind ships with.
func DefaultKindSettings() KindSettings {
	return KindSettings{
		ExpireAfterDaysDefault:  7,
		ExpireAfterDaysMin:      1,
		ExpireAfterDaysMax:      90,
		ExpireAfterViewsDefault: 5,
		ExpireAfterViewsMin:     1,
		ExpireAfterViewsMax:     100,
		EnableRetrievalStep:     true,
		RetrievalStepDefault:    true,
		EnableDeletable:         true,
		DeletableDefault:        true,
	}
}

// DefaultSettings are Password Pusher's defaults.
func DefaultSettings() Settings {
	return Settings{
		AllowAnonymous:   true,
		EnableFilePushes: true,
		EnableURLPushes:  true,
		EnableQRPushes:   true,
		Text:             DefaultKindSettings(),
		URL:              DefaultKindSettings(),
		Files:            DefaultKindSettings(),
		QR:               DefaultKindSettings(),
		MaxFileUploads:   10,
		SubDayDurations:  true,
		Generator:        DefaultGenerator(),
	}
}

// ForKind returns the settings section of a kind.
func (s *Settings) ForKind(k Kind) *KindSettings {
	switch k {
	case KindURL:
		return &s.URL
	case KindFile:
		return &s.Files
	case KindQR:
		return &s.QR
	default:
		return &s.Text
	}
}

// SubDayOffered reports whether pushes of the kind k may last less than a
// day: the instance offers sub-day durations and the kind's shortest day
// limit is one day.
func (s *Settings) SubDayOffered(k Kind) bool {
	return s.SubDayDurations && s.ForKind(k).ExpireAfterDaysMin <= 1
}

// KindEnabled reports whether new pushes of kind k may be created.
func (s Settings) KindEnabled(k Kind) bool {
	switch k {
	case KindURL:
		return s.EnableURLPushes
	case KindFile:
		return s.EnableFilePushes
	case KindQR:
		return s.EnableQRPushes
	default:
		return true
	}
}
