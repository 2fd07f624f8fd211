package app

import (
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"hush/internal/oidctest"
)

// TestServeRefusesBadSSOSettings: single sign-on without a base URL, and
// password sign-in off without single sign-on, stop the start with a
// message; the client secret is never printed.
func TestServeRefusesBadSSOSettings(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HUSH_OIDC_ISSUER": "https://id.example.com", "HUSH_OIDC_CLIENT_ID": "hush", "HUSH_OIDC_CLIENT_SECRET": "s3cret-value"},
			"HUSH_OIDC_ISSUER needs HUSH_BASE_URL"},
		{map[string]string{"HUSH_PASSWORD_SIGN_IN": "false"}, "HUSH_PASSWORD_SIGN_IN=false needs single sign-on"},
	} {
		c.env["HUSH_DATA_DIR"], c.env["HUSH_ADDR"] = dir, "127.0.0.1:0"
		code, _, errOut := run(t, c.env, "", "serve")
		if code != 1 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "s3cret-value") {
			t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, c.want)
		}
	}
}

// TestServeSSO: `hush serve` with single sign-on and password sign-in off
// signs a person in through a real provider, makes their account, and
// refuses a password.
func TestServeSSO(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base := "http://" + addr
	op := oidctest.Start(t, base+"/users/sso/callback",
		oidctest.User{ID: "dana-sub", Username: "dana", Password: "dana-pw", Email: "dana@corp.example", EmailVerified: true})
	s := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_ADDR": addr, "HUSH_BASE_URL": base,
		"HUSH_OIDC_ISSUER": op.Issuer, "HUSH_OIDC_CLIENT_ID": oidctest.ClientID, "HUSH_OIDC_CLIENT_SECRET": oidctest.ClientSecret,
		"HUSH_OIDC_BUTTON_LABEL": "Corp ID", "HUSH_OIDC_CREATE_USERS": "true", "HUSH_PASSWORD_SIGN_IN": "false"})
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	get := func(u string) (*http.Response, string) {
		t.Helper()
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	if _, body := get(s.url + "/users/sign_in"); !strings.Contains(body, "Corp ID") || strings.Contains(body, `name="password"`) {
		t.Fatalf("the sign-in page:\n%s", body)
	}
	resp, err := c.PostForm(s.url+"/users/sign_in", url.Values{"email": {"dana@corp.example"}, "password": {"whatever"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a password sign-in: %d", resp.StatusCode)
	}
	_, login := get(s.url + "/users/sso")
	m := regexp.MustCompile(`name="id" value="([^"]+)"`).FindStringSubmatch(login)
	if m == nil {
		t.Fatalf("the provider's login page:\n%s", login)
	}
	resp, err = c.PostForm(op.Issuer+"login/username", url.Values{"id": {m[1]}, "username": {"dana"}, "password": {"dana-pw"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.String() != base+"/dashboard" {
		t.Fatalf("after the provider: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	if _, body := get(s.url + "/users/edit"); !strings.Contains(body, "dana@corp.example") {
		t.Fatalf("the account page does not name the new account:\n%s", body)
	}
}
