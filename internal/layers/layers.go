// Package layers states the import rules between Hush's packages, which a
// test checks against the build: the HTTP packages talk to the service and
// the domain only, and the service knows nothing of HTTP.
package layers

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Module is the import path prefix of Hush's packages.
const Module = "hush/"

// Rule says what a package may import.
type Rule struct {
	// Package is the import path the rule is about.
	Package string
	// Internal lists the only Hush packages it may import directly; nil
	// means any.
	Internal []string
	// NeverDeps lists packages it must not depend on at all, directly or
	// through others.
	NeverDeps []string
}

// Rules are Hush's layers (README, "Design"):
//
//	cmd → app → api, web → httpx → service → store, secure, blob, push
//
// api and web speak to the service, the domain and the HTTP plumbing
// only, never to the store; the service never speaks HTTP.
var Rules = []Rule{
	{Package: "hush/internal/api", Internal: []string{"hush/internal/service", "hush/internal/push", "hush/internal/httpx"}},
	{Package: "hush/internal/web", Internal: []string{"hush/internal/service", "hush/internal/push", "hush/internal/httpx", "hush/internal/i18n"}},
	{Package: "hush/internal/httpx", Internal: []string{"hush/internal/push"}},
	{Package: "hush/internal/service", NeverDeps: []string{"net/http", "mime/multipart"}},
	{Package: "hush/internal/store", Internal: []string{"hush/internal/push"}},
	{Package: "hush/internal/push", Internal: []string{}},
	// Email's messages are the service's; their delivery (mail/smtp) is
	// wired in by app, so the service needs no SMTP client.
	{Package: "hush/internal/mail", Internal: []string{"hush/internal/i18n"}},
	// The languages (docs/decisions.md, D52) are a leaf: pages and email
	// speak through them, and they know nothing of Hush.
	{Package: "hush/internal/i18n", Internal: []string{}},
	// The OpenID Connect client speaks HTTP to the provider for the
	// service, which app wires it into (service.IdentityProvider).
	{Package: "hush/internal/sso", Internal: []string{"hush/internal/service"}},
	// Webhook requests are the service's; their delivery over HTTP
	// (webhook) is wired in by app.
	{Package: "hush/internal/webhook", Internal: []string{"hush/internal/push"}},
}

// Package is what the build says of one package: its direct imports and
// all its dependencies.
type Package struct {
	Imports []string
	Deps    []string
}

// Check returns every breach of rules in the graph (import path → package).
func Check(rules []Rule, graph map[string]Package) []string {
	var out []string
	for _, r := range rules {
		p, ok := graph[r.Package]
		if !ok {
			out = append(out, fmt.Sprintf("%s: not in the build", r.Package))
			continue
		}
		for _, imp := range p.Imports {
			if r.Internal != nil && strings.HasPrefix(imp, Module) && !slices.Contains(r.Internal, imp) {
				out = append(out, fmt.Sprintf("%s imports %s; it may import only %s", r.Package, imp, strings.Join(r.Internal, ", ")))
			}
		}
		for _, never := range r.NeverDeps {
			if slices.Contains(p.Deps, never) {
				out = append(out, fmt.Sprintf("%s depends on %s", r.Package, never))
			}
		}
	}
	sort.Strings(out)
	return out
}
