package api

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hush/internal/secure"
	"hush/internal/service"
	"hush/internal/testdb"
)

type upload struct {
	name, ctype string
	data        []byte
}

// multipartBody builds a Rails-style create form.
func multipartBody(t *testing.T, fields map[string]string, files []upload) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="push[files][]"; filename="%s"`,
			strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(f.name)))
		if f.ctype != "" {
			h.Set("Content-Type", f.ctype)
		}
		w, _ := mw.CreatePart(h)
		w.Write(f.data)
	}
	mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

func (h *harness) upload(fields map[string]string, files []upload, hdr ...string) resp {
	h.t.Helper()
	ct, body := multipartBody(h.t, fields, files)
	return h.doRaw("POST", "/api/v2/pushes", string(body), append([]string{"Content-Type", ct}, hdr...)...)
}

// blobs lists the files of the blob store.
func (h *harness) blobs() []string {
	var out []string
	filepath.WalkDir(h.filesDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func (h *harness) get(url string) resp {
	h.t.Helper()
	return h.do("GET", url, nil)
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func TestFileUploadRoundTrip(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	big := randomBytes(200_000)
	files := []upload{
		{"binary.bin", "", big},
		{"empty.txt", "text/plain", nil},
		{`../../etc/naïve "quoted" name.txt`, "text/plain", []byte("contents with \x00 NUL")},
	}
	r := h.upload(map[string]string{"push[payload]": "see the files", "push[expire_after_views]": "2"}, files, bearer(owner)...)
	wantStatus(t, "upload", r, 201)
	m := r.obj(t)
	if m["kind"] != "file" {
		t.Errorf("kind %v, want file", m["kind"])
	}
	wantKeys(t, "create", m, plus("note", "name")...)
	tok := m["url_token"].(string)

	show := h.do("GET", "/api/v2/pushes/"+tok, nil).obj(t)
	if show["payload"] != "see the files" || show["views_remaining"] != 1.0 {
		t.Errorf("retrieve: %v", show)
	}
	list := show["files"].([]any)
	if len(list) != 3 {
		t.Fatalf("files: %v", list)
	}
	wantNames := []string{"binary.bin", "empty.txt", `naïve "quoted" name.txt`}
	wantTypes := []string{"application/octet-stream", "text/plain", "text/plain"}
	for i, f := range list {
		fm := f.(map[string]any)
		wantKeys(t, "file", fm, "filename", "content_type", "url")
		if fm["filename"] != wantNames[i] || fm["content_type"] != wantTypes[i] {
			t.Errorf("file %d: %v", i, fm)
		}
		url := fm["url"].(string)
		if !strings.HasPrefix(url, h.url+"/api/v2/files/") {
			t.Errorf("url %s", url)
		}
		d := h.get(url)
		wantStatus(t, "download", d, 200)
		if !bytes.Equal(d.body, files[i].data) {
			t.Errorf("file %d: %d bytes downloaded, want %d identical", i, len(d.body), len(files[i].data))
		}
		if d.header.Get("Cache-Control") != "no-store" || !strings.HasPrefix(d.header.Get("Content-Disposition"), "attachment;") {
			t.Errorf("download headers %v", d.header)
		}
	}
	cd := h.get(list[2].(map[string]any)["url"].(string)).header.Get("Content-Disposition")
	if !strings.Contains(cd, `filename="na_ve _quoted_ name.txt"`) || !strings.Contains(cd, "filename*=UTF-8''na%C3%AFve%20%22quoted%22%20name.txt") {
		t.Errorf("Content-Disposition %q", cd)
	}
	// Downloads are not views; they are audited for the owner, once per
	// client, file and minute (the third file was downloaded twice).
	if m := h.do("GET", "/api/v2/pushes/"+tok+"/preview", nil); m.status != 200 {
		t.Fatal(m.status)
	}
	kinds := auditKinds(t, h, tok, owner)
	want := "creation,file_upload,file_upload,file_upload,view,file_download,file_download,file_download"
	if kinds != want {
		t.Errorf("audit %s\nwant  %s", kinds, want)
	}
	// Nothing readable on disk: neither contents nor names.
	for _, p := range h.blobs() {
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, big[:64]) || bytes.Contains(b, []byte("contents with")) {
			t.Errorf("%s holds plaintext", p)
		}
	}
	if testdb.Engine() == "sqlite" { // the database file itself holds no name
		db, _ := os.ReadFile(h.dbPath)
		wal, _ := os.ReadFile(h.dbPath + "-wal")
		if len(db)+len(wal) == 0 {
			t.Fatal("no database file")
		}
		if bytes.Contains(db, []byte("quoted")) || bytes.Contains(wal, []byte("quoted")) {
			t.Error("a file name is stored in plaintext")
		}
	}
}

func TestJSONFileUpload(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	data := randomBytes(5000)
	r := h.do("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "x", "files": []any{
		map[string]any{"filename": "a.bin", "content_type": "application/x-thing", "content_base64": base64.StdEncoding.EncodeToString(data)},
		"",
	}}}, bearer(owner)...)
	wantStatus(t, "json upload", r, 201)
	tok := r.obj(t)["url_token"].(string)
	f := h.do("GET", "/api/v2/pushes/"+tok, nil).obj(t)["files"].([]any)
	if len(f) != 1 || f[0].(map[string]any)["content_type"] != "application/x-thing" {
		t.Fatalf("files %v", f)
	}
	if d := h.get(f[0].(map[string]any)["url"].(string)); !bytes.Equal(d.body, data) {
		t.Error("JSON upload did not round-trip")
	}
	bad := h.do("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"files": []any{
		map[string]any{"filename": "a", "content_base64": "%%%"}}}}, bearer(owner)...)
	wantStatus(t, "bad base64", bad, 422)
}

func TestFileUploadRefusals(t *testing.T) {
	h := newHarness(t, func(_ *Options, l *service.Limits) {
		l.MaxFileSize = 1000
		l.MaxPushSize = 1500
	})
	owner := h.user("o@example.com")
	small := []upload{{"a.txt", "", []byte("abc")}}
	eleven := make([]upload, 11)
	for i := range eleven {
		eleven[i] = upload{fmt.Sprintf("f%d", i), "", []byte("x")}
	}
	before := countAll(t, h)
	cases := []struct {
		name   string
		files  []upload
		hdr    []string
		status int
		body   string
	}{
		{"anonymous", small, nil, 401, `{"error":"You need to sign in or sign up before continuing."}`},
		{"eleven files", eleven, bearer(owner), 422, `{"files":["You can only attach up to 10 files per push."]}`},
		{"file over the limit", []upload{{"big", "", make([]byte, 1001)}}, bearer(owner), 413, ""},
		{"push over the limit", []upload{{"a", "", make([]byte, 800)}, {"b", "", make([]byte, 800)}}, bearer(owner), 413, ""},
		{"a name too long", []upload{{strings.Repeat("n", 256), "", []byte("x")}}, bearer(owner), 422,
			`{"files":["Each file needs a name of at most 255 characters."]}`},
		{"a content type too long", []upload{{"a.txt", "text/" + strings.Repeat("t", 251), []byte("x")}}, bearer(owner), 422,
			`{"files":["Each file's content type must be valid UTF-8 of at most 255 bytes."]}`},
	}
	for _, c := range cases {
		r := h.upload(map[string]string{"push[payload]": "x"}, c.files, c.hdr...)
		wantStatus(t, c.name, r, c.status)
		if c.body != "" {
			wantBody(t, c.name, r, c.body)
		}
		if !strings.Contains(r.header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: Content-Type %q", c.name, r.header.Get("Content-Type"))
		}
		if b := h.blobs(); len(b) != 0 {
			t.Errorf("%s: blobs left behind: %v", c.name, b)
		}
	}
	if n := countAll(t, h); n != before {
		t.Errorf("%d pushes stored by refused uploads", n-before)
	}
	// Exactly at the limit is fine; a file push with no files is valid.
	wantStatus(t, "at the limit", h.upload(map[string]string{"push[kind]": "file"}, []upload{{"ok", "", make([]byte, 1000)}}, bearer(owner)...), 201)
	wantStatus(t, "no files", h.upload(map[string]string{"push[kind]": "file", "push[files][]": ""}, nil, bearer(owner)...), 201)

	off := newHarness(t, func(_ *Options, l *service.Limits) { l.Settings.EnableFilePushes = false })
	tok := off.user("o@example.com")
	r := off.upload(map[string]string{"push[payload]": "x"}, small, bearer(tok)...)
	wantStatus(t, "file pushes off", r, 422)
	wantBody(t, "file pushes off", r, `{"kind":["File pushes are disabled."]}`)
	if len(off.blobs()) != 0 {
		t.Error("a disabled file push stored contents")
	}
}

func TestFileLinksAndExpiry(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	data := []byte("the attachment")
	tok := h.upload(map[string]string{"push[expire_after_views]": "1"}, []upload{{"a.txt", "", data}}, bearer(owner)...).obj(t)["url_token"].(string)
	show := h.do("GET", "/api/v2/pushes/"+tok, nil).obj(t)
	url := show["files"].([]any)[0].(map[string]any)["url"].(string)
	// The push expired on its last view (docs/decisions.md, D14) …
	if after := h.do("GET", "/api/v2/pushes/"+tok, nil).obj(t); after["expired"] != true || len(after["files"].([]any)) != 0 {
		t.Errorf("after the last view: %v", after)
	}
	// … but the link handed out works for its five minutes.
	h.clock.Advance(push5min - time.Second)
	if d := h.get(url); d.status != 200 || !bytes.Equal(d.body, data) {
		t.Errorf("link within its lifetime: %d", d.status)
	}
	tampered := []byte(url)
	i := len(h.url + "/api/v2/files/")
	tampered[i+10] ^= 1
	for what, u := range map[string]string{"tampered": string(tampered), "garbage": h.url + "/api/v2/files/xyz", "no name": strings.Join(strings.Split(url, "/")[:7], "/")} {
		r := h.get(u)
		if what == "no name" {
			wantStatus(t, what, r, 200)
			continue
		}
		wantStatus(t, what, r, 404)
		wantBody(t, what, r, `{"error":"not-found"}`)
	}
	h.clock.Advance(time.Second)
	wantStatus(t, "expired link", h.get(url), 404)
	if len(h.blobs()) != 1 {
		t.Fatalf("blobs before the sweep: %v", h.blobs())
	}
	res, err := h.env.Service.Sweep(t.Context(), 0)
	if err != nil || res.FilesPurged != 1 {
		t.Fatalf("sweep: %+v %v", res, err)
	}
	if b := h.blobs(); len(b) != 0 {
		t.Errorf("contents left after expiry: %v", b)
	}

	// A manual delete kills links at once.
	tok2 := h.upload(map[string]string{"push[payload]": "y"}, []upload{{"b.txt", "", data}}, bearer(owner)...).obj(t)["url_token"].(string)
	url2 := h.do("GET", "/api/v2/pushes/"+tok2, nil).obj(t)["files"].([]any)[0].(map[string]any)["url"].(string)
	wantStatus(t, "delete", h.do("DELETE", "/api/v2/pushes/"+tok2, nil, bearer(owner)...), 200)
	wantStatus(t, "link after delete", h.get(url2), 404)
	if res, _ := h.env.Service.Sweep(t.Context(), 0); res.FilesPurged != 1 || len(h.blobs()) != 0 {
		t.Errorf("after delete and sweep: %+v %v", res, h.blobs())
	}

	// So does a delete after the last view, whose links had their five
	// minutes ahead: by the owner and by a viewer of a deletable push, API
	// v2 and v1 (the web's delete is the same service call).
	for _, del := range []struct {
		name   string
		delete func(tok string) int
	}{
		{"owner, v2", func(tok string) int { return h.do("DELETE", "/api/v2/pushes/"+tok, nil, bearer(owner)...).status }},
		{"viewer, v2", func(tok string) int { return h.do("DELETE", "/api/v2/pushes/"+tok, nil).status }},
		{"viewer, v1", func(tok string) int { return h.do("DELETE", "/p/"+tok+".json", nil).status }},
	} {
		tok := h.upload(map[string]string{"push[expire_after_views]": "1", "push[deletable_by_viewer]": "true"},
			[]upload{{"c.txt", "", data}}, bearer(owner)...).obj(t)["url_token"].(string)
		link := h.do("GET", "/api/v2/pushes/"+tok, nil).obj(t)["files"].([]any)[0].(map[string]any)["url"].(string)
		wantStatus(t, del.name+": link before the delete", h.get(link), 200)
		if st := del.delete(tok); st != 200 {
			t.Errorf("%s: delete answered %d", del.name, st)
		}
		wantStatus(t, del.name+": link after the delete", h.get(link), 404)
	}
}

const push5min = 5 * time.Minute

func TestFilePushWithPassphrase(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	tok := h.upload(map[string]string{"push[passphrase]": "sesame"}, []upload{{"s.txt", "", []byte("guarded file")}}, bearer(owner)...).obj(t)["url_token"].(string)
	wantStatus(t, "no passphrase", h.do("GET", "/api/v2/pushes/"+tok, nil), 401)
	show := h.do("GET", "/api/v2/pushes/"+tok+"?passphrase=sesame", nil).obj(t)
	f := show["files"].([]any)
	if len(f) != 1 {
		t.Fatalf("files %v", show)
	}
	if d := h.get(f[0].(map[string]any)["url"].(string)); string(d.body) != "guarded file" {
		t.Errorf("download %q", d.body)
	}
	// The file key cannot be opened with the master key alone.
	files, _ := h.store.FilesOf(t.Context(), mustPush(t, h, tok).ID)
	inner, err := h.env.Keys.Open("push-file-key", files[0].KeySealed, []byte("hush/push-key/"+secure.TokenKey(tok)+"/file/"+files[0].BlobID))
	if err != nil || len(inner) == 32 {
		t.Errorf("outer layer alone gave a %d-byte key (err %v)", len(inner), err)
	}
}

func TestConcurrentLastViewOfFilePush(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	for round := 0; round < 10; round++ {
		tok := h.upload(map[string]string{"push[expire_after_views]": "1"}, []upload{{"a", "", []byte("once")}}, bearer(owner)...).obj(t)["url_token"].(string)
		var links atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < 16; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := h.client.Get(h.url + "/api/v2/pushes/" + tok)
				if err != nil {
					t.Error(err)
					return
				}
				defer res.Body.Close()
				var m map[string]any
				jsonDecode(res, &m)
				if f, _ := m["files"].([]any); len(f) > 0 {
					links.Add(1)
				}
			}()
		}
		wg.Wait()
		if links.Load() != 1 {
			t.Fatalf("round %d: %d responses carried download links", round, links.Load())
		}
	}
}

func TestOrphanedBlobsSwept(t *testing.T) {
	h := newHarness(t, nil)
	h.clock.Set(time.Now()) // blob ages come from the file system's clock
	owner := h.user("o@example.com")
	h.upload(map[string]string{"push[payload]": "keep"}, []upload{{"a", "", []byte("kept")}}, bearer(owner)...)
	orphan := "0123456789abcdef0123456789abcdef"
	if _, err := h.env.Files.Put(t.Context(), orphan, strings.NewReader("left by a crash")); err != nil {
		t.Fatal(err)
	}
	// Blobs younger than an hour are left alone (an upload may be running).
	if res, _ := h.env.Service.Sweep(t.Context(), 0); res.OrphansFound != 0 || len(h.blobs()) != 2 {
		t.Fatalf("young orphan swept: %+v", res)
	}
	h.clock.Set(time.Now().Add(2 * time.Hour))
	res, err := h.env.Service.Sweep(t.Context(), 0)
	if err != nil || res.OrphansFound != 1 || len(h.blobs()) != 1 {
		t.Errorf("orphan sweep: %+v %v, blobs %v", res, err, h.blobs())
	}
}

// TestDownloadsCannotRunInTheOrigin: whatever type an uploader claims and
// whatever its name pretends, a download is bytes to save: served as
// application/octet-stream with nosniff, named without the bidirectional
// controls that would make "invoice‮fdp.exe" read "invoiceexe.pdf".
func TestDownloadsCannotRunInTheOrigin(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	files := []upload{
		{"page.html", "text/html", []byte("<script>alert(1)</script>")},
		{"app.js", "text/javascript", []byte("alert(1)")},
		{"invoice\u202efdp.exe", "application/pdf", []byte("MZ")},
	}
	r := h.upload(map[string]string{"push[expire_after_views]": "2"}, files, bearer(owner)...)
	wantStatus(t, "upload", r, 201)
	show := h.do("GET", "/api/v2/pushes/"+r.obj(t)["url_token"].(string), nil).obj(t)
	list := show["files"].([]any)
	if name := list[2].(map[string]any)["filename"]; name != "invoicefdp.exe" {
		t.Errorf("file name %q keeps a bidirectional control", name)
	}
	for i, f := range list {
		d := h.get(f.(map[string]any)["url"].(string))
		wantStatus(t, "download", d, 200)
		if ct := d.header.Get("Content-Type"); ct != "application/octet-stream" || d.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("file %d served as %q (nosniff %q)", i, ct, d.header.Get("X-Content-Type-Options"))
		}
		if cd := d.header.Get("Content-Disposition"); strings.ContainsRune(cd, '\u202e') || strings.Contains(cd, "%E2%80%AE") {
			t.Errorf("file %d: Content-Disposition %q keeps the override", i, cd)
		}
	}
}

// logBuffer collects a server's log lines.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCutDownloadsSayWhy damages a stored file after its first chunk, then
// cuts it short there: each download stops after its headers, and the log
// tells altered data from a file store that failed, which must not read
// like tampering.
func TestCutDownloadsSayWhy(t *testing.T) {
	var logs logBuffer
	h := newHarness(t, func(o *Options, _ *service.Limits) {
		o.Log = slog.New(slog.NewTextHandler(&logs, nil))
	})
	owner := h.user("o@example.com")
	data := randomBytes(300 << 10)
	r := h.upload(map[string]string{"push[expire_after_views]": "5"}, []upload{{"big.bin", "application/octet-stream", data}}, bearer(owner)...)
	wantStatus(t, "upload", r, 201)
	show := h.do("GET", "/api/v2/pushes/"+r.obj(t)["url_token"].(string), nil).obj(t)
	link := show["files"].([]any)[0].(map[string]any)["url"].(string)
	stored := h.blobs()
	if len(stored) != 1 {
		t.Fatalf("blobs %v", stored)
	}
	sealed, err := os.ReadFile(stored[0])
	if err != nil {
		t.Fatal(err)
	}
	download := func() (int, int) {
		t.Helper()
		res, err := http.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, len(b)
	}

	altered := bytes.Clone(sealed)
	altered[150<<10] ^= 1
	if err := os.WriteFile(stored[0], altered, 0o600); err != nil {
		t.Fatal(err)
	}
	if status, n := download(); status != 200 || n >= len(data) {
		t.Errorf("altered file: %d with %d of %d bytes; want its headers, then a cut", status, n, len(data))
	}
	if !strings.Contains(logs.String(), "does not authenticate") || strings.Contains(logs.String(), "file store failed") {
		t.Errorf("altered file logged as:\n%s", logs.String())
	}

	before := len(logs.String())
	if err := os.WriteFile(stored[0], sealed[:100<<10], 0o600); err != nil {
		t.Fatal(err)
	}
	if status, n := download(); status != 200 || n >= len(data) {
		t.Errorf("file cut short in the store: %d with %d of %d bytes; want its headers, then a cut", status, n, len(data))
	}
	if got := logs.String()[before:]; !strings.Contains(got, "the file store failed while sending it") || strings.Contains(got, "does not authenticate") {
		t.Errorf("file cut short in the store logged as:\n%s", got)
	}
}

// TestFilesKeyWithoutKindMakesFilePush: a files key, even empty, and no kind
// make a file push, on v2 and on v1's /p.json, in every body (the spec's
// create rule 1; Password Pusher's v1); a file push needs no payload. An
// explicit kind still wins.
func TestFilesKeyWithoutKindMakesFilePush(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	cases := []struct {
		name, path, ct, body string
		kind                 string
	}{
		{"v2 JSON, files only", "/api/v2/pushes", "application/json", `{"push":{"files":[]}}`, "file"},
		{"v2 JSON, with a payload", "/api/v2/pushes", "application/json", `{"push":{"payload":"x","files":[]}}`, "file"},
		{"v2 JSON, kind text wins", "/api/v2/pushes", "application/json", `{"push":{"kind":"text","payload":"x","files":[]}}`, "text"},
		{"v1 JSON, files only", "/p.json", "application/json", `{"password":{"files":[]}}`, "file"},
		{"v1 JSON, with a payload", "/p.json", "application/json", `{"password":{"payload":"x","files":[]}}`, "file"},
		{"v1 JSON, kind text wins", "/p.json", "application/json", `{"password":{"kind":"text","payload":"x","files":[]}}`, "text"},
		{"v1 form", "/p.json", "application/x-www-form-urlencoded", "password%5Bfiles%5D%5B%5D=", "file"},
	}
	for _, c := range cases {
		r := h.doRaw("POST", c.path, c.body, append([]string{"Content-Type", c.ct}, bearer(owner)...)...)
		wantStatus(t, c.name, r, 201)
		if r.status != 201 {
			continue
		}
		if got := r.obj(t)["kind"]; got != c.kind {
			t.Errorf("%s: kind %v, want %s", c.name, got, c.kind)
		}
	}
	// A multipart body whose file field carries no file.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("push[payload]", "x")
	fw, _ := mw.CreateFormFile("push[files][]", "")
	fw.Write(nil)
	mw.Close()
	r := h.doRaw("POST", "/api/v2/pushes", buf.String(), append([]string{"Content-Type", mw.FormDataContentType()}, bearer(owner)...)...)
	wantStatus(t, "multipart, an empty file field", r, 201)
	if r.status == 201 {
		if got := r.obj(t)["kind"]; got != "file" {
			t.Errorf("multipart, an empty file field: kind %v, want file", got)
		}
	}
}
