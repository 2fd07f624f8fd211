package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// The contract tests exchange every request through a client that checks
// the exchange against api/openapi.yaml, so the document cannot drift from
// the server:
//
//   - every response must be documented for its operation and status, and
//     match its schema (an unknown path or method: a 404/405 Error);
//   - a request the document forbids must be refused (4xx): the server may
//     never accept what the document calls invalid.
//
// Requests the document allows may still be refused (a 422 for a rule no
// schema states); only /api/v2/ exchanges are checked.

var openAPIDoc struct {
	once   sync.Once
	doc    *openapi3.T
	router routers.Router
	err    error
}

// loadOpenAPI loads and validates api/openapi.yaml once per test binary.
func loadOpenAPI(t testing.TB) (*openapi3.T, routers.Router) {
	t.Helper()
	d := &openAPIDoc
	d.once.Do(func() {
		y, err := os.ReadFile("../../api/openapi.yaml")
		if err != nil {
			d.err = err
			return
		}
		loader := openapi3.NewLoader()
		if d.doc, d.err = loader.LoadFromData(y); d.err != nil {
			return
		}
		if d.err = d.doc.Validate(context.Background()); d.err != nil {
			return
		}
		routed := *d.doc
		routed.Servers = nil // match paths on any host
		d.router, d.err = legacy.NewRouter(&routed)
		// A file part may claim any type ("*/*" in the document); the
		// validator decodes the types it knows, and takes these as files.
		for _, ct := range []string{"text/html", "text/javascript", "application/pdf"} {
			openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
		}
	})
	if d.err != nil {
		t.Fatalf("api/openapi.yaml: %v", d.err)
	}
	return d.doc, d.router
}

// checkingTransport validates every exchange it carries.
type checkingTransport struct {
	t    *testing.T
	base http.RoundTripper
}

func newCheckingClient(t *testing.T) *http.Client {
	loadOpenAPI(t)
	return &http.Client{Transport: &checkingTransport{t: t, base: http.DefaultTransport}}
}

func (c *checkingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		var err error
		if reqBody, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	res, err := c.base.RoundTrip(req)
	if err != nil {
		return res, err
	}
	resBody, err := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(resBody))
	if err != nil {
		return res, err
	}
	if problem := checkExchange(c.t, req, reqBody, res.StatusCode, res.Header, resBody); problem != "" {
		c.t.Errorf("OpenAPI: %s %s → %d: %s\nresponse: %.300s", req.Method, req.URL.Path, res.StatusCode, problem, resBody)
	}
	return res, nil
}

// checkExchange validates one request and its response against the
// document and returns what is wrong, or "".
func checkExchange(t testing.TB, req *http.Request, reqBody []byte, status int, header http.Header, resBody []byte) string {
	if !strings.HasPrefix(req.URL.Path, "/api/v2/") {
		return ""
	}
	doc, router := loadOpenAPI(t)
	ctx := context.Background()
	vreq := req.Clone(ctx)
	u := *req.URL
	u.Path = strings.TrimSuffix(u.Path, ".json") // every path takes .json (documented)
	u.RawPath = ""
	vreq.URL = &u
	vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	if vreq.Header.Get("Content-Type") == "" && len(reqBody) > 0 {
		vreq.Header.Set("Content-Type", "application/json") // documented: read as JSON
	}
	route, params, err := router.FindRoute(vreq)
	if u.Path == "/api/v2/openapi" {
		route, params, err = router.FindRoute(withPath(vreq, "/api/v2/openapi.json"))
	}
	for _, v := range params {
		if v == "" && err == nil {
			err = fmt.Errorf("empty path parameter") // the legacy router matches /pushes as /pushes/{url_token}
		}
	}
	if err != nil {
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			return fmt.Sprintf("undocumented path or method (%v) answered %d", err, status)
		}
		if req.Method == http.MethodHead {
			return ""
		}
		return checkSchema(doc, "Error", resBody)
	}
	in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	if reqErr := openapi3filter.ValidateRequest(ctx, in); reqErr != nil && status < 400 {
		return fmt.Sprintf("the server accepted a request the document forbids: %v", reqErr)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: header,
		Body: io.NopCloser(bytes.NewReader(resBody)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		return "response: " + err.Error()
	}
	return ""
}

func withPath(r *http.Request, path string) *http.Request {
	r2 := r.Clone(r.Context())
	u := *r.URL
	u.Path = path
	r2.URL = &u
	return r2
}

// checkSchema validates a JSON body against a component schema.
func checkSchema(doc *openapi3.T, name string, body []byte) string {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return "body is not JSON: " + err.Error()
	}
	ref := doc.Components.Schemas[name]
	if ref == nil {
		return "no schema " + name
	}
	if err := ref.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		return name + ": " + err.Error()
	}
	return ""
}
