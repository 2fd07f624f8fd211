package app

import (
	"hush/internal/config"
	"hush/internal/service"
	"hush/internal/sso"
)

// enableSSO turns single sign-on on where the configuration has a provider
// (docs/decisions.md, D50): the provider is discovered at the first
// sign-in, so Hush starts while it is down.
func enableSSO(svc *service.Service, cfg *config.Config) {
	o := cfg.OIDC
	if o == nil {
		return
	}
	p := sso.New(sso.Config{Issuer: o.Issuer, ClientID: o.ClientID, ClientSecret: o.ClientSecret, Scopes: o.Scopes,
		RedirectURL: cfg.BaseURL + sso.CallbackPath})
	svc.EnableSSO(p, service.SSORules{Label: o.ButtonLabel, AllowedDomains: o.AllowedDomains, CreateUsers: o.CreateUsers,
		PasswordOff: !cfg.PasswordSignIn})
}
