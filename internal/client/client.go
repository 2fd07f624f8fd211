// Package client speaks Hush's JSON API in typed values: create, retrieve,
// preview, expire, audit, lists and downloads, plus Do for any request. The
// tests that drive a running Hush over HTTP (the API's contract tests, the
// whole program's tests, the crash test) all go through it.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
)

// Client is a client of one Hush.
type Client struct {
	Base  string       // scheme://host[:port], no trailing slash
	Token string       // API token sent as Bearer; "" for anonymous calls
	HTTP  *http.Client // nil: http.DefaultClient
}

// Response is an answer with its body read.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Error is an answer with another status than the call expects.
type Error struct {
	Method, Path string
	Status       int
	Body         []byte
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: status %d: %.200s", e.Method, e.Path, e.Status, e.Body)
}

// Message is the "error" of a JSON error body, or "".
func (e *Error) Message() string {
	var b struct {
		Error string `json:"error"`
	}
	json.Unmarshal(e.Body, &b)
	return b.Error
}

// Push is a push object of the API.
type Push struct {
	URLToken          string  `json:"url_token"`
	Kind              string  `json:"kind"`
	HTMLURL           string  `json:"html_url"`
	JSONURL           string  `json:"json_url"`
	Expired           bool    `json:"expired"`
	ExpiredOn         *string `json:"expired_on"`
	Deleted           bool    `json:"deleted"`
	DeletableByViewer *bool   `json:"deletable_by_viewer"`
	RetrievalStep     bool    `json:"retrieval_step"`
	ExpireAfterDays   int     `json:"expire_after_days"`
	ExpireAfterViews  int     `json:"expire_after_views"`
	DaysRemaining     int     `json:"days_remaining"`
	ViewsRemaining    int     `json:"views_remaining"`
	Passphrase        *string `json:"passphrase"`
	Payload           *string `json:"payload"`
	Note              string  `json:"note"`
	Name              string  `json:"name"`
	Files             []File  `json:"files"`
	CreatedAt         string  `json:"created_at"`
	UpdatedAt         string  `json:"updated_at"`
}

// File is an attachment as a retrieve lists it.
type File struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	URL         string `json:"url"`
}

// AuditEntry is one entry of a push's audit log.
type AuditEntry struct {
	Kind      string `json:"kind"`
	IP        string `json:"ip"`
	UserAgent string `json:"user_agent"`
	Referrer  string `json:"referrer"`
	CreatedAt string `json:"created_at"`
}

// Upload is a file to attach.
type Upload struct {
	Name        string
	ContentType string // "" sends none
	Data        []byte
}

// Do sends one request to path (or to a full URL) and returns the answer,
// whatever its status. header adds or replaces headers; the client's token
// is sent unless header sets Authorization. When the body cannot be read
// whole (a server that answers early and closes, as to a body too large),
// Do returns the answer with what was read, and the error.
func (c *Client) Do(ctx context.Context, method, path string, body io.Reader, header http.Header) (*Response, error) {
	target := path
	if u, err := url.Parse(path); err != nil || u.Scheme == "" {
		target = c.Base + path
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, err
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	out := &Response{Status: res.StatusCode, Header: res.Header, Body: b}
	if err != nil {
		return out, fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	return out, nil
}

// call sends a request, wants status, and decodes the JSON answer into out
// (when out is not nil).
func (c *Client) call(ctx context.Context, method, path string, body io.Reader, header http.Header, status int, out any) error {
	res, err := c.Do(ctx, method, path, body, header)
	if err != nil {
		return err
	}
	if res.Status != status {
		return &Error{Method: method, Path: path, Status: res.Status, Body: res.Body}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(res.Body, out); err != nil {
		return fmt.Errorf("%s %s: %w: %.200s", method, path, err, res.Body)
	}
	return nil
}

var jsonHeader = http.Header{"Content-Type": {"application/json"}}

// Create creates a push from the fields of {"push": …} (201).
func (c *Client) Create(ctx context.Context, fields map[string]any) (*Push, error) {
	b, err := json.Marshal(map[string]any{"push": fields})
	if err != nil {
		return nil, err
	}
	var p Push
	return &p, c.call(ctx, "POST", "/api/v2/pushes", bytes.NewReader(b), jsonHeader, http.StatusCreated, &p)
}

// CreateWithFiles creates a push as a multipart form, the way Password
// Pusher's clients attach files (Multipart).
func (c *Client) CreateWithFiles(ctx context.Context, fields map[string]string, files ...Upload) (*Push, error) {
	body, ctype := Multipart(fields, files...)
	var p Push
	return &p, c.call(ctx, "POST", "/api/v2/pushes", bytes.NewReader(body), http.Header{"Content-Type": {ctype}},
		http.StatusCreated, &p)
}

// Multipart is the body of a create with files, and its content type:
// push[<field>] values and push[files][] parts.
func Multipart(fields map[string]string, files ...Upload) ([]byte, string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField("push["+k+"]", v)
	}
	for _, f := range files {
		h := map[string][]string{"Content-Disposition": {fmt.Sprintf(`form-data; name="push[files][]"; filename=%q`, f.Name)}}
		if f.ContentType != "" {
			h["Content-Type"] = []string{f.ContentType}
		}
		w, _ := mw.CreatePart(h) // writes to memory: cannot fail
		w.Write(f.Data)
	}
	mw.Close()
	return body.Bytes(), mw.FormDataContentType()
}

// Retrieve retrieves a push (200; a view unless the client is its owner).
func (c *Client) Retrieve(ctx context.Context, token, passphrase string) (*Push, error) {
	path := "/api/v2/pushes/" + token
	if passphrase != "" {
		path += "?passphrase=" + url.QueryEscape(passphrase)
	}
	var p Push
	return &p, c.call(ctx, "GET", path, nil, nil, http.StatusOK, &p)
}

// Preview returns a push's secret URL, using no view.
func (c *Client) Preview(ctx context.Context, token string) (string, error) {
	var out struct {
		URL string `json:"url"`
	}
	err := c.call(ctx, "GET", "/api/v2/pushes/"+token+"/preview", nil, nil, http.StatusOK, &out)
	return out.URL, err
}

// Expire expires a push now.
func (c *Client) Expire(ctx context.Context, token string) (*Push, error) {
	var p Push
	return &p, c.call(ctx, "DELETE", "/api/v2/pushes/"+token, nil, nil, http.StatusOK, &p)
}

// Audit returns one page of a push's audit log.
func (c *Client) Audit(ctx context.Context, token string, page int) ([]AuditEntry, error) {
	var out struct {
		Logs []AuditEntry `json:"logs"`
	}
	err := c.call(ctx, "GET", "/api/v2/pushes/"+token+"/audit?page="+strconv.Itoa(page), nil, nil, http.StatusOK, &out)
	return out.Logs, err
}

// List returns one page of the client's active or expired pushes.
func (c *Client) List(ctx context.Context, expired bool, page int) ([]Push, error) {
	which := "active"
	if expired {
		which = "expired"
	}
	var out []Push
	err := c.call(ctx, "GET", "/api/v2/pushes/"+which+"?page="+strconv.Itoa(page), nil, nil, http.StatusOK, &out)
	return out, err
}

// Download returns the contents behind a file link (200).
func (c *Client) Download(ctx context.Context, link string) ([]byte, error) {
	res, err := c.Do(ctx, "GET", link, nil, nil)
	if err != nil {
		return nil, err
	}
	if res.Status != http.StatusOK {
		return nil, &Error{Method: "GET", Path: link, Status: res.Status, Body: res.Body}
	}
	return res.Body, nil
}
