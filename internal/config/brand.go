package config

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"hush/internal/push"
)

// Brand is how an operator brands the pages: Password Pusher's
// PWP__BRAND__… settings, HUSH_CUSTOM_CSS and the per-kind blur
// (docs/decisions.md, D45). Every file it names is read and checked at
// start, so that a bad one stops start-up instead of failing a page later.
type Brand struct {
	Title          string // PWP__BRAND__TITLE: the page title and the header's name
	Tagline        string // PWP__BRAND__TAGLINE: under the heading of the create page; "" none
	Disclaimer     string // PWP__BRAND__DISCLAIMER: on the create and secret pages; "" none
	ShowFooterMenu bool   // PWP__BRAND__SHOW_FOOTER_MENU
	LightLogo      *BrandAsset
	DarkLogo       *BrandAsset
	Icons          []BrandIcon        // the icons set, in brandIcons order
	CustomCSS      *BrandAsset        // HUSH_CUSTOM_CSS, or nil
	Blur           map[push.Kind]bool // PWP__PW__ENABLE_BLUR, PWP__FILES__ENABLE_BLUR
}

// BrandAsset is a logo, icon or stylesheet: an https URL on another host,
// or a file of the data directory that Hush serves itself.
type BrandAsset struct {
	Setting string // the variable it came from
	URL     string // the https URL, or "" for a file
	Path    string // the file it was read from
	Body    []byte // the file's content
	Type    string // its Content-Type
}

// BrandIcon is one of the favicon and home-screen icons.
type BrandIcon struct {
	Name string // Password Pusher's key: icon_57x57 … icon_192x192, ms_icon_144x144
	*BrandAsset
}

// maxBrandFile bounds a logo, icon or stylesheet: they are held in memory.
const maxBrandFile = 1 << 20

// brandIcons are Password Pusher's icon keys; PWP__BRAND__<KEY upper-cased
// but for the x> is the variable ("PWP__BRAND__ICON_57x57").
var brandIcons = []string{
	"icon_57x57", "icon_60x60", "icon_72x72", "icon_76x76", "icon_114x114", "icon_120x120",
	"icon_144x144", "icon_152x152", "icon_180x180", "icon_192x192", "icon_32x32", "icon_96x96",
	"icon_16x16", "ms_icon_144x144",
}

// iconVar is the variable of an icon key: upper case but for the "x" of
// the size, as Password Pusher documents it.
func iconVar(key string) string {
	name, size, _ := strings.Cut(key, "_icon_")
	if size == "" {
		return "PWP__BRAND__ICON_" + strings.TrimPrefix(key, "icon_")
	}
	return "PWP__BRAND__" + strings.ToUpper(name) + "_ICON_" + size
}

// defaultBrand is the brand of an instance that sets nothing.
func defaultBrand() Brand {
	return Brand{Title: "Hush", ShowFooterMenu: true, Blur: map[push.Kind]bool{push.KindText: true, push.KindFile: true}}
}

// loadBrand reads the branding settings; it needs c.DataDir.
func loadBrand(s *source, c *Config) error {
	b := defaultBrand()
	errs := []error{loadBrandText(s, &b)}
	var err error
	if b.LightLogo, err = brandAsset(s, "PWP__BRAND__LIGHT_LOGO", c.DataDir, false); err != nil {
		errs = append(errs, err)
	}
	if b.DarkLogo, err = brandAsset(s, "PWP__BRAND__DARK_LOGO", c.DataDir, false); err != nil {
		errs = append(errs, err)
	}
	for _, key := range brandIcons {
		v := iconVar(key)
		if _, _, ok := s.env(v); !ok {
			v = strings.ToUpper(v) // PWP__BRAND__ICON_57X57 names the same setting
		}
		a, err := brandAsset(s, v, c.DataDir, false)
		switch {
		case err != nil:
			errs = append(errs, err)
		case a != nil:
			b.Icons = append(b.Icons, BrandIcon{Name: key, BrandAsset: a})
		}
	}
	if b.CustomCSS, err = brandAsset(s, "HUSH_CUSTOM_CSS", c.DataDir, true); err != nil {
		errs = append(errs, err)
	} else if b.CustomCSS != nil && b.CustomCSS.URL != "" {
		errs = append(errs, fmt.Errorf("HUSH_CUSTOM_CSS: must be a file in the data directory, not a URL (the pages load styles from their own origin only)"))
	}
	c.Brand = b
	return errors.Join(errs...)
}

// loadBrandText reads the brand's words and switches.
func loadBrandText(s *source, b *Brand) error {
	for _, t := range []struct {
		name string
		dst  *string
	}{{"PWP__BRAND__TITLE", &b.Title}, {"PWP__BRAND__TAGLINE", &b.Tagline}, {"PWP__BRAND__DISCLAIMER", &b.Disclaimer}} {
		if v, _, ok := s.env(t.name); ok {
			*t.dst = v
		}
	}
	var errs []error
	flag := func(name string, set func(bool)) {
		if v, _, ok := s.env(name); ok {
			on, err := parseBool(name, v)
			if err != nil {
				errs = append(errs, err)
			}
			set(on)
		}
	}
	flag("PWP__BRAND__SHOW_FOOTER_MENU", func(on bool) { b.ShowFooterMenu = on })
	flag("PWP__PW__ENABLE_BLUR", func(on bool) { b.Blur[push.KindText] = on })
	flag("PWP__FILES__ENABLE_BLUR", func(on bool) { b.Blur[push.KindFile] = on })
	return errors.Join(errs...)
}

// brandAsset reads the logo, icon or stylesheet the variable name names:
// nil when it is unset.
func brandAsset(s *source, name, dataDir string, css bool) (*BrandAsset, error) {
	v, _, ok := s.env(name)
	if !ok {
		return nil, nil
	}
	if strings.Contains(v, "://") {
		u, err := url.Parse(v)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
			return nil, fmt.Errorf("%s: %q is not an https:// URL (or a file in the data directory)", name, v)
		}
		return &BrandAsset{Setting: name, URL: u.String()}, nil
	}
	path, err := inDataDir(v, dataDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	body, err := readSmall(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	a := &BrandAsset{Setting: name, Path: path, Body: body}
	if css {
		// Only a .css file: the data directory also holds the master key
		// and the database, which must never be served.
		if !strings.EqualFold(filepath.Ext(path), ".css") || !utf8.Valid(body) || bytes.IndexByte(body, 0) >= 0 {
			return nil, fmt.Errorf("%s: %s is not a stylesheet (a UTF-8 text file named *.css)", name, path)
		}
		a.Type = "text/css; charset=utf-8"
		return a, nil
	}
	if a.Type = imageType(path, body); a.Type == "" {
		return nil, fmt.Errorf("%s: %s is not an image (PNG, JPEG, GIF, WebP, ICO, or SVG named *.svg)", name, path)
	}
	return a, nil
}

// inDataDir resolves a path (relative ones are taken from the data
// directory) and refuses one outside the data directory, symbolic links
// followed, or one in its files/ directory of stored uploads.
func inDataDir(v, dataDir string) (string, error) {
	dir, err := filepath.Abs(dataDir)
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return "", fmt.Errorf("the data directory %s: %w", dataDir, err)
	}
	p := v
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s: no such file", p)
		}
		return "", fmt.Errorf("%s: %w", p, err)
	}
	rel, err := filepath.Rel(dir, real)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the data directory %s", v, dir)
	}
	if first, _, _ := strings.Cut(filepath.ToSlash(rel), "/"); first == "files" {
		return "", fmt.Errorf("%s is among the stored files of %s/files", v, dir)
	}
	return real, nil
}

// readSmall reads a regular file of at most maxBrandFile bytes.
func readSmall(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > maxBrandFile {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxBrandFile)
	}
	return os.ReadFile(path)
}

// imageType is the Content-Type of an image file by its content (an SVG
// also by its name), or "" for anything else.
func imageType(path string, body []byte) string {
	switch t := http.DetectContentType(body); t {
	case "image/png", "image/jpeg", "image/gif", "image/webp", "image/x-icon", "image/bmp", "image/avif":
		return t
	}
	if strings.EqualFold(filepath.Ext(path), ".svg") && utf8.Valid(body) {
		head := body[:min(len(body), 4096)]
		if bytes.Contains(head, []byte("<svg")) {
			return "image/svg+xml"
		}
	}
	return ""
}

// brandUsage lists the branding settings for Usage.
func brandUsage() []usageRow {
	return []usageRow{
		{"PWP__BRAND__TITLE", "", "Hush", "the name in the page title and the header"},
		{"PWP__BRAND__TAGLINE", "", "(none)", "a line under the heading of the create page"},
		{"PWP__BRAND__DISCLAIMER", "", "(none)", "a notice on the create page and on the page that shows a secret"},
		{"PWP__BRAND__SHOW_FOOTER_MENU", "", "true", "false hides the footer's links"},
		{"PWP__BRAND__LIGHT_LOGO", "", "(none)", "logo for the light scheme: an https:// URL or an image file in the data directory"},
		{"PWP__BRAND__DARK_LOGO", "", "(none)", "logo for the dark scheme (the light one when unset), as above"},
		{"PWP__BRAND__ICON_<W>x<H>", "", "(none)", "favicons and home-screen icons 16x16 … 192x192, and PWP__BRAND__MS_ICON_144x144, as above"},
		{"HUSH_CUSTOM_CSS", "", "(none)", "a *.css file in the data directory, loaded after Hush's own stylesheet"},
		{"PWP__PW__ENABLE_BLUR", "", "true", "blur a text secret until the recipient shows it"},
		{"PWP__FILES__ENABLE_BLUR", "", "true", "blur the message of a file push until the recipient shows it"},
	}
}

// brandShown is the branding in force, for the admin overview.
func (c *Config) brandShown() []Setting {
	b := &c.Brand
	asset := func(a *BrandAsset) string {
		switch {
		case a == nil:
			return "none"
		case a.URL != "":
			return a.URL
		}
		return a.Path
	}
	out := []Setting{
		{"PWP__BRAND__TITLE", b.Title},
		{"PWP__BRAND__TAGLINE", orNone(b.Tagline, "none")},
		{"PWP__BRAND__DISCLAIMER", orNone(b.Disclaimer, "none")},
		{"PWP__BRAND__SHOW_FOOTER_MENU", fmt.Sprint(b.ShowFooterMenu)},
		{"PWP__BRAND__LIGHT_LOGO", asset(b.LightLogo)},
		{"PWP__BRAND__DARK_LOGO", asset(b.DarkLogo)},
	}
	for _, i := range b.Icons {
		out = append(out, Setting{i.Setting, asset(i.BrandAsset)})
	}
	return append(out,
		Setting{"HUSH_CUSTOM_CSS", asset(b.CustomCSS)},
		Setting{"PWP__PW__ENABLE_BLUR", fmt.Sprint(b.Blur[push.KindText])},
		Setting{"PWP__FILES__ENABLE_BLUR", fmt.Sprint(b.Blur[push.KindFile])})
}
