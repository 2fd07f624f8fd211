// Package sso speaks OpenID Connect to the instance's identity provider for
// single sign-on (docs/decisions.md, D50): discovery from the issuer URL,
// the authorization code flow with PKCE (S256), and an ID token whose
// signature, issuer, audience, expiry and nonce are all checked. What an
// identity may do here is the service's to decide; app wires this package
// in as its service.IdentityProvider.
package sso

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"hush/internal/service"
)

// CallbackPath is where the provider sends the browser back, under the
// instance's base URL.
const CallbackPath = "/users/sso/callback"

// Config is the provider and this instance's client at it.
type Config struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	Scopes       []string
	RedirectURL  string       // the base URL and CallbackPath
	HTTPClient   *http.Client // nil: one with a 15 s timeout
}

// Provider is the identity provider, discovered on first use.
type Provider struct {
	cfg    Config
	client *http.Client

	mu       sync.Mutex
	oauth    *oauth2.Config
	verifier *oidc.IDTokenVerifier
	provider *oidc.Provider
}

// New returns the provider of cfg. Nothing is fetched until the first
// sign-in, so Hush starts while the provider is down; a failed discovery is
// tried again at the next sign-in.
func New(cfg Config) *Provider {
	c := cfg.HTTPClient
	if c == nil {
		c = &http.Client{Timeout: 15 * time.Second}
	}
	return &Provider{cfg: cfg, client: c}
}

// discovered returns the provider's endpoints and keys, discovering them
// once.
func (p *Provider) discovered() (*oauth2.Config, *oidc.IDTokenVerifier, *oidc.Provider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.provider != nil {
		return p.oauth, p.verifier, p.provider, nil
	}
	// The key set keeps this context for its later fetches: it must not
	// end with a request.
	ctx := oidc.ClientContext(context.Background(), p.client)
	op, err := oidc.NewProvider(ctx, p.cfg.Issuer)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("discovery of %s: %w", p.cfg.Issuer, err)
	}
	scopes := p.cfg.Scopes
	if len(scopes) == 0 {
		scopes = []string{oidc.ScopeOpenID}
	}
	p.oauth = &oauth2.Config{ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, Endpoint: op.Endpoint(),
		RedirectURL: p.cfg.RedirectURL, Scopes: scopes}
	// The verifier checks the signature against the provider's keys, the
	// issuer, that this client is an audience, and the expiry.
	p.verifier = op.Verifier(&oidc.Config{ClientID: p.cfg.ClientID})
	p.provider = op
	return p.oauth, p.verifier, p.provider, nil
}

// AuthURL is the provider's authorization URL for one attempt.
func (p *Provider) AuthURL(_ context.Context, state, nonce, verifier string) (string, error) {
	oc, _, _, err := p.discovered()
	if err != nil {
		return "", err
	}
	return oc.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), nil
}

// claims are the ID token's or the userinfo's claims Hush reads.
type claims struct {
	Subject  string          `json:"sub"`
	Email    string          `json:"email"`
	Verified json.RawMessage `json:"email_verified"`
}

// verified reads email_verified, which some providers send as a string.
func (c claims) verified() bool {
	var b bool
	if json.Unmarshal(c.Verified, &b) == nil {
		return b
	}
	var s string
	if json.Unmarshal(c.Verified, &s) == nil {
		b, _ = strconv.ParseBool(s)
	}
	return b
}

// Identify exchanges the code for tokens and returns the verified ID
// token's identity. Without an email claim in the ID token, the address
// comes from the userinfo endpoint, whose subject must be the token's.
func (p *Provider) Identify(ctx context.Context, code, verifier, nonce string) (service.Identity, error) {
	oc, v, op, err := p.discovered()
	if err != nil {
		return service.Identity{}, err
	}
	ctx = oidc.ClientContext(ctx, p.client)
	tok, err := oc.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return service.Identity{}, fmt.Errorf("code exchange: %w", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return service.Identity{}, errors.New("the token response has no id_token")
	}
	idt, err := v.Verify(ctx, raw)
	if err != nil {
		return service.Identity{}, fmt.Errorf("id token: %w", err)
	}
	if idt.Nonce == "" || subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(nonce)) != 1 {
		return service.Identity{}, errors.New("id token: the nonce is missing or not this sign-in's")
	}
	var c claims
	if err := idt.Claims(&c); err != nil {
		return service.Identity{}, fmt.Errorf("id token claims: %w", err)
	}
	if c.Email == "" {
		ui, err := op.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return service.Identity{}, fmt.Errorf("userinfo: %w", err)
		}
		if ui.Subject != idt.Subject {
			return service.Identity{}, errors.New("userinfo: another subject than the id token's")
		}
		if err := ui.Claims(&c); err != nil {
			return service.Identity{}, fmt.Errorf("userinfo claims: %w", err)
		}
	}
	return service.Identity{Issuer: idt.Issuer, Subject: idt.Subject, Email: c.Email, EmailVerified: c.verified()}, nil
}
