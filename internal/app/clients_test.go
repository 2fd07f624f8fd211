package app

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"hush/internal/client"
	"hush/internal/push"
)

// These tests drive the whole program the way Password Pusher's real
// clients do — the pwpush CLI, the MCP client, browser pages calling the
// API, the official browser extension, operators' probes and old links —
// one test per behaviour a client would see.

// TestClientLargestPayload: a payload of the maximum length in its worst
// JSON encoding (every character outside the Basic Multilingual Plane,
// escaped as a \uXXXX surrogate pair, 12 bytes each) fits the default body
// limit, and comes back whole.
func TestClientLargestPayload(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	var body bytes.Buffer
	body.WriteString(`{"push":{"expire_after_views":1,"payload":"`)
	body.WriteString(strings.Repeat(`\ud83d\udd11`, push.MaxTextPayload))
	body.WriteString(`"}}`)
	if body.Len() <= 12<<20 {
		t.Fatalf("the body is %d bytes, not the worst case", body.Len())
	}
	c := &client.Client{Base: srv.url}
	res, err := c.Do(context.Background(), "POST", "/api/v2/pushes", &body, http.Header{"Content-Type": {"application/json"}})
	if err != nil || res.Status != http.StatusCreated {
		t.Fatalf("create: %v %v %.200s", err, res.Status, res.Body)
	}
	var created client.Push
	if err := json.Unmarshal(res.Body, &created); err != nil {
		t.Fatal(err)
	}
	p, err := c.Retrieve(context.Background(), created.URLToken, "")
	if err != nil || p.Payload == nil || *p.Payload != strings.Repeat("🔑", push.MaxTextPayload) {
		t.Fatalf("retrieve: %v, payload of %d bytes", err, len(deref(p.Payload)))
	}
	// One character more is refused as too long, not as too large a body.
	body.Reset()
	body.WriteString(`{"push":{"payload":"` + strings.Repeat(`\ud83d\udd11`, push.MaxTextPayload+1) + `"}}`)
	res, err = c.Do(context.Background(), "POST", "/api/v2/pushes", &body, http.Header{"Content-Type": {"application/json"}})
	if err != nil || res.Status != http.StatusUnprocessableEntity || !strings.Contains(string(res.Body), "payload is too large") {
		t.Fatalf("one character more: %v %d %.200s", err, res.Status, res.Body)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
