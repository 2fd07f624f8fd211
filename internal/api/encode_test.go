package api

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// awkward are strings encoding/json escapes in each of its ways.
var awkward = []string{
	"", "plain", `"quoted" \back\slash/`, "<script>&amp;</script>", "tab\tnew\nline\rret\bbs\fff",
	"\x00\x01\x1f\x7f", "ünïcödé ✓ 🔒", "\u2028line\u2029para", "bad \xff\xfe utf-8 \xc3", "\xe2\x80",
	"https://hush.example/p/AbC123?x=1&y=<2>", "2026-11-24T10:00:00.000Z",
}

func randomString(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		return awkward[r.IntN(len(awkward))]
	}
	b := make([]byte, r.IntN(24))
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return string(b)
}

func randomPushJSON(r *rand.Rand) pushJSON {
	ptr := func() *string {
		if r.IntN(3) == 0 {
			return nil
		}
		s := randomString(r)
		return &s
	}
	var deletable *bool
	if r.IntN(3) > 0 {
		v := r.IntN(2) == 0
		deletable = &v
	}
	return pushJSON{
		ExpireAfterViews: r.IntN(200) - 10, Expired: r.IntN(2) == 0, URLToken: randomString(r),
		DeletableByViewer: deletable, RetrievalStep: r.IntN(2) == 0, ExpiredOn: ptr(), Passphrase: ptr(),
		CreatedAt: randomString(r), UpdatedAt: randomString(r), ExpireAfterDays: r.IntN(100) - 5,
		DaysRemaining: r.IntN(100) - 5, ViewsRemaining: r.IntN(100) - 5, Deleted: r.IntN(2) == 0,
		JSONURL: randomString(r), HTMLURL: randomString(r), Kind: randomString(r),
	}
}

// TestAppendJSONMatchesEncodingJSON: the hand-written objects are, byte for
// byte, what encoding/json makes of the same values.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 2026))
	for i := range 5000 {
		var files []fileJSON
		if n := r.IntN(4); n > 0 {
			files = make([]fileJSON, n-1)
			for j := range files {
				files[j] = fileJSON{Filename: randomString(r), ContentType: randomString(r), URL: randomString(r)}
			}
		}
		var payload *string
		if r.IntN(4) > 0 {
			s := randomString(r)
			payload = &s
		}
		owner := ownerPushJSON{pushJSON: randomPushJSON(r), Note: randomString(r), Name: randomString(r)}
		var locale *string
		if r.IntN(2) == 0 {
			s := randomString(r)
			locale = &s
		}
		for _, v := range []jsonAppender{
			shownPushJSON{pushJSON: randomPushJSON(r), Payload: payload, Files: files},
			owner,
			notifiedPushJSON{ownerPushJSON: owner, NotifyEmailsTo: randomString(r), NotifyEmailsToLocale: locale},
		} {
			want, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if got := v.appendJSON(nil); !bytes.Equal(got, want) {
				t.Fatalf("case %d, %T:\n got %s\nwant %s", i, v, got, want)
			}
		}
	}
}

// FuzzAppendString: any string, as encoding/json writes it.
func FuzzAppendString(f *testing.F) {
	for _, s := range awkward {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}
