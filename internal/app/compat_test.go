package app

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServeMountsV1 checks that the whole program answers the legacy JSON
// paths and the v1 version, and never logs a token from them.
func TestServeMountsV1(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	code, v := call(t, "GET", srv.url+"/api/v1/version.json", nil)
	if code != 200 || v.(map[string]any)["api_version"] != "1.5" {
		t.Fatalf("v1 version: %d %v", code, v)
	}
	code, v = call(t, "POST", srv.url+"/p.json", map[string]any{"password": map[string]any{"payload": "x"}})
	if code != 201 {
		t.Fatalf("POST /p.json: %d %v", code, v)
	}
	m := v.(map[string]any)
	tok := m["url_token"].(string)
	code, v = call(t, "GET", m["json_url"].(string), nil)
	if code != 200 || v.(map[string]any)["payload"] != "x" {
		t.Fatalf("GET json_url: %d %v", code, v)
	}
	res, err := http.Get(srv.url + "/help/api")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(page), "POST /api/v2/pushes") {
		t.Errorf("/help/api: %d", res.StatusCode)
	}
	srv.stop(t)
	if strings.Contains(srv.log.String(), tok) {
		t.Errorf("a url_token reached the log:\n%s", srv.log.String())
	}
	if !strings.Contains(srv.log.String(), "/p/:token/r.json") {
		t.Errorf("the v1 retrieve was not logged with its token hidden:\n%s", srv.log.String())
	}
}
