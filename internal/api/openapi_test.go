package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/oasdiff/yaml"
)

func TestOpenAPIJSONUpToDate(t *testing.T) {
	y, err := os.ReadFile("../../api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	j, err := yaml.YAMLToJSON(y)
	if err != nil {
		t.Fatal(err)
	}
	var fromYAML, embedded any
	if err := json.Unmarshal(j, &fromYAML); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(OpenAPI(), &embedded); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromYAML, embedded) {
		t.Fatal("internal/api/openapi.json differs from api/openapi.yaml: run go generate ./internal/api")
	}
	doc, _ := loadOpenAPI(t)
	if doc.OpenAPI != "3.1.0" || doc.Info.Version != APIVersion {
		t.Errorf("openapi %q, info.version %q (API %s)", doc.OpenAPI, doc.Info.Version, APIVersion)
	}
}

func TestOpenAPIServed(t *testing.T) {
	h := newHarness(t, nil)
	for _, path := range []string{"/api/v2/openapi.json", "/api/v2/openapi"} {
		r := h.do("GET", path, nil)
		wantStatus(t, path, r, 200)
		if !bytes.Equal(r.body, OpenAPI()) {
			t.Errorf("%s: not the embedded document", path)
		}
		if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("%s: Content-Type %q", path, ct)
		}
	}
}

// TestOpenAPICheckerCatchesDrift shows that the contract tests' checker
// fails on the drifts it is there to catch.
func TestOpenAPICheckerCatchesDrift(t *testing.T) {
	push := `{"expire_after_views":5,"expired":false,"url_token":"t","deletable_by_viewer":true,"retrieval_step":true,` +
		`"expired_on":null,"passphrase":"","created_at":"2026-01-01T01:00:00.000Z","updated_at":"2026-01-01T01:00:00.000Z",` +
		`"expire_after_days":7,"days_remaining":7,"views_remaining":5,"deleted":false,"json_url":"http://h/p/t/r.json",` +
		`"html_url":"http://h/p/t/r","kind":"text"`
	jsonCT := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	cases := []struct {
		name, method, path, reqBody string
		status                      int
		resBody                     string
		ok                          bool
	}{
		{"a documented create", "POST", "/api/v2/pushes", `{"push":{"payload":"x"}}`, 201, push + `,"note":"","name":""}`, true},
		{"the same, .json", "POST", "/api/v2/pushes.json", `{"push":{"payload":"x"}}`, 201, push + `,"note":"","name":""}`, true},
		{"an extra key", "POST", "/api/v2/pushes", `{"push":{"payload":"x"}}`, 201, push + `,"note":"","name":"","secret":1}`, false},
		{"a missing key", "POST", "/api/v2/pushes", `{"push":{"payload":"x"}}`, 201, push + `,"note":""}`, false},
		{"payload in a create", "POST", "/api/v2/pushes", `{"push":{"payload":"x"}}`, 201, push + `,"note":"","name":"","payload":"x"}`, false},
		{"an undocumented status", "GET", "/api/v2/pushes/t/preview", "", 418, `{"error":"x"}`, false},
		{"a bad error body", "GET", "/api/v2/pushes/t/preview", "", 404, `{"message":"x"}`, false},
		{"a forbidden request accepted", "POST", "/api/v2/pushes", `{"push":{"payload":"x","kind":"bogus"}}`, 201, push + `,"note":"","name":""}`, false},
		{"a forbidden request refused", "POST", "/api/v2/pushes", `{"push":{"payload":"x","kind":"bogus"}}`, 422, `{"kind":["is not included in the list"]}`, true},
		{"an unknown path", "GET", "/api/v2/nope", "", 404, `{"error":"Not Found"}`, true},
		{"an unknown path answered 200", "GET", "/api/v2/nope", "", 200, `{}`, false},
		{"a list item without note", "GET", "/api/v2/pushes/active", "", 200, `[` + push + `}]`, false},
		{"a bad timestamp", "DELETE", "/api/v2/pushes/t", "", 200, strings.Replace(push, "01:00:00.000Z", "01:00:00Z", 1) + `}`, false},
	}
	for _, c := range cases {
		req := httptest.NewRequest(c.method, "http://h"+c.path, strings.NewReader(c.reqBody))
		if c.reqBody != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		problem := checkExchange(t, req, []byte(c.reqBody), c.status, jsonCT, []byte(c.resBody))
		if (problem == "") != c.ok {
			t.Errorf("%s: problem %q, want ok=%v", c.name, problem, c.ok)
		}
	}
}
