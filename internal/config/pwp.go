package config

import (
	"fmt"

	"hush/internal/push"
)

// Sanity caps on the expiration limits.
const (
	maxExpireDays  = 3650
	maxExpireViews = 1000000
)

// kindSection ties a Password Pusher settings section to a push kind.
type kindSection struct {
	name      string // PW, URL, FILES or QR
	kind      push.Kind
	deletable bool // whether the section has deletable-push settings
}

// kindSections lists the per-kind sections in the order of the documentation.
func kindSections() []kindSection {
	return []kindSection{
		{"PW", push.KindText, true},
		{"URL", push.KindURL, false},
		{"FILES", push.KindFile, true},
		{"QR", push.KindQR, true},
	}
}

// pushLoader collects the errors of reading PWP__ variables.
type pushLoader struct {
	src  *source
	errs []error
}

// boolVar sets *dst from the boolean variable name if it is set.
func (l *pushLoader) boolVar(name string, dst *bool) {
	v, _, ok := l.src.env(name)
	if !ok {
		return
	}
	b, err := parseBool(name, v)
	if err != nil {
		l.errs = append(l.errs, err)
		return
	}
	*dst = b
}

// intVar sets *dst from the integer variable name if it is set.
func (l *pushLoader) intVar(name string, dst *int) {
	v, _, ok := l.src.env(name)
	if !ok {
		return
	}
	n, err := parseInt(name, v, 0)
	if err != nil {
		l.errs = append(l.errs, err)
		return
	}
	*dst = int(n)
}

// loadPush applies the PWP__ variables to p and returns the parse errors.
func loadPush(s *source, p *push.Settings) []error {
	l := &pushLoader{src: s}
	l.boolVar("PWP__ALLOW_ANONYMOUS", &p.AllowAnonymous)
	l.boolVar("PWP__ENABLE_FILE_PUSHES", &p.EnableFilePushes)
	l.boolVar("PWP__ENABLE_URL_PUSHES", &p.EnableURLPushes)
	l.boolVar("PWP__ENABLE_QR_PUSHES", &p.EnableQRPushes)
	for _, sec := range kindSections() {
		k := p.ForKind(sec.kind)
		pre := "PWP__" + sec.name + "__"
		l.intVar(pre+"EXPIRE_AFTER_DAYS_DEFAULT", &k.ExpireAfterDaysDefault)
		l.intVar(pre+"EXPIRE_AFTER_DAYS_MIN", &k.ExpireAfterDaysMin)
		l.intVar(pre+"EXPIRE_AFTER_DAYS_MAX", &k.ExpireAfterDaysMax)
		l.intVar(pre+"EXPIRE_AFTER_VIEWS_DEFAULT", &k.ExpireAfterViewsDefault)
		l.intVar(pre+"EXPIRE_AFTER_VIEWS_MIN", &k.ExpireAfterViewsMin)
		l.intVar(pre+"EXPIRE_AFTER_VIEWS_MAX", &k.ExpireAfterViewsMax)
		l.boolVar(pre+"ENABLE_RETRIEVAL_STEP", &k.EnableRetrievalStep)
		l.boolVar(pre+"RETRIEVAL_STEP_DEFAULT", &k.RetrievalStepDefault)
		if sec.deletable {
			l.boolVar(pre+"ENABLE_DELETABLE_PUSHES", &k.EnableDeletable)
			l.boolVar(pre+"DELETABLE_PUSHES_DEFAULT", &k.DeletableDefault)
		}
	}
	const uploads = "PWP__FILES__MAX_FILE_UPLOADS"
	n := p.MaxFileUploads
	l.intVar(uploads, &n)
	if n < 0 {
		l.errs = append(l.errs, fmt.Errorf("%s: %d must not be negative", uploads, n))
	} else {
		p.MaxFileUploads = n
	}
	return l.errs
}

// validatePush checks 1 <= MIN <= DEFAULT <= MAX for the days and views of
// every kind, with the sanity caps on MAX.
func validatePush(p *push.Settings) []error {
	var errs []error
	for _, sec := range kindSections() {
		k := p.ForKind(sec.kind)
		pre := "PWP__" + sec.name + "__EXPIRE_AFTER_"
		errs = append(errs, checkRange(pre+"DAYS_",
			k.ExpireAfterDaysMin, k.ExpireAfterDaysDefault, k.ExpireAfterDaysMax, maxExpireDays)...)
		errs = append(errs, checkRange(pre+"VIEWS_",
			k.ExpireAfterViewsMin, k.ExpireAfterViewsDefault, k.ExpireAfterViewsMax, maxExpireViews)...)
	}
	return errs
}

// checkRange validates one MIN/DEFAULT/MAX triple; pre is the common prefix
// of the three variable names.
func checkRange(pre string, lo, def, hi, limit int) []error {
	var errs []error
	if lo < 1 {
		errs = append(errs, fmt.Errorf("%sMIN: %d must be at least 1", pre, lo))
	}
	if hi > limit {
		errs = append(errs, fmt.Errorf("%sMAX: %d exceeds the limit of %d", pre, hi, limit))
	}
	if lo > hi {
		errs = append(errs, fmt.Errorf("%sMIN (%d) must not exceed %sMAX (%d)", pre, lo, pre, hi))
		return errs
	}
	if def < lo {
		errs = append(errs, fmt.Errorf("%sDEFAULT (%d) must not be below %sMIN (%d)", pre, def, pre, lo))
	}
	if def > hi {
		errs = append(errs, fmt.Errorf("%sDEFAULT (%d) must not exceed %sMAX (%d)", pre, def, pre, hi))
	}
	return errs
}
