package web

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"hush/internal/push"
)

// schemeSVG is a logo of one colour, for the light or the dark scheme.
func schemeSVG(fill string) *Asset {
	return &Asset{Type: "image/svg+xml",
		Body: []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="` + fill + `"/></svg>`)}
}

// schemeState is what a page shows of its colour scheme: data-theme on
// <html>, the body's background, which logo is displayed, the switch.
type schemeState struct {
	Theme, Background, Light, Dark, Switch string
	SwitchHidden                           bool
}

const schemeJS = `(function(){
  var s = document.getElementById("theme"), box = document.getElementById("theme-switch");
  return {Theme: document.documentElement.getAttribute("data-theme") || "",
    Background: getComputedStyle(document.body).backgroundColor,
    Light: getComputedStyle(document.querySelector(".logo-light")).display,
    Dark: getComputedStyle(document.querySelector(".logo-dark")).display,
    Switch: s ? s.value : "", SwitchHidden: box ? box.hidden : true};
})()`

// Backgrounds of the two schemes (--bg in style.css).
const (
	lightBG = "rgb(246, 247, 249)"
	darkBG  = "rgb(21, 23, 26)"
)

func prefersScheme(t *testing.T, ctx context.Context, scheme string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
		t.Fatal(err)
	}
}

// choose picks a scheme in the footer's switch as a person does: a new
// value and the change event.
func choose(b *browser, ctx context.Context, v string) {
	b.t.Helper()
	run(b, ctx, chromedp.Evaluate[bool](`(function(){var s=document.getElementById("theme");s.value="`+v+`";s.dispatchEvent(new Event("change",{bubbles:true}));return true})()`))
}

// TestBrowserColourScheme: the footer's switch sets the scheme, the choice
// outlives a reload, the logos follow it, and "auto" follows the system.
// Without JavaScript the switch is hidden and the system decides.
func TestBrowserColourScheme(t *testing.T) {
	b := newBrowser(t)
	h := newHarness(t, func(o *Options, _ *push.Settings) {
		o.Brand = Brand{Title: "Acme", LightLogo: schemeSVG("#000"), DarkLogo: schemeSVG("#fff")}
	})
	state := func(ctx context.Context) schemeState {
		t.Helper()
		return run(b, ctx, chromedp.Evaluate[schemeState](schemeJS))
	}
	want := func(ctx context.Context, step string, w schemeState) {
		t.Helper()
		if got := state(ctx); got != w {
			t.Errorf("%s: %+v, want %+v", step, got, w)
		}
	}

	p := b.person()
	prefersScheme(t, p, "light")
	b.do(p, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("#theme")))
	want(p, "first visit", schemeState{"", lightBG, "inline", "none", "auto", false})

	choose(b, p, "dark")
	want(p, "dark chosen", schemeState{"dark", darkBG, "none", "inline", "dark", false})
	b.do(p, chromedp.Reload(), chromedp.WaitVisible(css("#theme")))
	want(p, "dark, reloaded", schemeState{"dark", darkBG, "none", "inline", "dark", false})
	b.do(p, chromedp.Navigate(h.url+"/users/sign_in"), chromedp.WaitVisible(css("#theme")))
	want(p, "dark, another page", schemeState{"dark", darkBG, "none", "inline", "dark", false})

	// Light wins over a dark system.
	prefersScheme(t, p, "dark")
	choose(b, p, "light")
	b.do(p, chromedp.Reload(), chromedp.WaitVisible(css("#theme")))
	want(p, "light chosen on a dark system", schemeState{"light", lightBG, "inline", "none", "light", false})

	// Auto follows the system, both ways.
	choose(b, p, "auto")
	want(p, "auto on a dark system", schemeState{"", darkBG, "none", "inline", "auto", false})
	if v := run(b, p, chromedp.Evaluate[string](`localStorage.getItem("hush-theme") || ""`)); v != "" {
		t.Errorf("auto keeps %q in localStorage, want nothing", v)
	}
	prefersScheme(t, p, "light")
	b.do(p, chromedp.Reload(), chromedp.WaitVisible(css("#theme")))
	want(p, "auto on a light system", schemeState{"", lightBG, "inline", "none", "auto", false})

	// Another person's browser has its own choice.
	q := b.person()
	prefersScheme(t, q, "light")
	choose(b, p, "dark")
	b.do(q, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("#theme")))
	want(q, "another browser", schemeState{"", lightBG, "inline", "none", "auto", false})

	// Without JavaScript: no switch, the system's scheme.
	n := b.person()
	if _, err := chromedp.Call(n, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	prefersScheme(t, n, "dark")
	b.do(n, chromedp.Navigate(h.url+"/"), chromedp.WaitReady(css("footer")))
	// Evaluate runs through the DevTools protocol even with page scripts off.
	want(n, "no JavaScript, dark system", schemeState{"", darkBG, "none", "inline", "auto", true})
	if vis := run(b, n, chromedp.Evaluate[bool](`document.getElementById("theme-switch").offsetParent !== null`)); vis {
		t.Error("the switch shows without JavaScript")
	}

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
