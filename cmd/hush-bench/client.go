package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// client sends the API requests of the scenarios. It keeps per-request work
// small (prebuilt bodies, a reused read buffer per worker, byte searches
// instead of JSON decoding) so that the load generator, on its one CPU,
// stays lighter than the server it measures.
type client struct {
	base    string // scheme://host:port
	hc      *http.Client
	payload string
	shown   []byte // `"payload":"<payload>"` as a retrieve answers it
}

func newClient(base string, conns, payloadBytes int) *client {
	tr := &http.Transport{
		Proxy:               nil, // loopback only: never through a proxy
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        2 * conns,
		MaxIdleConnsPerHost: 2 * conns,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}
	p := makePayload(payloadBytes)
	return &client{
		base:    base,
		hc:      &http.Client{Transport: tr, Timeout: 30 * time.Second},
		payload: p,
		shown:   []byte(`"payload":"` + p + `"`),
	}
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

// createBody is the JSON of a create request.
func (c *client) createBody(views int) []byte {
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

// do sends one request and reads the whole answer into buf.
func (c *client) do(ctx context.Context, method, path string, body []byte, buf *bytes.Buffer) (int, error) {
	var rd *bytes.Reader
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, nil)
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

// create creates a push and returns its url_token.
func (c *client) create(ctx context.Context, body []byte, buf *bytes.Buffer) (string, error) {
	status, err := c.do(ctx, http.MethodPost, "/api/v2/pushes", body, buf)
	if err != nil {
		return "", err
	}
	if status != http.StatusCreated {
		return "", &reqError{failStatus, fmt.Sprintf("create: status %d: %.200s", status, buf.Bytes())}
	}
	token := jsonString(buf.Bytes(), `"url_token":"`)
	if token == "" {
		return "", &reqError{failBody, fmt.Sprintf("create: no url_token in %.200s", buf.Bytes())}
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
	path := "/api/v2/pushes/" + token
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

// ready waits until GET /api/v2/version answers 200, or timeout passes.
func (c *client) ready(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var buf bytes.Buffer
	for {
		status, err := c.do(ctx, http.MethodGet, "/api/v2/version", nil, &buf)
		if err == nil && status == http.StatusOK {
			return nil
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = fmt.Errorf("status %d", status)
			}
			return fmt.Errorf("%s not ready after %v: %w", c.base, timeout, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
