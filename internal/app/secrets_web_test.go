package app

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// driveWebAndFiles runs the web flows (sign-up, sign-in, create with a
// passphrase, wrong and right passphrase, token page) and a file push
// through the API, and returns every secret it used.
func driveWebAndFiles(t *testing.T, base, apiToken string) []string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	web := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path string, form url.Values) *http.Response {
		t.Helper()
		res, err := web.PostForm(base+path, form)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	getPage := func(path string) string {
		t.Helper()
		res, err := web.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return string(b)
	}
	const password, payload, phrase, guess = "web-pw-Rk27-signup", "web-payload-Ux81-text", "web-phrase-Nc40-door", "web-guess-Ja93-wrong"
	if res := post("/users/sign_up", url.Values{"email": {"web@example.com"}, "password": {password}, "password_confirmation": {password}}); res.StatusCode != 303 {
		t.Fatalf("sign up: %d", res.StatusCode)
	}
	post("/users/sign_out", nil)
	post("/users/sign_in", url.Values{"email": {"web@example.com"}, "password": {"web-wrong-Xe55-pass"}})
	if res := post("/users/sign_in", url.Values{"email": {"web@example.com"}, "password": {password}}); res.StatusCode != 303 {
		t.Fatalf("sign in: %d", res.StatusCode)
	}
	res := post("/", url.Values{"kind": {"text"}, "payload": {payload}, "passphrase": {phrase}, "expire_after_views": {"3"},
		"expire_after_days": {"2"}, "name": {"web-name"}, "note": {"web-note-Op62-memo"}})
	loc := res.Header.Get("Location")
	if res.StatusCode != 303 || !strings.HasSuffix(loc, "/preview") {
		t.Fatalf("web create: %d %q", res.StatusCode, loc)
	}
	secretPath := strings.TrimSuffix(loc, "/preview")
	getPage(secretPath + "/preview")
	post(secretPath+"/passphrase", url.Values{"passphrase": {guess}})
	if page := getPage(secretPath + "/passphrase"); page == "" {
		t.Fatal("no passphrase page")
	}
	res2, err := web.PostForm(base+secretPath+"/passphrase", url.Values{"passphrase": {phrase}})
	if err != nil {
		t.Fatal(err)
	}
	shown, _ := io.ReadAll(res2.Body)
	res2.Body.Close()
	if !strings.Contains(string(shown), payload) {
		t.Fatalf("the right passphrase did not show the secret: %d", res2.StatusCode)
	}
	webToken := tokenFromPage(t, web, base)
	getPage("/dashboard")

	// A file push through the API: its contents and name are secrets too.
	const content, fileName = "file-content-Qb73-inside", "file-name-Wd19.txt"
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.WriteField("push[payload]", "file-payload-Tz44-text")
	mw.WriteField("push[passphrase]", "file-phrase-Hy28-door")
	fw, _ := mw.CreateFormFile("push[files][]", fileName)
	fw.Write([]byte(strings.Repeat(content, 100)))
	mw.Close()
	req, _ := http.NewRequest("POST", base+"/api/v2/pushes", &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+apiToken)
	up, err := http.DefaultClient.Do(req)
	if err != nil || up.StatusCode != 201 {
		t.Fatalf("file push: %v %v", up, err)
	}
	up.Body.Close()
	out := []string{password, payload, phrase, guess, "web-wrong-Xe55-pass", "web-note-Op62-memo", content, fileName,
		"file-payload-Tz44-text", "file-phrase-Hy28-door", webToken}
	return out
}

// tokenFromPage reads the API token shown once after POST /users/token.
func tokenFromPage(t *testing.T, web *http.Client, base string) string {
	t.Helper()
	res, err := web.PostForm(base+"/users/token", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	_, rest, ok := strings.Cut(string(b), `id="token" value="`)
	tok, _, _ := strings.Cut(rest, `"`)
	if !ok || len(tok) != 43 {
		t.Fatalf("no token on the token page: %d", res.StatusCode)
	}
	return tok
}

// fileStoreBytes concatenates every file under the data directory but the
// database and the master key: the file store.
func fileStoreBytes(t *testing.T, dir string) []byte {
	t.Helper()
	var all []byte
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), "hush.db") || d.Name() == "master.key" {
			return nil
		}
		b, _ := os.ReadFile(p)
		all = append(all, b...)
		return nil
	})
	return all
}
