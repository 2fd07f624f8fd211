package sso

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// The real provider of the web tests (internal/oidctest) signs only good
// tokens. These tests need bad ones — for another client, expired, without
// the nonce, signed with a key the provider does not publish — so they
// run a small provider of their own: a discovery document, a JWKS with one
// RSA key, and a token endpoint that answers with the ID token a test
// signed. It exists only for these negative tests.

type fakeOP struct {
	srv      *httptest.Server
	key      *rsa.PrivateKey
	mu       sync.Mutex
	idToken  string
	userinfo map[string]any
	verifier string // the PKCE verifier the last token request sent
}

func newFakeOP(t *testing.T) *fakeOP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	op := &fakeOP{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		u := op.srv.URL
		writeJSON(w, map[string]any{"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token",
			"jwks_uri": u + "/jwks", "userinfo_endpoint": u + "/userinfo", "id_token_signing_alg_values_supported": []string{"RS256"}})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		pub := key.PublicKey
		writeJSON(w, map[string]any{"keys": []map[string]string{{"kty": "RSA", "kid": "k1", "alg": "RS256", "use": "sig",
			"n": b64(pub.N.Bytes()), "e": b64(big.NewInt(int64(pub.E)).Bytes())}}})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		op.mu.Lock()
		defer op.mu.Unlock()
		op.verifier = r.PostForm.Get("code_verifier")
		writeJSON(w, map[string]any{"access_token": "at", "token_type": "Bearer", "expires_in": 60, "id_token": op.idToken})
	})
	mux.HandleFunc("GET /userinfo", func(w http.ResponseWriter, _ *http.Request) {
		op.mu.Lock()
		defer op.mu.Unlock()
		writeJSON(w, op.userinfo)
	})
	op.srv = httptest.NewServer(mux)
	t.Cleanup(op.srv.Close)
	return op
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// sign makes a compact RS256 JWT of claims with key.
func sign(t *testing.T, key *rsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	h, _ := json.Marshal(map[string]string{"alg": "RS256", "kid": "k1", "typ": "JWT"})
	p, _ := json.Marshal(claims)
	in := b64(h) + "." + b64(p)
	sum := sha256.Sum256([]byte(in))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return in + "." + b64(sig)
}

// claims are a good ID token's claims for client hush and nonce n1.
func (op *fakeOP) claims() map[string]any {
	now := time.Now()
	return map[string]any{"iss": op.srv.URL, "sub": "person-1", "aud": "hush", "exp": now.Add(5 * time.Minute).Unix(),
		"iat": now.Unix(), "nonce": "n1", "email": "person@example.com", "email_verified": true}
}

func (op *fakeOP) provider() *Provider {
	return New(Config{Issuer: op.srv.URL, ClientID: "hush", ClientSecret: "s", Scopes: []string{"openid", "email"},
		RedirectURL: "http://127.0.0.1:1" + CallbackPath})
}

// identify has the provider answer with a token of claims (signed with
// key, the provider's own when nil).
func (op *fakeOP) identify(t *testing.T, key *rsa.PrivateKey, claims map[string]any) error {
	t.Helper()
	if key == nil {
		key = op.key
	}
	op.mu.Lock()
	op.idToken = sign(t, key, claims)
	op.mu.Unlock()
	_, err := op.provider().Identify(context.Background(), "code", "the-verifier", "n1")
	return err
}

// TestIdentifyRefusesBadTokens: each bad ID token is refused, and the good
// one, made the same way, is taken (so each refusal is for its one flaw).
func TestIdentifyRefusesBadTokens(t *testing.T) {
	op := newFakeOP(t)
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if err := op.identify(t, nil, op.claims()); err != nil {
		t.Fatalf("the good token: %v", err)
	}
	if op.verifier != "the-verifier" {
		t.Fatalf("the token request sent verifier %q", op.verifier)
	}
	for _, tc := range []struct {
		name   string
		key    *rsa.PrivateKey
		change func(map[string]any)
		want   string
	}{
		{"another client's token", nil, func(c map[string]any) { c["aud"] = "another-client" }, "audience"},
		{"expired", nil, func(c map[string]any) {
			c["exp"] = time.Now().Add(-time.Hour).Unix()
			c["iat"] = time.Now().Add(-2 * time.Hour).Unix()
		}, "expired"},
		{"another issuer", nil, func(c map[string]any) { c["iss"] = "https://elsewhere.example" }, "different provider"},
		{"no nonce", nil, func(c map[string]any) { delete(c, "nonce") }, "nonce"},
		{"another nonce", nil, func(c map[string]any) { c["nonce"] = "n2" }, "nonce"},
		{"a key the provider does not publish", other, func(map[string]any) {}, "signature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := op.claims()
			tc.change(c)
			err := op.identify(t, tc.key, c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Identify: %v, want an error about %s", err, tc.want)
			}
		})
	}
}

// TestIdentifyClaims: the address and whether it is verified come from
// the ID token (email_verified as a string too), else from the userinfo
// endpoint, which must name the token's subject.
func TestIdentifyClaims(t *testing.T) {
	op := newFakeOP(t)
	c := op.claims()
	c["email_verified"] = "true"
	op.idToken = sign(t, op.key, c)
	id, err := op.provider().Identify(context.Background(), "code", "v", "n1")
	if err != nil || !id.EmailVerified || id.Email != "person@example.com" || id.Subject != "person-1" || id.Issuer != op.srv.URL {
		t.Fatalf("string email_verified: %+v, %v", id, err)
	}
	c = op.claims()
	delete(c, "email")
	delete(c, "email_verified")
	op.idToken = sign(t, op.key, c)
	op.userinfo = map[string]any{"sub": "person-1", "email": "info@example.com", "email_verified": false}
	id, err = op.provider().Identify(context.Background(), "code", "v", "n1")
	if err != nil || id.EmailVerified || id.Email != "info@example.com" {
		t.Fatalf("from userinfo: %+v, %v", id, err)
	}
	op.userinfo = map[string]any{"sub": "someone-else", "email": "info@example.com", "email_verified": true}
	if _, err := op.provider().Identify(context.Background(), "code", "v", "n1"); err == nil || !strings.Contains(err.Error(), "subject") {
		t.Fatalf("userinfo of another subject: %v", err)
	}
}

// TestAuthURL: the browser is sent with the state, the nonce and the S256
// challenge of the verifier, to this client's redirect URL.
func TestAuthURL(t *testing.T) {
	op := newFakeOP(t)
	raw, err := op.provider().AuthURL(context.Background(), "st", "no", "the-verifier")
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("the-verifier"))
	q := u.Query()
	for k, want := range map[string]string{"state": "st", "nonce": "no", "code_challenge_method": "S256",
		"code_challenge": b64(sum[:]), "client_id": "hush", "response_type": "code", "scope": "openid email",
		"redirect_uri": "http://127.0.0.1:1" + CallbackPath} {
		if q.Get(k) != want {
			t.Errorf("%s = %q, want %q", k, q.Get(k), want)
		}
	}
	if q.Has("code_verifier") {
		t.Error("the verifier itself is in the URL")
	}
}

// TestDiscoveryRetried: a provider down at the first sign-in is
// discovered at the next.
func TestDiscoveryRetried(t *testing.T) {
	op := newFakeOP(t)
	p := New(Config{Issuer: op.srv.URL + "/nowhere", ClientID: "hush"})
	if _, err := p.AuthURL(context.Background(), "s", "n", "v"); err == nil {
		t.Fatal("discovery of a missing document succeeded")
	}
	p.cfg.Issuer = op.srv.URL
	if _, err := p.AuthURL(context.Background(), "s", "n", "v"); err != nil {
		t.Fatalf("discovery not tried again: %v", err)
	}
}
