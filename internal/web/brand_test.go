package web

import (
	"net/http"
	"strings"
	"testing"

	"hush/internal/push"
)

var (
	pngLogo = []byte("\x89PNG\r\n\x1a\n light logo")
	svgLogo = []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="#000"/><script>alert(1)</script></svg>`)
)

// acmeBrand sets every branding setting; hostile text in the title, the
// tagline and the disclaimer.
func acmeBrand(o *Options) {
	o.Brand = Brand{
		Title:          `Acme <script>alert("title")</script>`,
		Tagline:        "Security first <b>now</b>",
		Disclaimer:     `For Acme staff only. <script>alert("disclaimer")</script>`,
		HideFooterMenu: true,
		LightLogo:      &Asset{Body: pngLogo, Type: "image/png"},
		DarkLogo:       &Asset{URL: "https://cdn.example.com/acme/dark.png"},
		Icons: []Icon{
			{Name: "icon_32x32", Asset: &Asset{Body: pngLogo, Type: "image/png"}},
			{Name: "icon_180x180", Asset: &Asset{URL: "https://icons.example.org/180.png"}},
			{Name: "ms_icon_144x144", Asset: &Asset{URL: "https://cdn.example.com/ms.png"}},
		},
		CustomCSS: &Asset{Body: []byte("body { color: teal }"), Type: "text/css; charset=utf-8"},
	}
}

// brandCSPWant is the pages' CSP with acmeBrand: CSP, and img-src for
// exactly the two other origins its images come from.
const brandCSPWant = CSP + "; img-src 'self' https://cdn.example.com https://icons.example.org"

func TestBrandOnThePages(t *testing.T) {
	h := newHarness(t, func(o *Options, _ *push.Settings) { acmeBrand(o) })
	c := h.client()
	form := c.get("/")
	if form.status != http.StatusOK || form.header.Get("Content-Security-Policy") != brandCSPWant {
		t.Fatalf("create page: %d, CSP %q", form.status, form.header.Get("Content-Security-Policy"))
	}
	// Text settings are escaped: the scripts are inert text.
	form.has(t, `<title>Share a secret · Acme &lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt;</title>`,
		`<p class="tagline">Security first &lt;b&gt;now&lt;/b&gt;</p>`,
		`<aside class="disclaimer" aria-label="Disclaimer"><p>For Acme staff only. &lt;script&gt;alert(&#34;disclaimer&#34;)&lt;/script&gt;</p></aside>`,
		`<img class="logo logo-light" src="/static/brand/light-logo?v=`,
		`<img class="logo logo-dark" src="https://cdn.example.com/acme/dark.png" alt="">`,
		`<link rel="icon" sizes="32x32" href="/static/brand/icon-32x32?v=`,
		`<link rel="apple-touch-icon" sizes="180x180" href="https://icons.example.org/180.png">`,
		`<meta name="msapplication-TileImage" content="https://cdn.example.com/ms.png">`,
		`<link rel="stylesheet" href="/static/style.css">
<link rel="stylesheet" href="/static/brand/custom.css?v=`,
		`<select id="theme">`)
	form.lacks(t, `<script>alert`, `<b>now`, `href="/help/api"`, `/static/icon.svg`)

	tok := h.create(nil, fields{"payload": "brand-secret", "retrieval_step": "false"})
	secret := c.get("/p/" + tok)
	secret.has(t, "brand-secret", `<aside class="disclaimer"`, "For Acme staff only.")
	secret.lacks(t, `<script>alert`, `class="tagline"`)
	if csp := secret.header.Get("Content-Security-Policy"); csp != brandCSPWant {
		t.Errorf("secret page CSP %q", csp)
	}
	// Other pages: the brand's name, no disclaimer.
	other := c.get("/users/sign_in")
	other.has(t, "· Acme &lt;script&gt;")
	other.lacks(t, `class="disclaimer"`)

	// Hush's own look when nothing is set.
	plain := newHarness(t, nil).client()
	r := plain.get("/")
	r.expect(t, http.StatusOK)
	r.has(t, "<title>Share a secret · Hush</title>", `<a class="brand" href="/">Hush</a>`, `href="/help/api"`,
		`<link rel="icon" href="/static/icon.svg" type="image/svg+xml">`, `<script src="/static/theme.js"></script>`)
	r.lacks(t, `class="tagline"`, `class="disclaimer"`, "/static/brand/", "<img")
}

// TestBrandFilesServed: the logo, icon and stylesheet files are served
// with their type, cached like the static assets and revalidated by ETag;
// an SVG runs nothing even when opened on its own.
func TestBrandFilesServed(t *testing.T) {
	h := newHarness(t, func(o *Options, _ *push.Settings) {
		acmeBrand(o)
		o.Brand.DarkLogo = &Asset{Body: svgLogo, Type: "image/svg+xml"}
	})
	c := h.client()
	for _, f := range []struct {
		path, typ string
		body      []byte
	}{
		{"/static/brand/light-logo", "image/png", pngLogo},
		{"/static/brand/dark-logo", "image/svg+xml", svgLogo},
		{"/static/brand/icon-32x32", "image/png", pngLogo},
		{"/static/brand/custom.css", "text/css; charset=utf-8", []byte("body { color: teal }")},
	} {
		r := c.get(f.path)
		if r.status != http.StatusOK || r.header.Get("Content-Type") != f.typ || r.body != string(f.body) {
			t.Errorf("%s: %d %q %q", f.path, r.status, r.header.Get("Content-Type"), r.body)
			continue
		}
		if cc := r.header.Get("Cache-Control"); cc != "public, max-age=3600" {
			t.Errorf("%s: Cache-Control %q", f.path, cc)
		}
		if r.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", f.path)
		}
		csp := r.header.Get("Content-Security-Policy")
		if strings.HasPrefix(f.typ, "image/") && csp != brandCSP {
			t.Errorf("%s: CSP %q, want %q", f.path, csp, brandCSP)
		}
		req, _ := http.NewRequest(http.MethodGet, h.url+f.path, nil)
		req.Header.Set("If-None-Match", r.header.Get("ETag"))
		if again := c.do(req); r.header.Get("ETag") == "" || again.status != http.StatusNotModified {
			t.Errorf("%s: ETag %q, revalidation %d", f.path, r.header.Get("ETag"), again.status)
		}
	}
	// The page links the dark logo from here now: only the icons' origins remain.
	if csp := c.get("/").header.Get("Content-Security-Policy"); csp != CSP+"; img-src 'self' https://icons.example.org https://cdn.example.com" {
		t.Errorf("CSP %q", csp)
	}
	for _, p := range []string{"/static/brand/dark-logo.png", "/static/brand/icon-16x16", "/static/brand/", "/static/brand/..%2fstyle.css"} {
		if r := c.get(p); r.status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, r.status)
		}
	}
}

// TestCustomCSSKeepsCSPStrict: a custom stylesheet and logos from this
// origin leave the pages' CSP exactly as strict as without them.
func TestCustomCSSKeepsCSPStrict(t *testing.T) {
	h := newHarness(t, func(o *Options, _ *push.Settings) {
		o.Brand = Brand{LightLogo: &Asset{Body: pngLogo, Type: "image/png"},
			CustomCSS: &Asset{Body: []byte("main { max-width: 60rem }"), Type: "text/css; charset=utf-8"}}
	})
	r := h.client().get("/")
	r.expect(t, http.StatusOK) // checks the CSP is exactly CSP
	r.has(t, `<link rel="stylesheet" href="/static/brand/custom.css?v=`,
		// One logo serves both schemes.
		`<img class="logo logo-light" src="/static/brand/light-logo?v=`, `<img class="logo logo-dark" src="/static/brand/dark-logo?v=`)
}

// TestBlurPerKind: a text secret and a file push's message are blurred by
// default; PWP__PW__ENABLE_BLUR and PWP__FILES__ENABLE_BLUR turn that off.
func TestBlurPerKind(t *testing.T) {
	for _, on := range []bool{true, false} {
		h := newHarness(t, func(o *Options, _ *push.Settings) {
			if !on {
				o.Brand.Blur = map[push.Kind]bool{push.KindText: false, push.KindFile: false}
			}
		})
		c := h.signUp("blur@example.com", "password one")
		text := c.get("/p/" + h.create(nil, fields{"payload": "blur-me", "retrieval_step": "false"}))
		r := c.postFiles(fileFields("payload", "file message", "retrieval_step", "false"), upload{"a.txt", []byte("a")})
		tok := strings.TrimSuffix(strings.TrimPrefix(r.header.Get("Location"), "/p/"), "/preview")
		file := h.client().get("/p/" + tok)
		file.has(t, "file message")
		for name, page := range map[string]resp{"text": text, "file": file} {
			blurred := strings.Contains(page.body, `class="secret blurred"`)
			reveal := strings.Contains(page.body, `data-reveal="secret"`)
			if blurred != on || reveal != on {
				t.Errorf("blur %v, %s: blurred %v, Show button %v", on, name, blurred, reveal)
			}
		}
	}
}
