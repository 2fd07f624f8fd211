package web

import (
	"bytes"
	"context"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"hush/internal/push"
	"hush/internal/service"
)

// upload is one file part of a multipart create form.
type upload struct {
	name string
	data []byte
}

// postFiles sends the create form as the browser does for the file kind:
// multipart, fields first, then a part per file under "files".
func (c *client) postFiles(fields map[string]string, files ...upload) resp {
	c.h.t.Helper()
	form := url.Values{}
	for k, v := range fields {
		form.Set(k, v)
	}
	return c.postMultipart(form, files...)
}

// postMultipart is postFiles for a form whose fields may repeat.
func (c *client) postMultipart(form url.Values, files ...upload) resp {
	c.h.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, vs := range form {
		for _, v := range vs {
			mw.WriteField(k, v)
		}
	}
	for _, f := range files {
		w, err := mw.CreateFormFile("files", f.name)
		if err != nil {
			c.h.t.Fatal(err)
		}
		w.Write(f.data)
	}
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, c.h.url+"/", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.do(req)
}

func fileFields(extra ...string) map[string]string {
	f := map[string]string{"kind": "file", "payload": "", "expire_after_days": "3", "expire_after_views": "2"}
	for i := 0; i+1 < len(extra); i += 2 {
		f[extra[i]] = extra[i+1]
	}
	return f
}

// blobCount is the number of stored file contents.
func (h *harness) blobCount() int {
	h.t.Helper()
	n := 0
	if err := h.env.Files.Walk(context.Background(), func(string, time.Time) error { n++; return nil }); err != nil {
		h.t.Fatal(err)
	}
	return n
}

var downloadLink = regexp.MustCompile(`<a href="([^"]+)" download dir="auto">([^<]+)</a> <span class="muted">\(([^)]+)\)</span>`)

func TestFilePushThroughTheForm(t *testing.T) {
	h := newHarness(t, nil)
	c := h.signUp("files@example.com", "password one")

	form := c.get("/?kind=file")
	form.expect(t, http.StatusOK)
	form.has(t, `href="/?kind=file" aria-current="page"`, `enctype="multipart/form-data"`,
		`<input type="file" id="files" name="files" multiple required`, "Up to 10 files", "100 MiB each",
		`<label for="payload">Message (optional)</label>`)

	big := bytes.Repeat([]byte("0123456789abcdef"), 5000) // 80000 bytes
	r := c.postFiles(fileFields("payload", "the keys, as promised"),
		upload{"keys & notes.txt", big}, upload{"empty.bin", nil})
	if r.status != http.StatusSeeOther || !strings.HasSuffix(r.header.Get("Location"), "/preview") {
		t.Fatalf("create: %d %q\n%s", r.status, r.header.Get("Location"), r.body)
	}
	tok := strings.TrimSuffix(strings.TrimPrefix(r.header.Get("Location"), "/p/"), "/preview")
	p, err := h.svc.Lookup(context.Background(), tok)
	if err != nil || p.Kind != push.KindFile || p.UserID == 0 || p.ExpireAfterViews != 2 {
		t.Fatalf("stored %+v, %v", p, err)
	}

	bob := h.client()
	page := bob.get("/p/" + tok)
	page.expect(t, http.StatusOK)
	page.has(t, "the keys, as promised", "<h2>Files</h2>", "or 1 more view")
	links := downloadLink.FindAllStringSubmatch(page.body, -1)
	if len(links) != 2 {
		t.Fatalf("file links: %q\n%s", links, page.body)
	}
	want := map[string]struct {
		size string
		data []byte
	}{"keys & notes.txt": {"78 KiB", big}, "empty.bin": {"0 bytes", nil}}
	for _, l := range links {
		href, name, size := html.UnescapeString(l[1]), html.UnescapeString(l[2]), l[3]
		w, ok := want[name]
		if !ok || size != w.size {
			t.Errorf("listed %q (%s), want one of %v", name, size, want)
			continue
		}
		if !strings.HasPrefix(href, h.url+"/api/v2/files/") {
			t.Errorf("download link %q", href)
		}
		res, err := http.Get(href)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !bytes.Equal(got, w.data) {
			t.Errorf("download %q: %d, %d bytes, want %d", name, res.StatusCode, len(got), len(w.data))
		}
	}
	// Downloads used no view: the second view is still there, then none.
	last := bob.get("/p/" + tok)
	last.has(t, "This was the last view: the secret has now been deleted, and the download links stop working in five minutes.", "keys &amp; notes.txt")
	last.lacks(t, "0 more views")
	bob.get("/p/"+tok).has(t, "This secret link has expired")
}

func TestFileFormRefusals(t *testing.T) {
	h := newHarness(t, func(_ *Options, s *push.Settings) { s.MaxFileUploads = 2 })
	two := []upload{{"a.txt", []byte("a")}, {"b.txt", []byte("b")}}

	// Anonymous visitors get no file kind and cannot attach files.
	anon := h.client()
	anon.get("/?kind=file").lacks(t, `type="file"`, `href="/?kind=file"`)
	r := anon.postFiles(fileFields(), two...)
	r.expect(t, http.StatusUnauthorized)
	r.has(t, "Sign in to attach files.")
	// Even posted as a text push, a file part is refused.
	anon.postFiles(fileFields("kind", "text", "payload", "x"), two[0]).expect(t, http.StatusUnauthorized)

	c := h.signUp("refuse@example.com", "password one")
	r = c.postFiles(fileFields(), append(two, upload{"c.txt", []byte("c")})...)
	r.expect(t, http.StatusUnprocessableEntity)
	r.has(t, "You can only attach up to 2 files per push.", `type="file"`)

	r = c.postFiles(fileFields())
	r.expect(t, http.StatusUnprocessableEntity)
	r.has(t, "Choose at least one file.")

	// Too large: over the per-file limit, and over the whole body limit
	// (instances with those limits).
	small := newHarnessLimits(t, func(_ *Options, l *service.Limits) { l.MaxFileSize = 1000 })
	r = small.signUp("refuse@example.com", "password one").postFiles(fileFields(),
		upload{"small.txt", []byte("fine")}, upload{"big.bin", make([]byte, 5000)})
	r.expect(t, http.StatusRequestEntityTooLarge)
	r.has(t, "The files are too large", "1,000 bytes per file", `type="file"`)
	tight := newHarnessLimits(t, func(_ *Options, l *service.Limits) { l.MaxFileSize, l.MaxPushSize = 1<<20, 1000 })
	r = tight.signUp("refuse@example.com", "password one").postFiles(fileFields(), upload{"huge.bin", make([]byte, maxForm+5000)})
	r.expect(t, http.StatusRequestEntityTooLarge)
	r.has(t, "The files are too large")

	// Invalid fields discard the uploads too.
	c.postFiles(fileFields("expire_after_days", "many"), two...).expect(t, http.StatusUnprocessableEntity)

	for _, h := range []*harness{h, small, tight} {
		if n := h.blobCount(); n != 0 {
			t.Errorf("%d uploads left in the file store after refusals", n)
		}
	}

	// With file pushes disabled the kind is not offered, and files are refused.
	off := newHarness(t, func(_ *Options, s *push.Settings) { s.EnableFilePushes = false })
	oc := off.signUp("off@example.com", "password one")
	oc.get("/?kind=file").lacks(t, `type="file"`, `href="/?kind=file"`)
	oc.postFiles(fileFields(), two...).expect(t, http.StatusUnprocessableEntity)

	// Text creation through the form is unchanged for a signed-in user.
	if r := c.post("/", createForm("text", "still text")); r.status != http.StatusSeeOther {
		t.Errorf("text create: %d\n%s", r.status, r.body)
	}
}

// TestFileRefusedOnTheForm: a file the store refuses (a name over 255
// characters) brings the file form back with the reason at its field,
// from the catalog, not a dead-end page.
func TestFileRefusedOnTheForm(t *testing.T) {
	h := newHarness(t, nil)
	c := h.signUp("names@example.com", "password one")
	r := c.postFiles(fileFields(), upload{strings.Repeat("n", 256) + ".txt", []byte("x")})
	r.expect(t, http.StatusUnprocessableEntity)
	r.has(t, `id="files-error"`, "Each file needs a name of at most 255 characters.", `enctype="multipart/form-data"`,
		"Please correct the marked fields.")
}
