package app

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPassphraseTimingReport measures, and reports rather than judges, how
// long the API takes to answer a wrong passphrase, a right one, a missing
// one, and a push that does not exist; the sign-in equivalents are timed
// in internal/web. A wrong and a right passphrase cost the same Argon2id
// derivation (the check is a decryption, never an early-exit compare). A
// push that does not exist answers 404 at once: the status already tells
// it apart from a 401, as the Password Pusher API does, and only someone
// holding a 128-bit token can ask.
func TestPassphraseTimingReport(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_TRUSTED_PROXIES": "127.0.0.1"}
	srv := startServe(t, env)
	const rounds = 12
	var toks []string
	for range rounds {
		status, obj := call(t, "POST", srv.url+"/api/v2/pushes", map[string]any{"push": map[string]any{
			"payload": "timed", "passphrase": "the right phrase", "expire_after_views": 100}})
		if status != 201 {
			t.Fatalf("create: %d", status)
		}
		toks = append(toks, obj.(map[string]any)["url_token"].(string))
	}
	measure := func(what string, want int, path func(i int) string) time.Duration {
		var ds []time.Duration
		for i := range rounds {
			req, _ := http.NewRequest("GET", srv.url+path(i), nil)
			// A fresh client address each time, under the guessing limit.
			req.Header.Set("X-Forwarded-For", fmt.Sprintf("192.0.2.%d", len(what)*rounds+i))
			start := time.Now()
			res, err := http.DefaultClient.Do(req)
			d := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != want {
				t.Fatalf("%s: status %d, want %d", what, res.StatusCode, want)
			}
			ds = append(ds, d)
		}
		slices.Sort(ds)
		med := ds[len(ds)/2]
		t.Logf("%-22s status %d  median %8v  min %8v  max %8v", what, want, med.Round(time.Microsecond),
			ds[0].Round(time.Microsecond), ds[len(ds)-1].Round(time.Microsecond))
		return med
	}
	q := func(p string) string { return "?passphrase=" + strings.ReplaceAll(p, " ", "+") }
	wrong := measure("wrong passphrase", 401, func(i int) string { return "/api/v2/pushes/" + toks[i] + q("a wrong phrase") })
	right := measure("right passphrase", 200, func(i int) string { return "/api/v2/pushes/" + toks[i] + q("the right phrase") })
	measure("missing passphrase", 401, func(i int) string { return "/api/v2/pushes/" + toks[i] })
	none := measure("no such push", 404, func(i int) string { return "/api/v2/pushes/nosuchpush" + fmt.Sprint(i) + q("a wrong phrase") })
	t.Logf("wrong/right passphrase median ratio %.2f; wrong passphrase vs no such push: %v apart (different statuses by design)",
		float64(wrong)/float64(right), (wrong - none).Round(time.Microsecond))
}
