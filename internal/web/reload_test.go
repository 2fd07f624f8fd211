package web

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

var stampRE = regexp.MustCompile(`name="stamp" value="([^"]*)"`)

// formStamp is the view stamp of the form in a page ("" when it has none).
func formStamp(t *testing.T, r resp) string {
	t.Helper()
	m := stampRE.FindStringSubmatch(r.body)
	if m == nil {
		t.Errorf("no stamp in the page:\n%s", r.body)
		return ""
	}
	return html.UnescapeString(m[1])
}

// viewCount is the push's view count as stored.
func (h *harness) viewCount(tok string) int {
	h.t.Helper()
	p, err := h.svc.Lookup(context.Background(), tok)
	if err != nil {
		h.t.Fatal(err)
	}
	return p.ViewCount
}

// TestReloadSpendsNoView: the same passphrase POST sent twice — a reload
// of the secret it showed — opens the secret once; the second answer
// explains and uses no view, and its button opens it again deliberately
// (docs/decisions.md, D47).
func TestReloadSpendsNoView(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	tok := h.create(nil, fields{"payload": "behind a door", "passphrase": "open sesame", "expire_after_views": "5"})
	form := url.Values{"passphrase": {"open sesame"}, "stamp": {formStamp(t, c.get("/p/"+tok+"/passphrase"))}}
	first := c.post("/p/"+tok+"/passphrase", form)
	first.expect(t, http.StatusOK)
	first.has(t, "behind a door")
	if n := h.viewCount(tok); n != 1 {
		t.Fatalf("after the first POST: %d views, want 1", n)
	}
	again := c.post("/p/"+tok+"/passphrase", form)
	again.expect(t, http.StatusConflict)
	again.has(t, "This secret was already opened here", "no view was used", "can be opened 4 more times",
		`action="/p/`+tok+`/passphrase"`, "Open the secret again (uses a view)")
	again.lacks(t, "behind a door")
	if n := h.viewCount(tok); n != 1 {
		t.Fatalf("after the re-post: %d views, want still 1", n)
	}
	// The stale page's own form opens it again, once.
	fresh := url.Values{"passphrase": {"open sesame"}, "stamp": {formStamp(t, again)}}
	c.post("/p/"+tok+"/passphrase", fresh).has(t, "behind a door")
	c.post("/p/"+tok+"/passphrase", fresh).expect(t, http.StatusConflict)
	if n := h.viewCount(tok); n != 2 {
		t.Fatalf("after opening again: %d views, want 2", n)
	}
	// A wrong passphrase with a stale stamp is a wrong passphrase: the
	// stale page is only for whoever can open the secret.
	c.post("/p/"+tok+"/passphrase", url.Values{"passphrase": {"nope"}, "stamp": form["stamp"]}).expect(t, http.StatusUnauthorized)
	// A forged or empty stamp opens nothing either.
	for _, st := range []string{"", "forged", formStamp(t, again) + "x"} {
		c.post("/p/"+tok+"/passphrase", url.Values{"passphrase": {"open sesame"}, "stamp": {st}}).expect(t, http.StatusConflict)
	}
	if n := h.viewCount(tok); n != 2 {
		t.Fatalf("after forged stamps: %d views, want 2", n)
	}
}

// TestRevealReloadSpendsNoView: the retrieval step's Reveal posted twice
// opens the secret once, and the page explains; the stale page's button
// opens it again. Concurrent posts of one stamp open it once.
func TestRevealReloadSpendsNoView(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	tok := h.create(nil, fields{"payload": "s3cret-value", "expire_after_views": "10", "retrieval_step": "true"})
	form := url.Values{"stamp": {formStamp(t, c.get("/p/"+tok+"/r"))}}
	c.post("/p/"+tok+"/r", form).has(t, "s3cret-value")
	again := c.post("/p/"+tok+"/r", form)
	again.expect(t, http.StatusConflict)
	again.has(t, "This secret was already opened here", "can be opened 9 more times", `action="/p/`+tok+`/r"`)
	again.lacks(t, "s3cret-value")
	if n := h.viewCount(tok); n != 1 {
		t.Fatalf("after the re-post: %d views, want 1", n)
	}
	stamp := formStamp(t, again)
	var wg sync.WaitGroup
	var mu sync.Mutex
	opened := 0
	for range 8 {
		wg.Go(func() {
			r := h.client().post("/p/"+tok+"/r", url.Values{"stamp": {stamp}})
			mu.Lock()
			defer mu.Unlock()
			switch r.status {
			case http.StatusOK:
				opened++
			case http.StatusConflict:
			default:
				t.Errorf("concurrent reveal: %d", r.status)
			}
		})
	}
	wg.Wait()
	if n := h.viewCount(tok); opened != 1 || n != 2 {
		t.Fatalf("8 concurrent posts of one stamp: %d opened, %d views; want 1 and 2", opened, n)
	}
	// The last view: a reload after it is the expired page.
	one := h.create(nil, fields{"payload": "once", "expire_after_views": "1", "retrieval_step": "true"})
	f1 := url.Values{"stamp": {formStamp(t, c.get("/p/"+one+"/r"))}}
	c.post("/p/"+one+"/r", f1).has(t, "once")
	c.post("/p/"+one+"/r", f1).has(t, "This secret link has expired")
}

// TestBrowserReloadSpendsNoView: in a browser, a recipient opens a
// passphrase secret and reloads the page (the browser sends the form
// again): the view count stays, the page explains, and its button opens
// the secret again with one more view (docs/decisions.md, D47). The same
// for the retrieval step's Reveal.
func TestBrowserReloadSpendsNoView(t *testing.T) {
	b := newBrowser(t)
	h := newHarness(t, nil)
	tok := h.create(nil, fields{"payload": "door code 4711", "passphrase": "blue whale", "expire_after_views": "5"})
	carol := b.person()
	b.do(carol, chromedp.Navigate(h.url+"/p/"+tok+"/r"), chromedp.WaitVisible(css("#reveal")),
		chromedp.Click(css("#reveal")), chromedp.WaitVisible(css("#passphrase")),
		chromedp.SendKeys(css("#passphrase"), "blue whale"),
		chromedp.Click(css("main form button[type=submit]")), chromedp.WaitVisible(css("#secret")))
	if n := h.viewCount(tok); n != 1 {
		t.Fatalf("after opening: %d views", n)
	}
	b.do(carol, chromedp.Reload(), chromedp.WaitVisible(css("h1")))
	if h1 := run(b, carol, chromedp.Text(css("h1"))); h1 != "This secret was already opened here" {
		t.Errorf("after a reload: %q", h1)
	}
	if n := h.viewCount(tok); n != 1 {
		t.Errorf("after a reload: %d views, want 1", n)
	}
	b.shot(carol, "stale")
	b.do(carol, chromedp.SendKeys(css("#passphrase"), "blue whale"),
		chromedp.Click(css("#view-again")), chromedp.WaitVisible(css("#secret")))
	if n := h.viewCount(tok); n != 2 {
		t.Errorf("after opening again: %d views, want 2", n)
	}

	tok2 := h.create(nil, fields{"payload": "plain secret", "expire_after_views": "5", "retrieval_step": "true"})
	dave := b.person()
	b.do(dave, chromedp.Navigate(h.url+"/p/"+tok2+"/r"), chromedp.WaitVisible(css("#reveal")),
		chromedp.Click(css("#reveal")), chromedp.WaitVisible(css("#secret")),
		chromedp.Reload(), chromedp.WaitVisible(css("#view-again")))
	if n := h.viewCount(tok2); n != 1 {
		t.Errorf("reveal, then reload: %d views, want 1", n)
	}
	b.do(dave, chromedp.Click(css("#view-again")), chromedp.WaitVisible(css("#secret")))
	if n := h.viewCount(tok2); n != 2 {
		t.Errorf("after opening again: %d views, want 2", n)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
