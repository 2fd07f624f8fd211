package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"hush/internal/push"
)

// decodeParams decodes a JSON object the way the API layer does (UseNumber).
func decodeParams(t *testing.T, js string) Params {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(js))
	dec.UseNumber()
	var p Params
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("decode %s: %v", js, err)
	}
	return p
}

func defaults() *push.Settings {
	s := push.DefaultSettings()
	return &s
}

// resolveOK resolves and fails the test on any error.
func resolveOK(t *testing.T, p Params, files int, s *push.Settings) *push.Draft {
	t.Helper()
	d, err := resolve(p, files, s)
	if err != nil {
		t.Fatalf("resolve(%v, %d): unexpected error %v", p, files, err)
	}
	if d == nil {
		t.Fatalf("resolve(%v, %d): nil draft without error", p, files)
	}
	return d
}

// resolveInvalid resolves, requires a CodeInvalid *push.Error and returns its fields.
func resolveInvalid(t *testing.T, p Params, files int, s *push.Settings) map[string][]string {
	t.Helper()
	d, err := resolve(p, files, s)
	if err == nil {
		t.Fatalf("resolve(%v, %d): want error, got draft %+v", p, files, d)
	}
	if d != nil {
		t.Errorf("resolve(%v, %d): draft %+v returned together with error", p, files, d)
	}
	var e *push.Error
	if !errors.As(err, &e) {
		t.Fatalf("resolve error %T (%v) is not a *push.Error", err, err)
	}
	if e.Code != push.CodeInvalid {
		t.Fatalf("resolve error code = %q, want %q", e.Code, push.CodeInvalid)
	}
	if len(e.Fields) == 0 {
		t.Fatalf("resolve error has no field messages: %v", err)
	}
	return e.Fields
}

func TestResolveKind(t *testing.T) {
	tests := []struct {
		name  string
		json  string
		files int
		want  push.Kind
	}{
		{"absent", `{"payload":"x"}`, 0, push.KindText},
		{"absent with files", `{"payload":"x"}`, 1, push.KindFile},
		{"empty string with files", `{"kind":"","payload":"x"}`, 2, push.KindFile},
		{"empty string without files", `{"kind":"","payload":"x"}`, 0, push.KindText},
		{"null with files", `{"kind":null}`, 3, push.KindFile},
		{"explicit text wins over files", `{"kind":"text","payload":"x"}`, 3, push.KindText},
		{"explicit url wins over files", `{"kind":"url","payload":"https://example.com"}`, 1, push.KindURL},
		{"explicit qr", `{"kind":"qr","payload":"x"}`, 0, push.KindQR},
		{"explicit file without files", `{"kind":"file"}`, 0, push.KindFile},
		{"explicit file with files", `{"kind":"file"}`, 10, push.KindFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := resolveOK(t, decodeParams(t, tt.json), tt.files, defaults())
			if d.Kind != tt.want {
				t.Errorf("Kind = %q, want %q", d.Kind, tt.want)
			}
			if d.FileCount != tt.files {
				t.Errorf("FileCount = %d, want %d", d.FileCount, tt.files)
			}
		})
	}
}

func TestResolveUnknownKind(t *testing.T) {
	want := map[string][]string{"kind": {"is not included in the list"}}
	tests := []struct {
		name  string
		json  string
		files int
	}{
		{"bogus", `{"kind":"bogus","payload":"x"}`, 0},
		{"upper case TEXT", `{"kind":"TEXT","payload":"x"}`, 0},
		{"capitalised File with files", `{"kind":"File"}`, 2},
		{"padded", `{"kind":" text","payload":"x"}`, 0},
		// Only the kind error is reported, even when other fields are bad too (docs/decisions.md, D2).
		{"bogus with other errors", `{"kind":"bogus","payload":"","expire_after_days":0,"name":5}`, 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolveInvalid(t, decodeParams(t, tt.json), tt.files, defaults())
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Fields = %v, want exactly %v", got, want)
			}
		})
	}
}

func TestResolveKindNotString(t *testing.T) {
	for _, js := range []string{`{"kind":1,"payload":"x"}`, `{"kind":true,"payload":"x"}`, `{"kind":["text"],"payload":"x"}`} {
		t.Run(js, func(t *testing.T) {
			got := resolveInvalid(t, decodeParams(t, js), 0, defaults())
			if len(got["kind"]) == 0 {
				t.Errorf("Fields = %v, want a kind error", got)
			}
		})
	}
}

func TestResolveDisabledKinds(t *testing.T) {
	tests := []struct {
		name    string
		disable func(*push.Settings)
		json    string
		files   int
		msg     string
	}{
		{"file explicit", func(s *push.Settings) { s.EnableFilePushes = false }, `{"kind":"file"}`, 0, "File pushes are disabled."},
		{"file inferred", func(s *push.Settings) { s.EnableFilePushes = false }, `{"payload":"x"}`, 1, "File pushes are disabled."},
		{"url", func(s *push.Settings) { s.EnableURLPushes = false }, `{"kind":"url","payload":"https://example.com"}`, 0, "URL pushes are disabled."},
		{"qr", func(s *push.Settings) { s.EnableQRPushes = false }, `{"kind":"qr","payload":"x"}`, 0, "QR code pushes are disabled."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := defaults()
			tt.disable(s)
			got := resolveInvalid(t, decodeParams(t, tt.json), tt.files, s)
			want := map[string][]string{"kind": {tt.msg}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Fields = %v, want %v", got, want)
			}
			// Text is never disabled by these flags.
			d := resolveOK(t, Params{"payload": "x"}, 0, s)
			if d.Kind != push.KindText {
				t.Errorf("text push with %s disabled: Kind = %q", tt.name, d.Kind)
			}
		})
	}

	t.Run("other errors are reported too", func(t *testing.T) {
		s := defaults()
		s.EnableURLPushes = false
		got := resolveInvalid(t, decodeParams(t, `{"kind":"url","payload":"ftp://x"}`), 0, s)
		want := map[string][]string{
			"kind":    {"URL pushes are disabled."},
			"payload": {"must be a valid HTTP or HTTPS URL."},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Fields = %v, want %v", got, want)
		}
	})
}

func TestResolvePayload(t *testing.T) {
	const (
		required = "Payload is required."
		tooLarge = "The payload is too large.  You can only push up to 1048576 bytes."
		qrLarge  = "The QR code payload is too large.  You can only push up to 1024 bytes."
		badURL   = "must be a valid HTTP or HTTPS URL."
	)
	tests := []struct {
		name    string
		kind    string // "" = absent
		payload any    // absentPayload = key absent
		files   int
		want    string // "" = accepted
	}{
		{"text empty", "text", "", 0, required},
		{"text absent", "", absentPayload{}, 0, required},
		{"text null", "text", nil, 0, required},
		{"text spaces", "", "   ", 0, required},
		{"text whitespace mix", "text", " \t\r\n ", 0, required},
		{"text one char", "", "x", 0, ""},
		{"text padded", "", "  x  ", 0, ""},
		{"text max ascii", "text", strings.Repeat("a", push.MaxTextPayload), 0, ""},
		{"text max+1 ascii", "text", strings.Repeat("a", push.MaxTextPayload+1), 0, tooLarge},
		{"text max multibyte runes", "text", strings.Repeat("é", push.MaxTextPayload), 0, ""},
		{"text max 3-byte runes", "", strings.Repeat("€", push.MaxTextPayload), 0, ""},
		{"text max+1 multibyte runes", "text", strings.Repeat("€", push.MaxTextPayload+1), 0, tooLarge},
		{"text with files still needs payload", "text", "", 2, required},

		{"qr empty", "qr", "", 0, required},
		{"qr whitespace", "qr", "\n\t ", 0, required},
		{"qr any text", "qr", "not a url", 0, ""},
		{"qr 1024", "qr", strings.Repeat("q", 1024), 0, ""},
		{"qr 1024 multibyte", "qr", strings.Repeat("ü", 1024), 0, ""},
		{"qr 1025", "qr", strings.Repeat("q", 1025), 0, qrLarge},
		{"qr 1025 multibyte", "qr", strings.Repeat("ü", 1025), 0, qrLarge},

		{"url empty", "url", "", 0, required},
		{"url whitespace", "url", "  ", 0, required},
		{"url ftp", "url", "ftp://x", 0, badURL},
		{"url javascript", "url", "javascript:alert(1)", 0, badURL},
		{"url data", "url", "data:text/html,hi", 0, badURL},
		{"url leading space", "url", " http://x", 0, badURL},
		{"url no scheme", "url", "example.com", 0, badURL},
		{"url ftp colon only", "url", "ftp:", 0, badURL},
		{"url https", "url", "https://example.com/a?b=c#d", 0, ""},
		{"url http", "url", "http://x", 0, ""},
		{"url upper scheme", "url", "HTTPS://x", 0, ""},
		{"url mixed scheme", "url", "HtTp://x", 0, ""},
		{"url scheme only", "url", "http:", 0, ""},
		{"url https no host", "url", "https://", 0, ""},
		// Only the scheme is checked, as Password Pusher does, and that the
		// text has no control characters or spaces (docs/decisions.md, D60).
		{"url lone percent in path", "url", "https://example.com/sale-100%", 0, ""},
		{"url lone percent in fragment", "url", "https://example.com/#100%", 0, ""},
		{"url bad escape", "url", "http://example.com/a%zz?q=%", 0, ""},
		{"url bad port", "url", "https://example.com:port/", 0, ""},
		{"url non-ASCII", "url", "https://例え.jp/ü", 0, ""},
		{"url space inside", "url", "https://exa mple.com/", 0, badURL},
		{"url trailing space", "url", "https://example.com/ ", 0, badURL},
		{"url tab", "url", "https://example.com/\t", 0, badURL},
		{"url CR LF", "url", "https://example.com/\r\nSet-Cookie: a=b", 0, badURL},
		{"url NUL", "url", "https://example.com/\x00", 0, badURL},
		{"url DEL", "url", "https://example.com/\x7f", 0, badURL},
		{"url C1 control", "url", "https://example.com/\u0085", 0, badURL},
		{"url line separator", "url", "https://example.com/\u2028", 0, badURL},
		{"url no-break space", "url", "https://example.com/\u00a0", 0, badURL},
		{"url javascript with percent", "url", "javascript:alert(1)%", 0, badURL},
		{"url scheme after a slash", "url", "/https://example.com", 0, badURL},
		{"url tab in scheme", "url", "ht\ttps://example.com", 0, badURL},

		{"file absent payload", "file", absentPayload{}, 1, ""},
		{"file empty payload", "file", "", 0, ""},
		{"file whitespace payload", "file", "   ", 3, ""},
		{"file message", "file", "see attached", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Params{}
			if tt.kind != "" {
				p["kind"] = tt.kind
			}
			if _, absent := tt.payload.(absentPayload); !absent {
				p["payload"] = tt.payload
			}
			if tt.want == "" {
				d := resolveOK(t, p, tt.files, defaults())
				want, _ := tt.payload.(string)
				if d.Payload != want {
					t.Errorf("Payload = %.40q (len %d), want %.40q (len %d)", d.Payload, len(d.Payload), want, len(want))
				}
				return
			}
			got := resolveInvalid(t, p, tt.files, defaults())
			want := map[string][]string{"payload": {tt.want}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Fields = %.200v, want %v", got, want)
			}
		})
	}
}

type absentPayload struct{}

// TestResolveTextFieldsTakeScalars: a number or a boolean in a text field
// is taken as its JSON text, as Password Pusher's Rails casts it to a
// string; objects and arrays stay 422 (docs/decisions.md, D3).
func TestResolveTextFieldsTakeScalars(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{
		{`12345`, "12345"}, {`-0.50`, "-0.50"}, {`1e2`, "1e2"}, {`true`, "true"}, {`false`, "false"},
		{`"text"`, "text"}, {`null`, ""},
	} {
		for _, field := range []string{"payload", "name", "note", "passphrase"} {
			js := fmt.Sprintf(`{"payload":"p",%q:%s}`, field, tt.raw)
			if field == "payload" && tt.raw == `null` {
				continue // a text push needs its payload
			}
			d := resolveOK(t, decodeParams(t, js), 0, defaults())
			got := map[string]string{"payload": d.Payload, "name": d.Name, "note": d.Note, "passphrase": d.Passphrase}[field]
			if got != tt.want {
				t.Errorf("%s %s: %q, want %q", field, tt.raw, got, tt.want)
			}
		}
	}
	for _, raw := range []string{`[1]`, `{"a":1}`} {
		got := resolveInvalid(t, decodeParams(t, `{"payload":`+raw+`}`), 0, defaults())
		if len(got["payload"]) == 0 || len(got) != 1 {
			t.Errorf("payload %s: Fields = %v, want one payload error", raw, got)
		}
	}
}

func TestResolveDefaultsPerKind(t *testing.T) {
	s := defaults()
	s.Text.ExpireAfterDaysDefault = 3
	s.Text.ExpireAfterViewsDefault = 2
	s.Text.RetrievalStepDefault = false
	s.URL.ExpireAfterDaysDefault = 4
	s.URL.ExpireAfterViewsDefault = 6
	s.Files.ExpireAfterDaysDefault = 5
	s.Files.ExpireAfterViewsDefault = 7
	s.Files.DeletableDefault = false
	s.QR.ExpireAfterDaysDefault = 9
	s.QR.ExpireAfterViewsDefault = 11
	s.QR.RetrievalStepDefault = false
	s.QR.DeletableDefault = false

	tests := []struct {
		name      string
		json      string
		files     int
		kind      push.Kind
		days      int
		views     int
		deletable *bool
		retrieval bool
	}{
		{"text", `{"payload":"x"}`, 0, push.KindText, 3, 2, ptr(true), false},
		{"url", `{"kind":"url","payload":"http://x"}`, 0, push.KindURL, 4, 6, nil, true},
		{"file", `{}`, 1, push.KindFile, 5, 7, ptr(false), true},
		{"qr", `{"kind":"qr","payload":"x"}`, 0, push.KindQR, 9, 11, ptr(false), false},
		{"null and empty mean default", `{"payload":"x","expire_after_days":null,"expire_after_views":""}`, 0, push.KindText, 3, 2, ptr(true), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := resolveOK(t, decodeParams(t, tt.json), tt.files, s)
			if d.Kind != tt.kind {
				t.Errorf("Kind = %q, want %q", d.Kind, tt.kind)
			}
			if d.ExpireAfterDays != tt.days {
				t.Errorf("ExpireAfterDays = %d, want %d", d.ExpireAfterDays, tt.days)
			}
			if d.ExpireAfterViews != tt.views {
				t.Errorf("ExpireAfterViews = %d, want %d", d.ExpireAfterViews, tt.views)
			}
			if !equalBoolPtr(d.DeletableByViewer, tt.deletable) {
				t.Errorf("DeletableByViewer = %s, want %s", fmtBoolPtr(d.DeletableByViewer), fmtBoolPtr(tt.deletable))
			}
			if d.RetrievalStep != tt.retrieval {
				t.Errorf("RetrievalStep = %v, want %v", d.RetrievalStep, tt.retrieval)
			}
			if d.Name != "" || d.Note != "" || d.Passphrase != "" {
				t.Errorf("Name/Note/Passphrase = %q/%q/%q, want empty", d.Name, d.Note, d.Passphrase)
			}
		})
	}

	t.Run("reference defaults", func(t *testing.T) {
		d := resolveOK(t, Params{"payload": "x"}, 0, defaults())
		if d.ExpireAfterDays != 7 || d.ExpireAfterViews != 5 || !d.RetrievalStep ||
			d.DeletableByViewer == nil || !*d.DeletableByViewer {
			t.Errorf("draft %+v, want days 7, views 5, retrieval_step true, deletable true", d)
		}
	})
}

// TestResolveRanges: days and views outside the kind's range are brought
// into it, and the draft holds the value applied (docs/decisions.md, D3).
func TestResolveRanges(t *testing.T) {
	custom := defaults()
	custom.Text.ExpireAfterDaysMin = 2
	custom.Text.ExpireAfterDaysMax = 30
	custom.Text.ExpireAfterViewsMin = 3
	custom.Text.ExpireAfterViewsMax = 50
	custom.QR.ExpireAfterDaysMax = 10

	tests := []struct {
		name  string
		s     *push.Settings
		json  string
		field string
		want  int // the value applied
	}{
		{"days min", defaults(), `{"payload":"x","expire_after_days":1}`, "expire_after_days", 1},
		{"days max", defaults(), `{"payload":"x","expire_after_days":90}`, "expire_after_days", 90},
		{"days 0", defaults(), `{"payload":"x","expire_after_days":0}`, "expire_after_days", 1},
		{"days 91", defaults(), `{"payload":"x","expire_after_days":91}`, "expire_after_days", 90},
		{"days 120", defaults(), `{"payload":"x","expire_after_days":120}`, "expire_after_days", 90},
		{"days negative", defaults(), `{"payload":"x","expire_after_days":-5}`, "expire_after_days", 1},
		{"days string 500", defaults(), `{"payload":"x","expire_after_days":"500"}`, "expire_after_days", 90},
		{"views min", defaults(), `{"payload":"x","expire_after_views":1}`, "expire_after_views", 1},
		{"views max", defaults(), `{"payload":"x","expire_after_views":100}`, "expire_after_views", 100},
		{"views 0", defaults(), `{"payload":"x","expire_after_views":0}`, "expire_after_views", 1},
		{"views 500", defaults(), `{"payload":"x","expire_after_views":500}`, "expire_after_views", 100},
		{"custom days below", custom, `{"payload":"x","expire_after_days":1}`, "expire_after_days", 2},
		{"custom days above", custom, `{"payload":"x","expire_after_days":31}`, "expire_after_days", 30},
		{"custom days max", custom, `{"payload":"x","expire_after_days":30}`, "expire_after_days", 30},
		{"custom views below", custom, `{"payload":"x","expire_after_views":2}`, "expire_after_views", 3},
		{"custom views above", custom, `{"payload":"x","expire_after_views":51}`, "expire_after_views", 50},
		{"qr uses its own section", custom, `{"kind":"qr","payload":"x","expire_after_days":11}`, "expire_after_days", 10},
		{"url uses its own section", custom, `{"kind":"url","payload":"http://x","expire_after_days":90}`, "expire_after_days", 90},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := resolveOK(t, decodeParams(t, tt.json), 0, tt.s)
			got := d.ExpireAfterDays
			if tt.field == "expire_after_views" {
				got = d.ExpireAfterViews
			}
			if got != tt.want {
				t.Errorf("%s = %d, want %d", tt.field, got, tt.want)
			}
			if d.ExpireAfter != 0 {
				t.Errorf("ExpireAfter = %v, want 0 (whole days)", d.ExpireAfter)
			}
		})
	}
}

// TestResolveIntegerValues: numbers of every form are read (integer part,
// then brought into the range); only what is not a number is 422
// (docs/decisions.md, D3).
func TestResolveIntegerValues(t *testing.T) {
	tests := []struct {
		name string
		raw  string // JSON value of the field; "" = use val instead
		val  any
		want int // accepted value; -1 = CodeInvalid on the field; 0 = default
	}{
		{"number", `3`, nil, 3},
		{"numeric string", `"3"`, nil, 3},
		{"numeric string padded", `" 3 "`, nil, 3},
		{"plus sign", `"+3"`, nil, 3},
		{"null", `null`, nil, 0},
		{"empty string", `""`, nil, 0},
		{"blank string", `"  "`, nil, 0},
		{"integral float", `3.0`, nil, 3},
		{"integral float string", `"3.0"`, nil, 3},
		{"exponent", `1e1`, nil, 10},
		{"exponent above the range", `1e2`, nil, 1000},
		{"decimal", `3.7`, nil, 3},
		{"decimal string", `"3.7"`, nil, 3},
		{"below one", `0.5`, nil, 1},
		{"negative fraction", `-2.5`, nil, 1},
		{"huge exponent", `1e309`, nil, 1000},
		{"tiny exponent", `1e-400`, nil, 1},
		{"beyond int64", `99999999999999999999`, nil, 1000},
		{"beyond int64 negative", `-99999999999999999999`, nil, 1},
		{"word", `"abc"`, nil, -1},
		{"number then word", `"3abc"`, nil, -1},
		{"hex string", `"0x1A"`, nil, -1},
		{"infinity string", `"Infinity"`, nil, -1},
		{"NaN string", `"NaN"`, nil, -1},
		{"true", `true`, nil, -1},
		{"false", `false`, nil, -1},
		{"array", `[3]`, nil, -1},
		{"object", `{"a":3}`, nil, -1},
		{"float64 integral (decoder without UseNumber)", "", float64(4), 4},
		{"float64 fraction", "", float64(4.5), 4},
	}
	for _, field := range []string{"expire_after_days", "expire_after_views"} {
		for _, tt := range tests {
			t.Run(field+"/"+tt.name, func(t *testing.T) {
				var p Params
				if tt.raw != "" {
					p = decodeParams(t, fmt.Sprintf(`{"payload":"x",%q:%s}`, field, tt.raw))
				} else {
					p = Params{"payload": "x", field: tt.val}
				}
				if tt.want < 0 {
					fields := resolveInvalid(t, p, 0, defaults())
					if msgs := fields[field]; len(msgs) != 1 || msgs[0] != "is not a number" {
						t.Errorf("Fields = %v, want %s: is not a number", fields, field)
					}
					if len(fields) != 1 {
						t.Errorf("Fields = %v, want only %s", fields, field)
					}
					return
				}
				d := resolveOK(t, p, 0, defaults())
				want := tt.want
				got := d.ExpireAfterDays
				if field == "expire_after_views" {
					got = d.ExpireAfterViews
					if want == 0 {
						want = 5
					}
					want = min(want, 100)
				} else {
					if want == 0 {
						want = 7
					}
					want = min(want, 90)
				}
				if got != want {
					t.Errorf("%s = %d, want %d", field, got, want)
				}
			})
		}
	}
}

func TestResolveExpireAfterDuration(t *testing.T) {
	mapping := []struct{ dur, days int }{
		{6, 1}, {7, 2}, {8, 3}, {9, 4}, {10, 5}, {11, 6},
		{12, 7}, {13, 14}, {14, 21}, {15, 30}, {16, 60}, {17, 90},
	}
	for _, m := range mapping {
		for _, form := range []string{"number", "string"} {
			t.Run(fmt.Sprintf("%d→%d/%s", m.dur, m.days, form), func(t *testing.T) {
				js := fmt.Sprintf(`{"payload":"x","expire_after_duration":%d}`, m.dur)
				if form == "string" {
					js = fmt.Sprintf(`{"payload":"x","expire_after_duration":"%d"}`, m.dur)
				}
				d := resolveOK(t, decodeParams(t, js), 0, defaults())
				if d.ExpireAfterDays != m.days || d.ExpireAfter != 0 {
					t.Errorf("ExpireAfterDays = %d, ExpireAfter %v, want %d days", d.ExpireAfterDays, d.ExpireAfter, m.days)
				}
			})
		}
	}

	subDay := []struct {
		raw   string
		limit time.Duration
	}{
		{`0`, 15 * time.Minute}, {`1`, 30 * time.Minute}, {`2`, 45 * time.Minute},
		{`3`, time.Hour}, {`4`, 6 * time.Hour}, {`5`, 12 * time.Hour}, {`"0"`, 15 * time.Minute}, {`3.0`, time.Hour},
	}
	for _, sd := range subDay {
		t.Run("sub-day "+sd.raw, func(t *testing.T) {
			d := resolveOK(t, decodeParams(t, `{"payload":"x","expire_after_duration":`+sd.raw+`}`), 0, defaults())
			if d.ExpireAfterDays != 1 || d.ExpireAfter != sd.limit {
				t.Errorf("ExpireAfterDays %d, ExpireAfter %v; want 1 and %v", d.ExpireAfterDays, d.ExpireAfter, sd.limit)
			}
		})
	}

	t.Run("sub-day not offered", func(t *testing.T) {
		off := defaults()
		off.SubDayDurations = false
		d := resolveOK(t, decodeParams(t, `{"payload":"x","expire_after_duration":0}`), 0, off)
		if d.ExpireAfterDays != 1 || d.ExpireAfter != 0 {
			t.Errorf("hidden: ExpireAfterDays %d, ExpireAfter %v; want 1 day, the shortest", d.ExpireAfterDays, d.ExpireAfter)
		}
		long := defaults()
		long.Text.ExpireAfterDaysMin = 3
		d = resolveOK(t, decodeParams(t, `{"payload":"x","expire_after_duration":5}`), 0, long)
		if d.ExpireAfterDays != 3 || d.ExpireAfter != 0 {
			t.Errorf("kind minimum 3 days: ExpireAfterDays %d, ExpireAfter %v; want 3 days", d.ExpireAfterDays, d.ExpireAfter)
		}
		d = resolveOK(t, decodeParams(t, `{"kind":"url","payload":"http://x","expire_after_duration":5}`), 0, long)
		if d.ExpireAfterDays != 1 || d.ExpireAfter != 12*time.Hour {
			t.Errorf("another kind keeps its sub-day durations: %d days, %v", d.ExpireAfterDays, d.ExpireAfter)
		}
	})

	for _, raw := range []string{`18`, `-1`, `99`, `"abc"`, `6.5`, `true`, `[6]`, `{}`, `"0x6"`, `1e309`} {
		t.Run("ignored "+raw, func(t *testing.T) {
			d := resolveOK(t, decodeParams(t, `{"payload":"x","expire_after_duration":`+raw+`}`), 0, defaults())
			if d.ExpireAfterDays != 7 || d.ExpireAfter != 0 {
				t.Errorf("ExpireAfterDays = %d, ExpireAfter %v, want the default 7 days", d.ExpireAfterDays, d.ExpireAfter)
			}
		})
	}

	t.Run("null and empty mean default", func(t *testing.T) {
		for _, raw := range []string{`null`, `""`} {
			d := resolveOK(t, decodeParams(t, `{"payload":"x","expire_after_duration":`+raw+`}`), 0, defaults())
			if d.ExpireAfterDays != 7 {
				t.Errorf("%s: ExpireAfterDays = %d, want default 7", raw, d.ExpireAfterDays)
			}
		}
	})

	t.Run("expire_after_days wins", func(t *testing.T) {
		d := resolveOK(t, decodeParams(t, `{"payload":"x","expire_after_days":10,"expire_after_duration":6}`), 0, defaults())
		if d.ExpireAfterDays != 10 {
			t.Errorf("ExpireAfterDays = %d, want 10", d.ExpireAfterDays)
		}
		d = resolveOK(t, decodeParams(t, `{"payload":"x","expire_after_days":"2","expire_after_duration":0}`), 0, defaults())
		if d.ExpireAfterDays != 2 || d.ExpireAfter != 0 {
			t.Errorf("ExpireAfterDays = %d, ExpireAfter %v, want 2 days", d.ExpireAfterDays, d.ExpireAfter)
		}
	})

	t.Run("invalid days is not rescued by duration", func(t *testing.T) {
		fields := resolveInvalid(t, decodeParams(t, `{"payload":"x","expire_after_days":"abc","expire_after_duration":6}`), 0, defaults())
		if len(fields["expire_after_days"]) == 0 {
			t.Errorf("Fields = %v, want an error on expire_after_days", fields)
		}
	})

	t.Run("mapped days outside the kind range", func(t *testing.T) {
		s := defaults()
		s.Text.ExpireAfterDaysMax = 30
		d := resolveOK(t, decodeParams(t, `{"payload":"x","expire_after_duration":17}`), 0, s)
		if d.ExpireAfterDays != 30 {
			t.Errorf("ExpireAfterDays = %d, want 30 (90 brought into 1..30)", d.ExpireAfterDays)
		}
		d = resolveOK(t, decodeParams(t, `{"payload":"x","expire_after_duration":15}`), 0, s)
		if d.ExpireAfterDays != 30 {
			t.Errorf("ExpireAfterDays = %d, want 30", d.ExpireAfterDays)
		}
	})
}

func TestResolveBoolFlags(t *testing.T) {
	tests := []struct {
		name string
		val  any
		want bool
	}{
		{"true", true, true},
		{"string true", "true", true},
		{"string TRUE", "TRUE", true},
		{"on", "on", true},
		{"On", "On", true},
		{"yes", "yes", true},
		{"YES", "YES", true},
		{"checked", "checked", true},
		{"Python True (pwpush CLI)", "True", true},
		{"Python False (pwpush CLI)", "False", false},
		{"No", "No", false},
		{"Off", "Off", false},
		{"string 1", "1", true},
		{"number 1", json.Number("1"), true},
		{"false", false, false},
		{"string false", "false", false},
		{"string 0", "0", false},
		{"number 0", json.Number("0"), false},
		{"number 2", json.Number("2"), false},
		{"number 1.0", json.Number("1.0"), false},
		{"no", "no", false},
		{"off", "off", false},
		{"empty string", "", false},
		{"random", "y", false},
		{"null", nil, false},
		{"array", []any{"true"}, false},
		{"object", map[string]any{"a": true}, false},
	}
	for _, field := range []string{"deletable_by_viewer", "retrieval_step"} {
		for _, tt := range tests {
			t.Run(field+"/"+tt.name, func(t *testing.T) {
				// The default is the opposite of the expected value, so that
				// falling back to the default is caught.
				s := defaults()
				s.Text.DeletableDefault = !tt.want
				s.Text.RetrievalStepDefault = !tt.want
				d := resolveOK(t, Params{"payload": "x", field: tt.val}, 0, s)
				got := d.RetrievalStep
				if field == "deletable_by_viewer" {
					if d.DeletableByViewer == nil {
						t.Fatal("DeletableByViewer = nil for a text push")
					}
					got = *d.DeletableByViewer
				}
				if got != tt.want {
					t.Errorf("%s = %#v → %v, want %v", field, tt.val, got, tt.want)
				}
			})
		}
	}

	t.Run("decoded JSON", func(t *testing.T) {
		s := defaults()
		s.Text.DeletableDefault = false
		s.Text.RetrievalStepDefault = false
		d := resolveOK(t, decodeParams(t, `{"payload":"x","deletable_by_viewer":1,"retrieval_step":"checked"}`), 0, s)
		if d.DeletableByViewer == nil || !*d.DeletableByViewer || !d.RetrievalStep {
			t.Errorf("draft %+v, want both true", d)
		}
		s = defaults()
		d = resolveOK(t, decodeParams(t, `{"payload":"x","deletable_by_viewer":null,"retrieval_step":false}`), 0, s)
		if d.DeletableByViewer == nil || *d.DeletableByViewer || d.RetrievalStep {
			t.Errorf("draft %+v, want both false", d)
		}
	})

	t.Run("absent uses the kind default", func(t *testing.T) {
		for _, def := range []bool{true, false} {
			s := defaults()
			s.Text.DeletableDefault = def
			s.Text.RetrievalStepDefault = !def
			d := resolveOK(t, Params{"payload": "x"}, 0, s)
			if d.DeletableByViewer == nil || *d.DeletableByViewer != def {
				t.Errorf("DeletableDefault %v: DeletableByViewer = %s", def, fmtBoolPtr(d.DeletableByViewer))
			}
			if d.RetrievalStep != !def {
				t.Errorf("RetrievalStepDefault %v: RetrievalStep = %v", !def, d.RetrievalStep)
			}
		}
	})
}

func TestResolveURLNeverDeletable(t *testing.T) {
	for _, val := range []any{true, "true", "1", false, nil} {
		d := resolveOK(t, Params{"kind": "url", "payload": "https://x", "deletable_by_viewer": val}, 0, defaults())
		if d.DeletableByViewer != nil {
			t.Errorf("deletable_by_viewer %#v: DeletableByViewer = %v, want nil for url", val, *d.DeletableByViewer)
		}
	}
	d := resolveOK(t, Params{"kind": "url", "payload": "https://x"}, 0, defaults())
	if d.DeletableByViewer != nil {
		t.Errorf("absent: DeletableByViewer = %v, want nil for url", *d.DeletableByViewer)
	}
	for _, k := range []string{"text", "qr", "file"} {
		d := resolveOK(t, Params{"kind": k, "payload": "x"}, 0, defaults())
		if d.DeletableByViewer == nil {
			t.Errorf("kind %s: DeletableByViewer = nil, want non-nil", k)
		}
	}
}

func TestResolveFeatureSwitchesForceFalse(t *testing.T) {
	tests := []struct {
		name      string
		kind      string
		files     int
		section   func(*push.Settings) *push.KindSettings
		deletable bool // EnableDeletable
		retrieval bool // EnableRetrievalStep
	}{
		{"text deletable off", "text", 0, func(s *push.Settings) *push.KindSettings { return &s.Text }, false, true},
		{"text retrieval off", "text", 0, func(s *push.Settings) *push.KindSettings { return &s.Text }, true, false},
		{"file both off", "file", 1, func(s *push.Settings) *push.KindSettings { return &s.Files }, false, false},
		{"qr retrieval off", "qr", 0, func(s *push.Settings) *push.KindSettings { return &s.QR }, true, false},
		{"url retrieval off", "url", 0, func(s *push.Settings) *push.KindSettings { return &s.URL }, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := defaults()
			ks := tt.section(s)
			ks.EnableDeletable = tt.deletable
			ks.EnableRetrievalStep = tt.retrieval
			payload := "x"
			if tt.kind == "url" {
				payload = "https://x"
			}
			for _, p := range []Params{
				{"kind": tt.kind, "payload": payload, "deletable_by_viewer": "true", "retrieval_step": true},
				{"kind": tt.kind, "payload": payload}, // defaults are true
			} {
				d := resolveOK(t, p, tt.files, s)
				if d.RetrievalStep != tt.retrieval {
					t.Errorf("%v: RetrievalStep = %v, want %v", p, d.RetrievalStep, tt.retrieval)
				}
				if tt.kind == "url" {
					continue
				}
				if d.DeletableByViewer == nil || *d.DeletableByViewer != tt.deletable {
					t.Errorf("%v: DeletableByViewer = %s, want %v", p, fmtBoolPtr(d.DeletableByViewer), tt.deletable)
				}
			}
			// Another kind's section is untouched.
			d := resolveOK(t, Params{"kind": "text", "payload": "x"}, 0, s)
			if tt.kind != "text" && (!d.RetrievalStep || d.DeletableByViewer == nil || !*d.DeletableByViewer) {
				t.Errorf("text draft %+v affected by %s settings", d, tt.kind)
			}
		})
	}
}

func TestResolveStringFields(t *testing.T) {
	d := resolveOK(t, decodeParams(t, `{"payload":"p","name":"n","note":"memo","passphrase":"s3cret"}`), 0, defaults())
	if d.Payload != "p" || d.Name != "n" || d.Note != "memo" || d.Passphrase != "s3cret" {
		t.Errorf("draft %+v, want payload p, name n, note memo, passphrase s3cret", d)
	}
	d = resolveOK(t, decodeParams(t, `{"payload":"p","name":null,"note":null,"passphrase":null}`), 0, defaults())
	if d.Name != "" || d.Note != "" || d.Passphrase != "" {
		t.Errorf("null strings: draft %+v, want empty name/note/passphrase", d)
	}

	for _, field := range []string{"name", "note", "passphrase"} {
		for _, raw := range []string{`["a"]`, `{"a":"b"}`} {
			t.Run(field+"="+raw, func(t *testing.T) {
				fields := resolveInvalid(t, decodeParams(t, `{"payload":"p",`+fmt.Sprintf("%q", field)+`:`+raw+`}`), 0, defaults())
				if len(fields[field]) == 0 {
					t.Errorf("Fields = %v, want an error on %s", fields, field)
				}
				if len(fields) != 1 {
					t.Errorf("Fields = %v, want only %s", fields, field)
				}
			})
		}
	}
	t.Run("json.Number passphrase", func(t *testing.T) {
		d := resolveOK(t, Params{"payload": "p", "passphrase": json.Number("1234")}, 0, defaults())
		if d.Passphrase != "1234" {
			t.Errorf("Passphrase = %q, want 1234", d.Passphrase)
		}
	})
}

func TestResolveFileCount(t *testing.T) {
	tests := []struct {
		name  string
		max   int
		files int
		want  string
	}{
		{"zero", 10, 0, ""},
		{"at max", 10, 10, ""},
		{"over max", 10, 11, "You can only attach up to 10 files per push."},
		{"far over max", 10, 50, "You can only attach up to 10 files per push."},
		{"custom max", 3, 4, "You can only attach up to 3 files per push."},
		{"custom at max", 3, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := defaults()
			s.MaxFileUploads = tt.max
			p := Params{"kind": "file"}
			if tt.want == "" {
				d := resolveOK(t, p, tt.files, s)
				if d.FileCount != tt.files {
					t.Errorf("FileCount = %d, want %d", d.FileCount, tt.files)
				}
				return
			}
			got := resolveInvalid(t, p, tt.files, s)
			want := map[string][]string{"files": {tt.want}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Fields = %v, want %v", got, want)
			}
		})
	}
	t.Run("text push with too many files", func(t *testing.T) {
		got := resolveInvalid(t, Params{"kind": "text", "payload": "x"}, 11, defaults())
		want := map[string][]string{"files": {"You can only attach up to 10 files per push."}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Fields = %v, want %v", got, want)
		}
	})
}

func TestResolveNotifyFields(t *testing.T) {
	tests := []struct {
		name string
		json string
		want map[string][]string
	}{
		{"emails", `{"payload":"x","notify_emails_to":"a@example.com"}`, map[string][]string{
			"notify_emails_to": {"are not available"},
			"base":             {"Notify by email feature is not enabled"},
		}},
		{"emails a number", `{"payload":"x","notify_emails_to":0}`, map[string][]string{
			"notify_emails_to": {"are not available"},
			"base":             {"Notify by email feature is not enabled"},
		}},
		{"locale only", `{"payload":"x","notify_emails_to_locale":"en"}`, map[string][]string{
			"notify_emails_to_locale": {"is not available"},
			"base":                    {"Notify by email feature is not enabled"},
		}},
		{"both, base once", `{"payload":"x","notify_emails_to":"a@example.com","notify_emails_to_locale":"en"}`, map[string][]string{
			"notify_emails_to":        {"are not available"},
			"notify_emails_to_locale": {"is not available"},
			"base":                    {"Notify by email feature is not enabled"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolveInvalid(t, decodeParams(t, tt.json), 0, defaults())
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Fields = %v, want %v", got, tt.want)
			}
		})
	}
	// Blank fields are absent, as Password Pusher takes them (docs/decisions.md, D16).
	for _, js := range []string{
		`{"payload":"x","notify_emails_to":""}`,
		`{"payload":"x","notify_emails_to":"   ","notify_emails_to_locale":""}`,
		`{"payload":"x","notify_emails_to":null,"notify_emails_to_locale":null}`,
		`{"payload":"x","notify_emails_to":[],"notify_emails_to_locale":false}`,
		`{"payload":"x","notify_emails_to":{}}`,
	} {
		resolveOK(t, decodeParams(t, js), 0, defaults())
	}
}

func TestResolveReportsAllErrors(t *testing.T) {
	s := defaults()
	s.EnableQRPushes = false
	p := decodeParams(t, `{
		"kind": "qr",
		"payload": "   ",
		"name": [7],
		"note": {},
		"expire_after_days": true,
		"expire_after_views": "abc",
		"notify_emails_to": "a@example.com"
	}`)
	got := resolveInvalid(t, p, 12, s)
	wantExact := map[string][]string{
		"kind":             {"QR code pushes are disabled."},
		"payload":          {"Payload is required."},
		"files":            {"You can only attach up to 10 files per push."},
		"notify_emails_to": {"are not available"},
		"base":             {"Notify by email feature is not enabled"},
	}
	for f, want := range wantExact {
		if !reflect.DeepEqual(got[f], want) {
			t.Errorf("Fields[%q] = %v, want %v", f, got[f], want)
		}
	}
	for _, f := range []string{"name", "note", "expire_after_days", "expire_after_views"} {
		if len(got[f]) != 1 {
			t.Errorf("Fields[%q] = %v, want one message", f, got[f])
		}
	}
	if len(got) != len(wantExact)+4 {
		t.Errorf("Fields has %d keys, want %d: %v", len(got), len(wantExact)+4, got)
	}
}

func TestResolveFilesKeyMakesFilePush(t *testing.T) {
	// A files key without kind makes a file push, even empty and with no
	// file attached (the spec's create rule 1); an explicit kind wins.
	d := resolveOK(t, decodeParams(t, `{"payload":"x","files":[]}`), 0, defaults())
	if d.Kind != push.KindFile || d.FileCount != 0 {
		t.Errorf("draft %+v, want a file push without files", d)
	}
	if d := resolveOK(t, decodeParams(t, `{"files":[]}`), 0, defaults()); d.Kind != push.KindFile {
		t.Errorf("draft %+v, want a file push without a payload", d)
	}
	if d := resolveOK(t, decodeParams(t, `{"kind":"text","payload":"x","files":[]}`), 0, defaults()); d.Kind != push.KindText {
		t.Errorf("draft %+v, want the explicit kind text", d)
	}
}

func TestResolveMultibytePayloadIsPreserved(t *testing.T) {
	payload := "pässwörd 🔑 " + strings.Repeat("ß", 10)
	d := resolveOK(t, decodeParams(t, `{"payload":"`+payload+`"}`), 0, defaults())
	if d.Payload != payload || !utf8.ValidString(d.Payload) {
		t.Errorf("Payload = %q, want %q", d.Payload, payload)
	}
}

func TestNeedsAuth(t *testing.T) {
	tests := []struct {
		name string
		json string
		want bool
	}{
		{"empty", `{}`, false},
		{"text", `{"payload":"x"}`, false},
		{"kind text", `{"kind":"text"}`, false},
		{"kind url", `{"kind":"url"}`, false},
		{"kind qr", `{"kind":"qr"}`, false},
		{"kind FILE is not file", `{"kind":"FILE"}`, false},
		{"kind number", `{"kind":1}`, false},
		{"kind file", `{"kind":"file"}`, true},
		{"files empty slice", `{"files":[]}`, true},
		{"files null", `{"files":null}`, true},
		{"files empty string", `{"files":""}`, true},
		{"files with text kind", `{"kind":"text","files":["a"]}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := needsAuth(decodeParams(t, tt.json)); got != tt.want {
				t.Errorf("NeedsAuth(%s) = %v, want %v", tt.json, got, tt.want)
			}
		})
	}
	if needsAuth(nil) {
		t.Error("NeedsAuth(nil) = true, want false")
	}
	if !needsAuth(Params{"files": []any{}}) {
		t.Error("NeedsAuth(files: []any{}) = false, want true")
	}
}

func ptr(b bool) *bool { return &b }

func equalBoolPtr(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func fmtBoolPtr(b *bool) string {
	if b == nil {
		return "nil"
	}
	return fmt.Sprint(*b)
}
