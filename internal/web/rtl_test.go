package web

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"hush/internal/push"
)

// rtlState is what a page in Chromium says of its direction and width.
type rtlState struct {
	Dir         string `json:"dir"`
	BodyDir     string `json:"bodyDir"`
	ScrollWidth int    `json:"scrollWidth"`
	InnerWidth  int    `json:"innerWidth"`
	H1          string `json:"h1"`
	Main        string `json:"main"` // main's text, the secret left out
}

const rtlStateJS = `(function(){var m=document.querySelector("main").cloneNode(true);
m.querySelectorAll("#secret").forEach(function(e){e.remove()});
return {dir:document.documentElement.dir,bodyDir:getComputedStyle(document.body).direction,
scrollWidth:document.documentElement.scrollWidth,innerWidth:innerWidth,
h1:document.querySelector("h1").textContent,main:m.innerText}})()`

// arabicLetters and latinLetters tell Arabic text from English left on a
// page.
var (
	arabicLetters = regexp.MustCompile(`\p{Arabic}`)
	latinLetters  = regexp.MustCompile(`[A-Za-z]`)
)

// checkRTLPage asserts that the page in ctx is right to left, in Arabic
// (an h1 of want, no Latin letter in main but the secret), and no wider
// than the screen on a phone and on a desktop.
func checkRTLPage(t *testing.T, b *browser, ctx context.Context, name, want string) {
	t.Helper()
	for _, v := range []axeVariant{{"phone", false, true}, {"desktop", false, false}} {
		if err := setVariant(ctx, v); err != nil {
			t.Fatal(err)
		}
		s := run(b, ctx, chromedp.Evaluate[rtlState](rtlStateJS))
		if s.Dir != "rtl" || s.BodyDir != "rtl" {
			t.Errorf("%s (%s): dir %q, computed direction %q", name, v.name, s.Dir, s.BodyDir)
		}
		if s.ScrollWidth > s.InnerWidth {
			t.Errorf("%s (%s): %d px wide on a %d px screen", name, v.name, s.ScrollWidth, s.InnerWidth)
		}
		if s.H1 != want || !arabicLetters.MatchString(s.Main) || latinLetters.MatchString(s.Main) {
			t.Errorf("%s (%s): h1 %q, main %q: want Arabic with the h1 %q", name, v.name, s.H1, s.Main, want)
		}
	}
	b.shot(ctx, "ar-"+name)
}

// glyphOrder returns the horizontal positions of the first and the last
// character of an element's text as the browser draws them.
const glyphOrderJS = `(function(id){var n=document.getElementById(id).firstChild,r=document.createRange();
r.setStart(n,0);r.setEnd(n,1);var first=r.getBoundingClientRect().left;
r.setStart(n,n.length-1);r.setEnd(n,n.length);var last=r.getBoundingClientRect().left;
return [first,last]})`

// TestBrowserArabicRecipient: a recipient opens an Arabic link to a secret
// behind a retrieval step and a passphrase in Chromium. Every page is
// right to left, in Arabic and no wider than a phone's screen or a
// desktop's; the secret, a password in Latin letters, stays left to right
// inside the Arabic page (its last character drawn right of its first),
// while a secret written in Arabic runs right to left.
func TestBrowserArabicRecipient(t *testing.T) {
	b := newBrowser(t)
	h := newHarness(t, nil)
	secret := "Wi-Fi: guest-network / p@ss-word 2024!"
	tok := h.create(nil, fields{"payload": secret, "passphrase": "افتح يا سمسم", "retrieval_step": "true",
		"push_locale": "ar", "expire_after_views": "3"})
	p, err := h.svc.Lookup(t.Context(), tok)
	if err != nil || p.Locale != "ar" {
		t.Fatalf("push locale %q %v", p.Locale, err)
	}
	link := push.LocaleURL(h.url, p.Locale, tok, true)
	if !strings.Contains(link, "/ar/p/"+tok+"/r") {
		t.Fatalf("link %q", link)
	}
	bob := b.person()
	b.do(bob, chromedp.Navigate(link), chromedp.WaitVisible(css("#reveal")))
	checkRTLPage(t, b, bob, "retrieval-step", "أُرسل إليك سر")
	b.do(bob, chromedp.Click(css("#reveal")), chromedp.WaitVisible(css("#passphrase")))
	checkRTLPage(t, b, bob, "passphrase", "عبارة المرور مطلوبة")
	if loc := run(b, bob, chromedp.Evaluate[string](`location.pathname`)); loc != "/ar/p/"+tok+"/passphrase" {
		t.Errorf("passphrase page at %q", loc)
	}
	b.do(bob, chromedp.SendKeys(css("#passphrase"), "خطأ"), chromedp.Click(css("main button[type=submit]")),
		chromedp.WaitVisible(css("#form-error")))
	checkRTLPage(t, b, bob, "wrong-passphrase", "عبارة المرور مطلوبة")
	if got := run(b, bob, chromedp.TextContent(css("#form-error"))); got != "عبارة المرور غير صحيحة. يُرجى المحاولة مرة أخرى." {
		t.Errorf("wrong passphrase: %q", got)
	}
	b.do(bob, chromedp.SendKeys(css("#passphrase"), "افتح يا سمسم"), chromedp.Click(css("main button[type=submit]")),
		chromedp.WaitVisible(css("#secret")))
	checkRTLPage(t, b, bob, "secret", "السر المُرسَل إليك")
	if got := run(b, bob, chromedp.TextContent(css("#secret"))); got != secret {
		t.Errorf("secret %q", got)
	}
	expiry := run(b, bob, chromedp.TextContent(css(".expiry")))
	copyLabel := run(b, bob, chromedp.TextContent(css("[data-copy]")))
	if !strings.Contains(expiry, "بعد ٧ أيام أو بعد مشاهدتين أخريين") || copyLabel != "نسخ إلى الحافظة" {
		t.Errorf("expiry %q, copy %q", expiry, copyLabel)
	}
	// The password reads left to right: drawn right to left, its "!"
	// would stand left of its "W".
	dir := run(b, bob, chromedp.Evaluate[string](`getComputedStyle(document.getElementById("secret")).direction`))
	pos := run(b, bob, chromedp.Evaluate[[]float64](glyphOrderJS+`("secret")`))
	if dir != "ltr" || len(pos) != 2 || pos[1] <= pos[0] {
		t.Errorf("Latin secret in an Arabic page: direction %q, first and last character at %v", dir, pos)
	}

	// A secret written in Arabic runs right to left.
	arabic := "كلمة المرور هي: سر"
	tok2 := h.create(nil, fields{"payload": arabic, "push_locale": "ar"})
	b.do(bob, chromedp.Navigate(h.url+"/ar/p/"+tok2), chromedp.WaitVisible(css("#secret")))
	dir = run(b, bob, chromedp.Evaluate[string](`getComputedStyle(document.getElementById("secret")).direction`))
	pos = run(b, bob, chromedp.Evaluate[[]float64](glyphOrderJS+`("secret")`))
	if dir != "rtl" || len(pos) != 2 || pos[1] >= pos[0] {
		t.Errorf("Arabic secret: direction %q, first and last character at %v", dir, pos)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// TestBrowserRTLSides: the parts of a page that sit on one side do so by
// logical side, so in Arabic they mirror: the notice's bar is on the
// right, the create form's character counter on the left (its end), and
// the secret link in its field stays left to right.
func TestBrowserRTLSides(t *testing.T) {
	b := newBrowser(t)
	h := newHarness(t, nil)
	tok := h.create(nil, fields{"payload": "x", "passphrase": "p"})
	p := b.person()
	for _, c := range []struct{ dir, prefix, bar, counter string }{
		{"ltr", "/en", "left", "right"}, {"rtl", "/ar", "right", "left"},
	} {
		b.do(p, chromedp.Navigate(h.url+c.prefix+"/p/"+tok+"/preview"), chromedp.WaitVisible(css(".notice")))
		got := run(b, p, chromedp.Evaluate[string](`(function(){var s=getComputedStyle(document.querySelector(".notice"));
return document.documentElement.dir+" "+(s.borderLeftWidth==="4px"?"left":s.borderRightWidth==="4px"?"right":"none")+" "+
getComputedStyle(document.getElementById("secret-url")).direction})()`))
		if want := c.dir + " " + c.bar + " ltr"; got != want {
			t.Errorf("%s preview: direction, notice bar and link field %q, want %q", c.prefix, got, want)
		}
		b.do(p, chromedp.Navigate(h.url+c.prefix+"/"), chromedp.WaitVisible(css("#payload-count")))
		side := run(b, p, chromedp.Evaluate[string](`(function(){var e=document.getElementById("payload-count"),r=document.createRange();
r.selectNodeContents(e);var t=r.getBoundingClientRect(),box=e.getBoundingClientRect();
return t.width>0&&t.width<box.width-20?(t.left-box.left<2?"left":box.right-t.right<2?"right":"middle"):"unmeasurable"})()`))
		if side != c.counter {
			t.Errorf("%s create page: the counter's text sits %s, want %s", c.prefix, side, c.counter)
		}
	}
}
