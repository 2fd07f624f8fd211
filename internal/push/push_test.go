package push_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"hush/internal/push"
)

var created = time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)

func TestDaysRemaining(t *testing.T) {
	tests := []struct {
		name string
		days int
		now  time.Time
		want int
	}{
		{"at creation", 7, created, 7},
		{"just before one day", 7, created.Add(push.Day - time.Millisecond), 7},
		{"one day", 7, created.Add(push.Day), 6},
		{"one day and a bit", 7, created.Add(push.Day + time.Hour), 6},
		{"six days", 7, created.Add(6 * push.Day), 1},
		{"just before seven days", 7, created.Add(7*push.Day - time.Nanosecond), 1},
		{"seven days", 7, created.Add(7 * push.Day), 0},
		{"hundred days", 7, created.Add(100 * push.Day), 0},
		{"clock before creation", 7, created.Add(-time.Hour), 7},
		{"clock far before creation", 7, created.Add(-30 * push.Day), 7},
		{"1-day push up to 24h", 1, created.Add(push.Day - time.Millisecond), 1},
		{"1-day push at 24h", 1, created.Add(push.Day), 0},
		{"90 days", 90, created.Add(45 * push.Day), 45},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &push.Push{CreatedAt: created, ExpireAfterDays: tt.days}
			if got := p.DaysRemaining(tt.now); got != tt.want {
				t.Errorf("DaysRemaining(created%+v) = %d, want %d", tt.now.Sub(created), got, tt.want)
			}
		})
	}
}

func TestExpiresAt(t *testing.T) {
	for _, days := range []int{1, 7, 90} {
		p := &push.Push{CreatedAt: created, ExpireAfterDays: days}
		want := created.Add(time.Duration(days) * 24 * time.Hour)
		if got := p.ExpiresAt(); !got.Equal(want) {
			t.Errorf("days %d: ExpiresAt = %v, want %v", days, got, want)
		}
	}
	if push.Day != 24*time.Hour {
		t.Errorf("Day = %v, want 24h", push.Day)
	}
}

// TestSubDayLimit: a push of 15 minutes expires at its 15th minute and
// reports one day remaining until then, as Password Pusher reports the
// remaining part of a day (docs/decisions.md, D4).
func TestSubDayLimit(t *testing.T) {
	p := &push.Push{CreatedAt: created, ExpireAfterDays: 1, ExpireAfter: 15 * time.Minute, ExpireAfterViews: 5}
	if !p.ExpiresAt().Equal(created.Add(15 * time.Minute)) {
		t.Fatalf("ExpiresAt = %v", p.ExpiresAt())
	}
	for _, c := range []struct {
		at      time.Duration
		days    int
		reached bool
	}{
		{-time.Hour, 1, false}, {0, 1, false}, {15*time.Minute - time.Millisecond, 1, false},
		{15 * time.Minute, 0, true}, {time.Hour, 0, true}, {2 * push.Day, 0, true},
	} {
		now := created.Add(c.at)
		if got := p.DaysRemaining(now); got != c.days {
			t.Errorf("at %v: DaysRemaining %d, want %d", c.at, got, c.days)
		}
		if got := p.LimitsReached(now); got != c.reached {
			t.Errorf("at %v: LimitsReached %v, want %v", c.at, got, c.reached)
		}
	}
}

func TestViewsRemaining(t *testing.T) {
	tests := []struct{ max, count, want int }{
		{5, 0, 5},
		{5, 1, 4},
		{5, 4, 1},
		{5, 5, 0},
		{5, 6, 0},
		{1, 100, 0},
		{100, 37, 63},
	}
	for _, tt := range tests {
		p := &push.Push{ExpireAfterViews: tt.max, ViewCount: tt.count}
		if got := p.ViewsRemaining(); got != tt.want {
			t.Errorf("views %d, count %d: ViewsRemaining = %d, want %d", tt.max, tt.count, got, tt.want)
		}
	}
}

func TestLimitsReached(t *testing.T) {
	tests := []struct {
		name  string
		days  int
		views int
		count int
		now   time.Time
		want  bool
	}{
		{"fresh", 7, 5, 0, created, false},
		{"just before day limit", 7, 5, 0, created.Add(7*push.Day - time.Nanosecond), false},
		{"exactly at day limit", 7, 5, 0, created.Add(7 * push.Day), true},
		{"after day limit", 7, 5, 0, created.Add(8 * push.Day), true},
		{"1 day exactly", 1, 5, 0, created.Add(push.Day), true},
		{"one view left", 7, 5, 4, created, false},
		{"views reached", 7, 5, 5, created, true},
		{"views exceeded", 7, 5, 9, created, true},
		{"1-view push viewed once", 7, 1, 1, created, true},
		{"clock before creation", 7, 5, 0, created.Add(-time.Hour), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &push.Push{CreatedAt: created, ExpireAfterDays: tt.days, ExpireAfterViews: tt.views, ViewCount: tt.count}
			if got := p.LimitsReached(tt.now); got != tt.want {
				t.Errorf("LimitsReached = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOwnedBy(t *testing.T) {
	tests := []struct {
		owner, caller int64
		want          bool
	}{
		{0, 0, false}, // anonymous push is owned by nobody, not by the anonymous caller
		{0, 1, false},
		{1, 0, false},
		{1, 1, true},
		{1, 2, false},
		{42, 42, true},
	}
	for _, tt := range tests {
		p := &push.Push{UserID: tt.owner}
		if got := p.OwnedBy(tt.caller); got != tt.want {
			t.Errorf("push of user %d: OwnedBy(%d) = %v, want %v", tt.owner, tt.caller, got, tt.want)
		}
	}
}

func TestTruncate255(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantRunes int
		wantSame  bool
	}{
		{"empty", "", 0, true},
		{"short", "Mozilla/5.0", 11, true},
		{"ascii 254", strings.Repeat("a", 254), 254, true},
		{"ascii 255", strings.Repeat("a", 255), 255, true},
		{"ascii 256", strings.Repeat("a", 256), 255, false},
		{"ascii 300", strings.Repeat("a", 300), 255, false},
		{"2-byte 255", strings.Repeat("é", 255), 255, true},
		{"2-byte 300", strings.Repeat("é", 300), 255, false},
		{"4-byte 300", strings.Repeat("🔑", 300), 255, false},
		{"mixed 300", strings.Repeat("aé€🔑", 75), 255, false},
		{"ascii then multibyte at the cut", strings.Repeat("a", 254) + "€€€", 255, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := push.Truncate255(tt.in)
			if n := utf8.RuneCountInString(got); n != tt.wantRunes {
				t.Errorf("rune count = %d, want %d", n, tt.wantRunes)
			}
			if !utf8.ValidString(got) {
				t.Errorf("result is not valid UTF-8: %q", got)
			}
			if !strings.HasPrefix(tt.in, got) {
				t.Errorf("result is not a prefix of the input")
			}
			if (got == tt.in) != tt.wantSame {
				t.Errorf("unchanged = %v, want %v", got == tt.in, tt.wantSame)
			}
		})
	}
	if got := push.Truncate255(strings.Repeat("a", 300)); len(got) != 255 {
		t.Errorf("ascii 300: len = %d bytes, want 255", len(got))
	}
	if got := push.Truncate255(strings.Repeat("€", 300)); len(got) != 255*3 {
		t.Errorf("3-byte 300: len = %d bytes, want %d", len(got), 255*3)
	}
}

func TestEventKindString(t *testing.T) {
	tests := []struct {
		k    push.EventKind
		val  int
		want string
	}{
		{push.EventCreation, 0, "creation"},
		{push.EventView, 1, "view"},
		{push.EventFailedView, 2, "failed_view"},
		{push.EventExpire, 3, "expire"},
		{push.EventFailedPassphrase, 4, "failed_passphrase"},
		{push.EventAdminView, 5, "admin_view"},
		{push.EventOwnerView, 6, "owner_view"},
		{push.EventKind(7), 7, "unknown"},
		{push.EventKind(-1), -1, "unknown"},
	}
	for _, tt := range tests {
		if int(tt.k) != tt.val {
			t.Errorf("%s has value %d, want %d", tt.want, int(tt.k), tt.val)
		}
		if got := tt.k.String(); got != tt.want {
			t.Errorf("EventKind(%d).String() = %q, want %q", int(tt.k), got, tt.want)
		}
		if got := fmt.Sprint(tt.k); got != tt.want {
			t.Errorf("fmt.Sprint(EventKind(%d)) = %q, want %q", int(tt.k), got, tt.want)
		}
	}
	if push.MaxAuditLogs != 2000 {
		t.Errorf("MaxAuditLogs = %d, want 2000", push.MaxAuditLogs)
	}
}

func TestErrorCode(t *testing.T) {
	base := push.Errorf(push.CodeForbidden, "no %s", "way")
	tests := []struct {
		name string
		err  error
		want push.Code
	}{
		{"nil", nil, ""},
		{"plain error", errors.New("boom"), ""},
		{"direct", base, push.CodeForbidden},
		{"wrapped once", fmt.Errorf("x: %w", base), push.CodeForbidden},
		{"wrapped twice", fmt.Errorf("y: %w", fmt.Errorf("x: %w", base)), push.CodeForbidden},
		{"joined", errors.Join(errors.New("a"), &push.Error{Code: push.CodeTooMany}), push.CodeTooMany},
		{"not found", push.ErrNotFound, push.CodeNotFound},
		{"wrapped not found", fmt.Errorf("lookup: %w", push.ErrNotFound), push.CodeNotFound},
		{"formatted without %w", fmt.Errorf("x: %v", base), ""},
		{"field errors", push.FieldErrors{"a": {"b"}}.Err(), push.CodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := push.ErrorCode(tt.err); got != tt.want {
				t.Errorf("ErrorCode = %q, want %q", got, tt.want)
			}
		})
	}
	if base.Message != "no way" {
		t.Errorf("Errorf message = %q, want %q", base.Message, "no way")
	}
	if got := base.Error(); got != "forbidden: no way" {
		t.Errorf("Error() = %q, want %q", got, "forbidden: no way")
	}
	if push.ErrNotFound.Message != "not-found" {
		t.Errorf("ErrNotFound.Message = %q, want not-found", push.ErrNotFound.Message)
	}
}

func TestFieldErrors(t *testing.T) {
	f := push.FieldErrors{}
	if err := f.Err(); err != nil {
		t.Fatalf("empty FieldErrors.Err() = %v (%T), want nil", err, err)
	}
	var nilMap push.FieldErrors
	if err := nilMap.Err(); err != nil {
		t.Fatalf("nil FieldErrors.Err() = %v, want nil", err)
	}

	f.Add("payload", "first")
	f.Add("payload", "second")
	f.Add("kind", "bad")
	err := f.Err()
	var e *push.Error
	if !errors.As(err, &e) {
		t.Fatalf("Err() = %T, want *push.Error", err)
	}
	if e.Code != push.CodeInvalid {
		t.Errorf("Code = %q, want %q", e.Code, push.CodeInvalid)
	}
	if got := e.Fields["payload"]; len(got) != 2 || got[0] != "first" || got[1] != "second" {
		t.Errorf("Fields[payload] = %v, want [first second] in order", got)
	}
	if got := e.Fields["kind"]; len(got) != 1 || got[0] != "bad" {
		t.Errorf("Fields[kind] = %v, want [bad]", got)
	}
	if msg := e.Error(); !strings.HasPrefix(msg, "invalid: ") || !strings.Contains(msg, "payload") {
		t.Errorf("Error() = %q, want it to start with \"invalid: \" and mention the fields", msg)
	}
}

func TestParseKind(t *testing.T) {
	tests := []struct {
		in   string
		want push.Kind
		ok   bool
	}{
		{"text", push.KindText, true},
		{"file", push.KindFile, true},
		{"url", push.KindURL, true},
		{"qr", push.KindQR, true},
		{"", "", false},
		{"TEXT", "", false},
		{"Url", "", false},
		{" qr", "", false},
		{"pw", "", false},
		{"bogus", "", false},
		{"files", "", false},
	}
	for _, tt := range tests {
		got, ok := push.ParseKind(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseKind(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSettingsForKindAndKindEnabled(t *testing.T) {
	s := push.DefaultSettings()
	// Give each section a distinct marker.
	s.Text.ExpireAfterDaysDefault = 1
	s.URL.ExpireAfterDaysDefault = 2
	s.Files.ExpireAfterDaysDefault = 3
	s.QR.ExpireAfterDaysDefault = 4
	tests := []struct {
		k    push.Kind
		want *push.KindSettings
		mark int
	}{
		{push.KindText, &s.Text, 1},
		{push.KindURL, &s.URL, 2},
		{push.KindFile, &s.Files, 3},
		{push.KindQR, &s.QR, 4},
		{push.Kind("bogus"), &s.Text, 1},
	}
	for _, tt := range tests {
		got := s.ForKind(tt.k)
		if got != tt.want {
			t.Errorf("ForKind(%q) returned the wrong section", tt.k)
		}
		if got.ExpireAfterDaysDefault != tt.mark {
			t.Errorf("ForKind(%q).ExpireAfterDaysDefault = %d, want %d", tt.k, got.ExpireAfterDaysDefault, tt.mark)
		}
	}
	// ForKind returns a pointer into the settings, not a copy.
	s.ForKind(push.KindQR).ExpireAfterViewsMax = 77
	if s.QR.ExpireAfterViewsMax != 77 {
		t.Errorf("ForKind does not return the settings' own section")
	}

	all := push.DefaultSettings()
	for _, k := range []push.Kind{push.KindText, push.KindURL, push.KindFile, push.KindQR} {
		if !all.KindEnabled(k) {
			t.Errorf("default settings: KindEnabled(%q) = false", k)
		}
	}
	flags := []struct {
		k   push.Kind
		off func(*push.Settings)
	}{
		{push.KindFile, func(s *push.Settings) { s.EnableFilePushes = false }},
		{push.KindURL, func(s *push.Settings) { s.EnableURLPushes = false }},
		{push.KindQR, func(s *push.Settings) { s.EnableQRPushes = false }},
	}
	for _, f := range flags {
		s := push.DefaultSettings()
		f.off(&s)
		for _, k := range []push.Kind{push.KindText, push.KindURL, push.KindFile, push.KindQR} {
			if got, want := s.KindEnabled(k), k != f.k; got != want {
				t.Errorf("%q disabled: KindEnabled(%q) = %v, want %v", f.k, k, got, want)
			}
		}
	}
}

func TestDefaultSettings(t *testing.T) {
	s := push.DefaultSettings()
	if !s.AllowAnonymous || !s.EnableFilePushes || !s.EnableURLPushes || !s.EnableQRPushes {
		t.Errorf("DefaultSettings flags = %+v, want all enabled", s)
	}
	if s.MaxFileUploads != 10 {
		t.Errorf("MaxFileUploads = %d, want 10", s.MaxFileUploads)
	}
	want := push.KindSettings{
		ExpireAfterDaysDefault: 7, ExpireAfterDaysMin: 1, ExpireAfterDaysMax: 90,
		ExpireAfterViewsDefault: 5, ExpireAfterViewsMin: 1, ExpireAfterViewsMax: 100,
		EnableRetrievalStep: true, RetrievalStepDefault: true,
		EnableDeletable: true, DeletableDefault: true,
	}
	for name, ks := range map[string]push.KindSettings{"text": s.Text, "url": s.URL, "files": s.Files, "qr": s.QR} {
		if ks != want {
			t.Errorf("%s section = %+v, want %+v", name, ks, want)
		}
	}
	if push.DefaultKindSettings() != want {
		t.Errorf("DefaultKindSettings() = %+v, want %+v", push.DefaultKindSettings(), want)
	}
	if push.MaxTextPayload != 1048576 || push.MaxQRPayload != 1024 {
		t.Errorf("MaxTextPayload, MaxQRPayload = %d, %d; want 1048576, 1024", push.MaxTextPayload, push.MaxQRPayload)
	}
}
