package web

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
	"time"

	"hush/internal/push"
)

// Brand is how an operator brands the pages (docs/decisions.md, D45). The
// zero value is Hush's own look.
type Brand struct {
	Title          string // the name in the page title and the header; "" is "Hush"
	Tagline        string // under the heading of the create page
	Disclaimer     string // on the create page and the page that shows a secret
	HideFooterMenu bool   // hide the footer's links
	LightLogo      *Asset // logo for the light scheme; the dark one when nil
	DarkLogo       *Asset // logo for the dark scheme; the light one when nil
	Icons          []Icon
	CustomCSS      *Asset // a stylesheet linked after Hush's own (a file, never a URL)
	// Blur says which kinds show their payload blurred until the recipient
	// asks; nil is the default: text, and the message of a file push.
	Blur map[push.Kind]bool
}

// Asset is a logo, icon or stylesheet: an https URL, or content that the
// pages serve themselves under /static/brand/.
type Asset struct {
	URL  string // https URL on another host; "" for Body
	Body []byte
	Type string // Body's Content-Type
}

// Icon is a favicon or home-screen icon by Password Pusher's name for it:
// icon_16x16 … icon_192x192, or ms_icon_144x144.
type Icon struct {
	Name string
	*Asset
}

// brandView is what the layout shows of the brand.
type brandView struct {
	Title       string
	Tagline     string
	Disclaimer  string
	FooterMenu  bool
	LightLogo   string // src of the logo per scheme; "" none
	DarkLogo    string
	Icons       []iconLink
	TileImage   string // msapplication-TileImage
	DefaultIcon bool   // no favicon set: Hush's own
	CustomCSS   string // href
}

// iconLink is one <link> of an icon.
type iconLink struct {
	Rel, Sizes, Href, Type string
}

// servedAsset is a brand file the pages serve.
type servedAsset struct {
	body []byte
	typ  string
	etag string
}

// brandPath is where the brand files are served: under /static/, so that
// they are cached and not counted by the rate limit like the other assets.
const brandPath = "/static/brand/"

// setBrand prepares the brand for the pages: what the layout shows, the
// files served and the CSP, whose img-src names the logos' and icons'
// other origins (and only those).
func (s *Server) setBrand(b Brand) {
	s.assets = map[string]*servedAsset{}
	bb := &brandBuilder{assets: s.assets}
	v := brandView{Title: b.Title, Tagline: b.Tagline, Disclaimer: b.Disclaimer, FooterMenu: !b.HideFooterMenu, DefaultIcon: true}
	if v.Title == "" {
		v.Title = "Hush"
	}
	light, dark := cmp.Or(b.LightLogo, b.DarkLogo), cmp.Or(b.DarkLogo, b.LightLogo)
	v.LightLogo, v.DarkLogo = bb.src("light-logo", light), bb.src("dark-logo", dark)
	for _, i := range b.Icons {
		bb.icon(&v, i)
	}
	if b.CustomCSS != nil && b.CustomCSS.URL == "" {
		v.CustomCSS = bb.src("custom.css", b.CustomCSS)
	}
	s.brand = v
	s.csp = CSP
	if len(bb.origins) > 0 {
		s.csp += "; img-src 'self' " + strings.Join(bb.origins, " ")
	}
	s.blur = b.Blur
	if s.blur == nil {
		s.blur = map[push.Kind]bool{push.KindText: true, push.KindFile: true}
	}
}

// brandBuilder collects the brand's files and its images' other origins.
type brandBuilder struct {
	assets  map[string]*servedAsset
	origins []string
}

// src is where a page loads the asset from: its URL, or the path under
// which it is served (with a version, so that a new file is fetched anew);
// "" for none.
func (bb *brandBuilder) src(name string, a *Asset) string {
	if a == nil {
		return ""
	}
	if a.URL != "" {
		if o := originOf(a.URL); o != "" && !slices.Contains(bb.origins, o) {
			bb.origins = append(bb.origins, o)
		}
		return a.URL
	}
	sum := sha256.Sum256(a.Body)
	tag := hex.EncodeToString(sum[:8])
	bb.assets[name] = &servedAsset{body: a.Body, typ: a.Type, etag: `"` + tag + `"`}
	return brandPath + name + "?v=" + tag
}

// icon adds an icon to the view: a favicon, a home-screen icon or the
// Windows tile.
func (bb *brandBuilder) icon(v *brandView, i Icon) {
	href := bb.src(strings.ReplaceAll(i.Name, "_", "-"), i.Asset)
	size := i.Name[strings.LastIndexByte(i.Name, '_')+1:]
	typ := ""
	if i.URL == "" {
		typ = i.Type
	}
	switch {
	case strings.HasPrefix(i.Name, "ms_"):
		v.TileImage = href
	case size == "16x16" || size == "32x32" || size == "96x96" || size == "192x192":
		v.Icons = append(v.Icons, iconLink{Rel: "icon", Sizes: size, Href: href, Type: typ})
		v.DefaultIcon = false
	default:
		v.Icons = append(v.Icons, iconLink{Rel: "apple-touch-icon", Sizes: size, Href: href, Type: typ})
	}
}

// originOf is the https origin of a URL, or "".
func originOf(u string) string {
	rest, ok := strings.CutPrefix(u, "https://")
	if !ok {
		return ""
	}
	host, _, _ := strings.Cut(rest, "/")
	host, _, _ = strings.Cut(host, "?")
	host, _, _ = strings.Cut(host, "#")
	if host == "" || strings.ContainsAny(host, "@ ;,'\"") {
		return ""
	}
	return "https://" + strings.ToLower(host)
}

// brandCSP is the CSP of a served brand image: nothing in it runs, even
// when an SVG logo is opened on its own.
const brandCSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

// brandFile serves GET /static/brand/{name}: a logo, icon or the custom
// stylesheet, read at start, with its type and an ETag (the path's
// caching is the static assets').
func (s *Server) brandFile(w http.ResponseWriter, r *http.Request) {
	a, ok := s.assets[r.PathValue("name")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.typ)
	h.Set("ETag", a.etag)
	if strings.HasPrefix(a.typ, "image/") {
		h.Set("Content-Security-Policy", brandCSP)
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
