// Package webhooktest is a webhook receiver for tests: an HTTP server in
// the test process that checks every request's signature as the Standard
// Webhooks specification tells a receiver to, written apart from Hush's
// signer.
package webhooktest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Receiver is a webhook endpoint. It answers 204 to a request whose
// signature verifies (or the statuses it was told, in order), 401 to one
// whose signature does not.
type Receiver struct {
	t     testing.TB
	clock func() time.Time
	srv   *httptest.Server
	up    *http.Server

	mu       sync.Mutex
	secret   string
	got      []Delivery // verified requests answered 2xx, in order
	forged   int        // requests whose signature did not verify
	statuses []int      // answers to give, in order, before 204s
	delay    time.Duration
}

// Delivery is a verified request.
type Delivery struct {
	ID, Timestamp string
	Body          []byte
	Event         map[string]any
}

// Type is the event's type.
func (d Delivery) Type() string { s, _ := d.Event["type"].(string); return s }

// Push is the event's data.push object.
func (d Delivery) Push() map[string]any {
	data, _ := d.Event["data"].(map[string]any)
	p, _ := data["push"].(map[string]any)
	return p
}

// Start starts a receiver; clock is what its timestamp check compares to.
func Start(t testing.TB, clock func() time.Time) *Receiver {
	r := &Receiver{t: t, clock: clock}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(func() {
		r.srv.Close()
		if r.up != nil {
			r.up.Close()
		}
	})
	return r
}

// URL is the receiver's base URL.
func (r *Receiver) URL() string { return r.srv.URL }

// Addr is the receiver's host:port.
func (r *Receiver) Addr() string { return r.srv.Listener.Addr().String() }

// Down closes the receiver and its connections: its address refuses.
func (r *Receiver) Down() { r.srv.Close() }

// Up serves again on the address it had; false when it cannot.
func (r *Receiver) Up() bool {
	ln, err := net.Listen("tcp", r.Addr())
	if err != nil {
		return false
	}
	r.up = &http.Server{Handler: http.HandlerFunc(r.serve)}
	go r.up.Serve(ln)
	return true
}

// SetSecret sets the endpoint's secret ("whsec_…").
func (r *Receiver) SetSecret(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = s
}

// Answer makes the receiver wait delay before each answer, and give the
// statuses in order before 204s.
func (r *Receiver) Answer(delay time.Duration, statuses ...int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.delay, r.statuses = delay, statuses
}

// Deliveries are the verified requests answered 2xx.
func (r *Receiver) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.got...)
}

// Forged counts the requests whose signature did not verify.
func (r *Receiver) Forged() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.forged
}

// Types lists the types of the deliveries, in order.
func (r *Receiver) Types() []string {
	var out []string
	for _, d := range r.Deliveries() {
		out = append(out, d.Type())
	}
	return out
}

// Verify checks a request as the specification tells a receiver to: the
// key is the base64 after "whsec_", the signed content is id "."
// timestamp "." body, the signature header holds space-separated
// "v1,<base64>" entries of which one must match (compared in constant
// time), and the timestamp must be within five minutes of now.
func Verify(secret string, h http.Header, body []byte, now time.Time) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return errors.New("missing webhook headers")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("timestamp is not unix seconds")
	}
	if d := now.Sub(time.Unix(sec, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return errors.New("timestamp outside the tolerance")
	}
	b64, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return errors.New("secret lacks whsec_")
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return err
	}
	mac := hmac.New(sha256.New, key)
	io.WriteString(mac, id+"."+ts+".")
	mac.Write(body)
	want := mac.Sum(nil)
	for _, s := range strings.Fields(sigs) {
		version, sig, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("no signature matches")
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	secret, delay := r.secret, r.delay
	status := http.StatusNoContent
	if len(r.statuses) > 0 {
		status, r.statuses = r.statuses[0], r.statuses[1:]
	}
	r.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-req.Context().Done():
			return
		}
	}
	if err := Verify(secret, req.Header, body, r.clock()); err != nil {
		r.mu.Lock()
		r.forged++
		r.mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var ev map[string]any
	if err := json.Unmarshal(body, &ev); err != nil {
		r.t.Errorf("webhook body is not JSON: %s", body)
	}
	if status >= 200 && status < 300 {
		r.mu.Lock()
		r.got = append(r.got, Delivery{ID: req.Header.Get("webhook-id"), Timestamp: req.Header.Get("webhook-timestamp"), Body: body, Event: ev})
		r.mu.Unlock()
	}
	w.WriteHeader(status)
}
