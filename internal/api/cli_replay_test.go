package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// replay sends one captured request (testdata/pwpush-cli, written by
// scripts/capture-pwpush-cli.py) byte for byte over a fresh connection,
// with the placeholders filled in, and reads the response.
func (h *harness) replay(name, apiToken, urlToken string) resp {
	h.t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "pwpush-cli", name+".http"))
	if err != nil {
		h.t.Fatal(err)
	}
	head, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		h.t.Fatalf("%s: no end of headers (CRLF line ends lost?)", name)
	}
	if i := bytes.Index(head, []byte("Content-Length: ")); i >= 0 {
		line, _, _ := bytes.Cut(head[i+len("Content-Length: "):], []byte("\r\n"))
		if n, _ := strconv.Atoi(string(line)); n != len(body) {
			h.t.Fatalf("%s: Content-Length %d but the body has %d bytes: the capture was altered", name, n, len(body))
		}
	}
	host := strings.TrimPrefix(h.url, "http://")
	raw = bytes.ReplaceAll(raw, []byte("{{HOST}}"), []byte(host))
	raw = bytes.ReplaceAll(raw, []byte("{{TOKEN}}"), []byte(apiToken))
	raw = bytes.ReplaceAll(raw, []byte("{{URL_TOKEN}}"), []byte(urlToken))
	sent, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
	if err != nil {
		h.t.Fatalf("%s: not an HTTP request: %v", name, err)
	}
	sentBody, _ := io.ReadAll(sent.Body)
	conn, err := net.Dial("tcp", host)
	if err != nil {
		h.t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := conn.Write(raw); err != nil {
		h.t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if problem := checkExchange(h.t, sent, sentBody, res.StatusCode, res.Header, b); problem != "" {
		h.t.Errorf("OpenAPI: %s: %s", name, problem)
	}
	return resp{status: res.StatusCode, header: res.Header, body: b}
}

// cliNumber decodes v the way the CLI needs it: a JSON integer.
func isJSONInt(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	_, err := n.Int64()
	return err == nil
}

func decodeNumbers(t *testing.T, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
}

// checkListForCLI checks what `pwpush list` reads from each item.
func checkListForCLI(t *testing.T, what string, r resp, want int) {
	t.Helper()
	wantStatus(t, what, r, 200)
	var items []map[string]any
	decodeNumbers(t, r.body, &items)
	if len(items) != want {
		t.Errorf("%s: %d items, want %d", what, len(items), want)
	}
	for _, it := range items {
		for _, k := range []string{"expire_after_views", "views_remaining", "expire_after_days", "days_remaining"} {
			if !isJSONInt(it[k]) {
				t.Errorf("%s: %s = %#v is not an integer", what, k, it[k])
			}
		}
		if _, err := time.Parse(time.RFC3339, it["created_at"].(string)); err != nil {
			t.Errorf("%s: created_at %v is not ISO 8601", what, it["created_at"])
		}
		for _, k := range []string{"url_token", "note", "deletable_by_viewer", "retrieval_step"} {
			if _, ok := it[k]; !ok {
				t.Errorf("%s: item without %s", what, k)
			}
		}
	}
}

// checkFields compares fields of a JSON object response.
func checkFields(t *testing.T, what string, r resp, want map[string]any) map[string]any {
	t.Helper()
	m := r.obj(t)
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s: %s = %#v, want %#v", what, k, m[k], v)
		}
	}
	return m
}

func checkAuditForCLI(t *testing.T, what string, r resp, key string) {
	t.Helper()
	wantStatus(t, what, r, 200)
	var body map[string][]map[string]any
	decodeNumbers(t, r.body, &body)
	entries := body[key]
	if len(entries) == 0 || entries[0]["kind"] != "creation" {
		t.Fatalf("%s: %s", what, r.body)
	}
	for _, e := range entries {
		if _, err := time.Parse(time.RFC3339, e["created_at"].(string)); err != nil {
			t.Errorf("%s: created_at %v", what, e["created_at"])
		}
		for _, k := range []string{"ip", "user_agent", "referrer"} {
			if _, ok := e[k].(string); !ok {
				t.Errorf("%s: %s = %#v", what, k, e[k])
			}
		}
	}
}

// TestPwpushCLIReplay replays every request of the official pwpush CLI, in
// the order of a session (probe, login, push, push-file, preview, audit,
// list, expire, then the legacy profile), and checks what the CLI reads.
func TestPwpushCLIReplay(t *testing.T) {
	h := newHarness(t, nil)
	api := h.user("cli@example.com")

	r := h.replay("01-version-probe", api, "")
	checkFields(t, "version probe", r, map[string]any{"api_version": "2.1"})
	wantStatus(t, "version probe", r, 200)
	checkListForCLI(t, "login", h.replay("02-login-active", api, ""), 0)

	r = h.replay("03-push-text", api, "")
	wantStatus(t, "push", r, 201)
	text := checkFields(t, "push", r, map[string]any{"kind": "text", "expire_after_views": 5.0, "expire_after_days": 14.0,
		"deletable_by_viewer": true, "retrieval_step": false, "passphrase": "open sesame", "note": "ticket 42", "name": "db password"})
	textTok := text["url_token"].(string)

	r = h.replay("04-push-text-flags", api, "")
	wantStatus(t, "push with flags", r, 201)
	checkFields(t, "push with flags", r, map[string]any{"expire_after_views": 3.0, "expire_after_days": 10.0,
		"deletable_by_viewer": true, "retrieval_step": true})

	r = h.replay("05-push-anonymous", "", "")
	wantStatus(t, "anonymous push", r, 201)

	r = h.replay("06-push-file", api, "")
	wantStatus(t, "push-file", r, 201)
	file := checkFields(t, "push-file", r, map[string]any{"kind": "file", "expire_after_views": 2.0, "expire_after_days": 7.0,
		"deletable_by_viewer": false, "retrieval_step": true, "note": "deploy key"})
	fileTok := file["url_token"].(string)
	got := h.do("GET", "/api/v2/pushes/"+fileTok, nil).obj(t)
	files, _ := got["files"].([]any)
	if got["payload"] != "" || len(files) != 1 {
		t.Fatalf("file push retrieve: %v", got)
	}
	f := files[0].(map[string]any)
	if f["filename"] != "secret.txt" || !strings.HasPrefix(f["content_type"].(string), "text/plain") {
		t.Errorf("uploaded file %v", f)
	}
	if dl := h.get(f["url"].(string)); string(dl.body) != "ssh-ed25519 AAAAC3Nza hush@example\n" {
		t.Errorf("download %d %q", dl.status, dl.body)
	}

	r = h.replay("07-preview", api, textTok)
	wantStatus(t, "preview", r, 200)
	checkFields(t, "preview", r, map[string]any{"url": h.url + "/p/" + textTok})
	checkAuditForCLI(t, "audit", h.replay("08-audit", api, textTok), "logs")
	checkListForCLI(t, "list", h.replay("09-list-active", api, ""), 3)
	checkListForCLI(t, "list --expired", h.replay("10-list-expired", api, ""), 0)

	r = h.replay("11-expire", api, textTok)
	wantStatus(t, "expire", r, 200)
	checkFields(t, "expire", r, map[string]any{"expired": true, "deleted": true})
	checkListForCLI(t, "list --expired after expire", h.replay("10-list-expired", api, ""), 1)

	checkListForCLI(t, "legacy list", h.replay("12-legacy-list", api, ""), 2)
	checkListForCLI(t, "legacy locale list", h.replay("13-legacy-locale-list", api, ""), 2)

	r = h.replay("14-legacy-push", api, "")
	wantStatus(t, "legacy push", r, 201)
	legacyTok := checkFields(t, "legacy push", r, map[string]any{"kind": "text", "expire_after_days": 7.0, "expire_after_views": 5.0,
		"deletable_by_viewer": true, "retrieval_step": false})["url_token"].(string)
	r = h.replay("15-legacy-push-file", api, "")
	wantStatus(t, "legacy push-file", r, 201)
	legacyFileTok := checkFields(t, "legacy push-file", r, map[string]any{"kind": "file", "expire_after_days": 2.0,
		"expire_after_views": 4.0})["url_token"].(string)

	r = h.replay("16-legacy-preview", api, legacyTok)
	wantStatus(t, "legacy preview", r, 200)
	checkFields(t, "legacy preview", r, map[string]any{"url": h.url + "/p/" + legacyTok})
	r = h.replay("17-legacy-file-preview", api, legacyFileTok)
	wantStatus(t, "legacy file preview", r, 200)
	checkFields(t, "legacy file preview", r, map[string]any{"url": h.url + "/p/" + legacyFileTok + "/r"})
	checkAuditForCLI(t, "legacy audit", h.replay("18-legacy-audit", api, legacyTok), "views")
	r = h.replay("19-legacy-expire", api, legacyTok)
	wantStatus(t, "legacy expire", r, 200)
	checkFields(t, "legacy expire", r, map[string]any{"expired": true})
}
