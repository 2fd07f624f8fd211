package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// client sends the API requests of the scenarios. It keeps per-request work
// small (prebuilt bodies, a reused read buffer per worker, byte searches
// instead of JSON decoding) so that the load generator, on its one CPU,
// stays lighter than the server it measures.
type client struct {
	bases   []string // scheme://host:port of each server, taken in turn
	next    atomic.Uint64
	hc      *http.Client
	api     dialect
	payload string // what a create sends as the secret: the payload, or Yopass's armored message
	shown   []byte // the secret as a retrieve answers it: `"payload":"…"` or `"message":"…"`
}

// Dialects: the APIs hush-bench speaks.
const (
	dialectPwpush = "pwpush" // Password Pusher API v2: Hush and the baseline
	dialectYopass = "yopass" // Yopass's own API
)

// dialect is what differs between the APIs.
type dialect struct {
	name         string
	createPath   string
	createStatus int    // the status of a successful create
	tokenKey     string // what precedes the token in a create's answer
	retrievePath string // the token follows
	readyPath    string // answers 200 once the server (and its database) can serve
	passphrases  bool   // whether the server takes a passphrase
}

var dialects = map[string]dialect{
	dialectPwpush: {name: dialectPwpush, createPath: "/api/v2/pushes", createStatus: http.StatusCreated,
		tokenKey: `"url_token":"`, retrievePath: "/api/v2/pushes/", readyPath: "/api/v2/version", passphrases: true},
	dialectYopass: {name: dialectYopass, createPath: "/create/secret", createStatus: http.StatusOK,
		tokenKey: `"message":"`, retrievePath: "/secret/", readyPath: "/ready"},
}

// newClient returns a client of the servers at bases (at least one)
// speaking dialect name (pwpush when unknown).
func newClient(bases []string, conns, payloadBytes int, name string) *client {
	tr := &http.Transport{
		Proxy:               nil, // loopback only: never through a proxy
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        2 * conns,
		MaxIdleConnsPerHost: 2 * conns,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}
	c := &client{
		bases:   bases,
		hc:      &http.Client{Transport: tr, Timeout: 30 * time.Second},
		api:     dialects[dialectPwpush],
		payload: makePayload(payloadBytes),
	}
	if name == dialectYopass {
		c.api = dialects[dialectYopass]
		c.payload = pgpMessage(payloadBytes)
		quoted, _ := json.Marshal(c.payload)
		c.shown = append([]byte(`"message":`), quoted...)
	} else {
		c.shown = []byte(`"payload":"` + c.payload + `"`)
	}
	return c
}

// base returns the server for the next request: each in turn.
func (c *client) base() string {
	if len(c.bases) == 1 {
		return c.bases[0]
	}
	return c.bases[(c.next.Add(1)-1)%uint64(len(c.bases))]
}

func (c *client) close() { c.hc.CloseIdleConnections() }

// makePayload returns n bytes of letters and digits: JSON needs no escapes
// for them, so the payload can be found verbatim in a response.
func makePayload(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	var b strings.Builder
	b.Grow(n)
	for i := range n {
		b.WriteByte(alphabet[(i*7+3)%len(alphabet)])
	}
	return b.String()
}

// createBody is the JSON of a create request for a secret of views views.
// Yopass has no view count: a 1-view secret is a one-time secret, any
// other one can be read until it expires (in an hour).
func (c *client) createBody(views int) []byte {
	if c.api.name == dialectYopass {
		quoted, _ := json.Marshal(c.payload)
		return []byte(`{"message":` + string(quoted) + `,"expiration":3600,"one_time":` + strconv.FormatBool(views == 1) + `}`)
	}
	return []byte(`{"push":{"payload":"` + c.payload + `","expire_after_views":` + strconv.Itoa(views) + `}}`)
}

// failure kinds, counted separately in the report.
const (
	failTransport = iota // no HTTP answer: refused, reset, timeout
	failStatus           // an answer outside 2xx, or not the expected status
	failBody             // the expected status with a wrong body
	failKinds
)

// reqError is a failed request.
type reqError struct {
	kind int
	msg  string
}

func (e *reqError) Error() string { return e.msg }

// do sends one request to the next server and reads the whole answer into buf.
func (c *client) do(ctx context.Context, method, path string, body []byte, buf *bytes.Buffer) (int, error) {
	return c.doAt(ctx, c.base(), method, path, body, buf)
}

// doAt is do with the server given.
func (c *client) doAt(ctx context.Context, base, method, path string, body []byte, buf *bytes.Buffer) (int, error) {
	var rd *bytes.Reader
	req, err := http.NewRequestWithContext(ctx, method, base+path, nil)
	if err != nil {
		return 0, &reqError{failTransport, err.Error()}
	}
	if body != nil {
		rd = bytes.NewReader(body)
		req.Body = readCloser{rd}
		req.ContentLength = int64(len(body))
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, &reqError{failTransport, err.Error()}
	}
	buf.Reset()
	_, err = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		return resp.StatusCode, &reqError{failTransport, "reading the answer: " + err.Error()}
	}
	return resp.StatusCode, nil
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// create creates a push (a secret) and returns its token.
func (c *client) create(ctx context.Context, body []byte, buf *bytes.Buffer) (string, error) {
	status, err := c.do(ctx, http.MethodPost, c.api.createPath, body, buf)
	if err != nil {
		return "", err
	}
	if status != c.api.createStatus {
		return "", &reqError{failStatus, fmt.Sprintf("create: status %d: %.200s", status, buf.Bytes())}
	}
	token := jsonString(buf.Bytes(), c.api.tokenKey)
	if token == "" {
		return "", &reqError{failBody, fmt.Sprintf("create: no token (%s) in %.200s", c.api.tokenKey, buf.Bytes())}
	}
	return token, nil
}

// createPassphraseBody is the JSON of a create request with a passphrase.
func (c *client) createPassphraseBody(views int, passphrase string) []byte {
	return []byte(`{"push":{"payload":"` + c.payload + `","expire_after_views":` + strconv.Itoa(views) +
		`,"passphrase":"` + passphrase + `"}}`)
}

// retrieve retrieves a push and checks that the answer holds the payload.
func (c *client) retrieve(ctx context.Context, token string, buf *bytes.Buffer) error {
	return c.retrieveWith(ctx, token, "", buf)
}

// retrieveWith is retrieve with ?passphrase= when passphrase is not empty.
func (c *client) retrieveWith(ctx context.Context, token, passphrase string, buf *bytes.Buffer) error {
	path := c.api.retrievePath + token
	if passphrase != "" {
		path += "?passphrase=" + url.QueryEscape(passphrase)
	}
	status, err := c.do(ctx, http.MethodGet, path, nil, buf)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return &reqError{failStatus, fmt.Sprintf("retrieve: status %d: %.200s", status, buf.Bytes())}
	}
	if !bytes.Contains(buf.Bytes(), c.shown) {
		return &reqError{failBody, fmt.Sprintf("retrieve: payload missing in %.200s", buf.Bytes())}
	}
	return nil
}

// jsonString returns the text after key up to the next quote: enough for
// values without escapes, such as url_tokens.
func jsonString(b []byte, key string) string {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return ""
	}
	rest := b[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// ready waits until every server answers 200 to the dialect's readiness
// request (GET /api/v2/version, or Yopass's /ready), or timeout passes.
func (c *client) ready(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var buf bytes.Buffer
	for _, base := range c.bases {
		for {
			status, err := c.doAt(ctx, base, http.MethodGet, c.api.readyPath, nil, &buf)
			if err == nil && status == http.StatusOK {
				break
			}
			select {
			case <-ctx.Done():
				if err == nil {
					err = fmt.Errorf("status %d", status)
				}
				return fmt.Errorf("%s not ready after %v: %w", base, timeout, err)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return nil
}
