package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hush/internal/push"
)

// pngBytes starts like every PNG file, which is what the check looks at.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")

func writeFile(t *testing.T, path string, body []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBrandDefaults(t *testing.T) {
	b := mustLoad(t, nil, nil).Brand
	if b.Title != "Hush" || !b.ShowFooterMenu || b.Tagline != "" || b.Disclaimer != "" ||
		b.LightLogo != nil || b.DarkLogo != nil || b.Icons != nil || b.CustomCSS != nil {
		t.Errorf("defaults: %+v", b)
	}
	if !b.Blur[push.KindText] || !b.Blur[push.KindFile] {
		t.Errorf("blur by default: %v, want text and files", b.Blur)
	}
}

func TestBrandSettings(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "brand", "light.png"), pngBytes)
	writeFile(t, filepath.Join(dir, "dark.svg"), []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>`))
	writeFile(t, filepath.Join(dir, "icon.png"), pngBytes)
	writeFile(t, filepath.Join(dir, "site.css"), []byte("body { color: teal }\n"))
	c := mustLoad(t, nil, map[string]string{
		"HUSH_DATA_DIR":                   dir,
		"PWP__BRAND__TITLE":               "Acme secrets",
		"PWP__BRAND__TAGLINE":             "Security first",
		"PWP__BRAND__DISCLAIMER":          "For Acme staff only.",
		"PWP__BRAND__SHOW_FOOTER_MENU":    "false",
		"PWP__BRAND__LIGHT_LOGO":          "brand/light.png",
		"PWP__BRAND__DARK_LOGO":           filepath.Join(dir, "dark.svg"),
		"PWP__BRAND__ICON_57x57":          "https://cdn.example.com/a/57.png",
		"PWP__BRAND__ICON_32X32":          "icon.png", // upper-case X names the same setting
		"PWP__BRAND__MS_ICON_144x144":     "https://Tiles.example.org/ms.png",
		"PWP__BRAND__ICON_16x16":          "https://cdn.example.com/16.png",
		"HUSH_CUSTOM_CSS":                 "site.css",
		"PWP__PW__ENABLE_BLUR":            "false",
		"PWP__FILES__ENABLE_BLUR":         "off",
		"PWP__BRAND__SOMETHING_ELSE_HERE": "ignored",
	})
	b := c.Brand
	if b.Title != "Acme secrets" || b.Tagline != "Security first" || b.Disclaimer != "For Acme staff only." || b.ShowFooterMenu {
		t.Errorf("text settings: %+v", b)
	}
	if b.LightLogo == nil || b.LightLogo.Type != "image/png" || string(b.LightLogo.Body) != string(pngBytes) {
		t.Errorf("light logo: %+v", b.LightLogo)
	}
	if b.DarkLogo == nil || b.DarkLogo.Type != "image/svg+xml" {
		t.Errorf("dark logo: %+v", b.DarkLogo)
	}
	var names []string
	for _, i := range b.Icons {
		names = append(names, i.Name+"="+i.URL+i.Type)
	}
	want := []string{"icon_57x57=https://cdn.example.com/a/57.png", "icon_32x32=image/png",
		"icon_16x16=https://cdn.example.com/16.png", "ms_icon_144x144=https://Tiles.example.org/ms.png"}
	if !slices.Equal(names, want) {
		t.Errorf("icons %v, want %v", names, want)
	}
	if b.CustomCSS == nil || b.CustomCSS.Type != "text/css; charset=utf-8" || !strings.Contains(string(b.CustomCSS.Body), "teal") {
		t.Errorf("custom CSS: %+v", b.CustomCSS)
	}
	if b.Blur[push.KindText] || b.Blur[push.KindFile] {
		t.Errorf("blur turned off: %v", b.Blur)
	}
	shown := map[string]string{}
	for _, s := range c.InForce() {
		shown[s.Name] = s.Value
	}
	if shown["PWP__BRAND__TITLE"] != "Acme secrets" || shown["PWP__BRAND__ICON_32X32"] == "" || shown["PWP__PW__ENABLE_BLUR"] != "false" {
		t.Errorf("admin overview: %v", shown)
	}
}

// TestBrandFilesRefused: a logo, icon or stylesheet that is not an image
// (or a stylesheet) in the data directory stops start-up with a message
// naming the variable and what is wrong.
func TestBrandFilesRefused(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "logo.png"), pngBytes)
	writeFile(t, filepath.Join(dir, "notes.png"), []byte("just some text, not a picture"))
	writeFile(t, filepath.Join(dir, "master.key"), []byte(strings.Repeat("ab", 32)+"\n"))
	writeFile(t, filepath.Join(dir, "files", "ab", "blob.png"), pngBytes)
	writeFile(t, filepath.Join(dir, "huge.png"), append(pngBytes, make([]byte, maxBrandFile)...))
	writeFile(t, filepath.Join(dir, "script.svg"), []byte("alert(1)"))
	if err := os.Symlink(filepath.Join(outside, "logo.png"), filepath.Join(dir, "link.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "adir.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, value, want string
	}{
		{"PWP__BRAND__LIGHT_LOGO", "../" + filepath.Base(outside) + "/logo.png", "outside the data directory"},
		{"PWP__BRAND__LIGHT_LOGO", filepath.Join(outside, "logo.png"), "outside the data directory"},
		{"PWP__BRAND__DARK_LOGO", "link.png", "outside the data directory"},
		{"PWP__BRAND__DARK_LOGO", "missing.png", "no such file"},
		{"PWP__BRAND__DARK_LOGO", "notes.png", "is not an image"},
		{"PWP__BRAND__DARK_LOGO", "script.svg", "is not an image"},
		{"PWP__BRAND__DARK_LOGO", "master.key", "is not an image"},
		{"PWP__BRAND__DARK_LOGO", "huge.png", "larger than"},
		{"PWP__BRAND__DARK_LOGO", "adir.png", "not a regular file"},
		{"PWP__BRAND__DARK_LOGO", ".", "outside the data directory"},
		{"PWP__BRAND__ICON_57x57", "files/ab/blob.png", "stored files"},
		{"PWP__BRAND__ICON_16x16", "http://cdn.example.com/16.png", "not an https:// URL"},
		{"PWP__BRAND__ICON_16x16", "https://user:pw@cdn.example.com/16.png", "not an https:// URL"},
		{"PWP__BRAND__ICON_16x16", "javascript://x", "not an https:// URL"},
		{"HUSH_CUSTOM_CSS", "master.key", "not a stylesheet"},
		{"HUSH_CUSTOM_CSS", "https://cdn.example.com/x.css", "not a URL"},
		{"PWP__BRAND__SHOW_FOOTER_MENU", "sometimes", "not a boolean"},
		{"PWP__PW__ENABLE_BLUR", "maybe", "not a boolean"},
	} {
		_, err := Load(nil, envMap(map[string]string{"HUSH_DATA_DIR": dir, tc.name: tc.value}))
		if err == nil || !strings.Contains(err.Error(), tc.name) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: %v, want an error naming it with %q", tc.name, tc.value, err, tc.want)
		}
	}
}
