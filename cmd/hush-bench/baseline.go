package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// The baseline is the reference point of every figure: a minimal net/http
// JSON server answering Hush's create and retrieve requests from a map under
// one mutex — no storage, no encryption, no logging, no audit. Its responses
// have the same keys as Hush's, so both encode and send about the same bytes.

// baseEntry is one push of the baseline; a used-up push keeps its entry
// (without the payload) so it answers as expired, as Hush does.
type baseEntry struct {
	payload    string
	passphrase string // "" for none; compared as it is (no key derivation)
	views      int32
	max        int32
	created    time.Time
	updated    time.Time
	expired    bool
	expireOn   time.Time
}

type baseServer struct {
	mu     sync.Mutex
	pushes map[string]*baseEntry
}

// basePushJSON mirrors the keys of Hush's push object.
type basePushJSON struct {
	ExpireAfterViews  int32   `json:"expire_after_views"`
	Expired           bool    `json:"expired"`
	URLToken          string  `json:"url_token"`
	DeletableByViewer bool    `json:"deletable_by_viewer"`
	RetrievalStep     bool    `json:"retrieval_step"`
	ExpiredOn         *string `json:"expired_on"`
	Passphrase        *string `json:"passphrase"`
	CreatedAt         string  `json:"created_at"`
	UpdatedAt         string  `json:"updated_at"`
	ExpireAfterDays   int     `json:"expire_after_days"`
	DaysRemaining     int     `json:"days_remaining"`
	ViewsRemaining    int32   `json:"views_remaining"`
	Deleted           bool    `json:"deleted"`
	JSONURL           string  `json:"json_url"`
	HTMLURL           string  `json:"html_url"`
	Kind              string  `json:"kind"`
}

type baseCreatedJSON struct {
	basePushJSON
	Note string `json:"note"`
	Name string `json:"name"`
}

type baseShownJSON struct {
	basePushJSON
	Payload *string    `json:"payload"`
	Files   []struct{} `json:"files"`
}

type baseCreateRequest struct {
	Push struct {
		Payload          string `json:"payload"`
		ExpireAfterViews *int   `json:"expire_after_views"`
		Passphrase       string `json:"passphrase"`
	} `json:"push"`
}

// basePassphraseJSON is Hush's answer to a missing or wrong passphrase.
type basePassphraseJSON struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

var basePassphraseRefused = basePassphraseJSON{
	Error:   "That passphrase is incorrect.",
	Message: "This push requires a passphrase. Please provide it using the 'passphrase' parameter (e.g. ?passphrase=mysecret)",
	Status:  "unauthorized",
}

const baseTimeFormat = "2006-01-02T15:04:05.000Z"

func newBaseServer() *baseServer {
	return &baseServer{pushes: make(map[string]*baseEntry)}
}

func (b *baseServer) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v2/version", func(w http.ResponseWriter, r *http.Request) {
		baseWrite(w, http.StatusOK, map[string]string{"application_version": "baseline", "api_version": "2.1"})
	})
	mux.HandleFunc("POST /api/v2/pushes", b.create)
	mux.HandleFunc("GET /api/v2/pushes/{token}", b.retrieve)
	return mux
}

func (b *baseServer) create(w http.ResponseWriter, r *http.Request) {
	var req baseCreateRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 2<<20)).Decode(&req); err != nil {
		baseWrite(w, http.StatusBadRequest, map[string]string{"error": "Bad Request"})
		return
	}
	views := 5
	if v := req.Push.ExpireAfterViews; v != nil {
		views = *v
	}
	if req.Push.Payload == "" || views < 1 || views > 100 {
		baseWrite(w, http.StatusUnprocessableEntity, map[string][]string{"push": {"is invalid"}})
		return
	}
	// Hush's token shape: a 6-byte millisecond timestamp and 16 random bytes.
	now := time.Now().UTC()
	var raw [22]byte
	ms := uint64(now.UnixMilli())
	for i := range 6 {
		raw[i] = byte(ms >> (8 * (5 - i)))
	}
	rand.Read(raw[6:])
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	e := &baseEntry{payload: req.Push.Payload, passphrase: req.Push.Passphrase, max: int32(views), created: now, updated: now}
	b.mu.Lock()
	b.pushes[token] = e
	o := b.render(r, token, e)
	b.mu.Unlock()
	o.Passphrase = &req.Push.Passphrase // as Hush: the passphrase sent, "" for none
	baseWrite(w, http.StatusCreated, baseCreatedJSON{basePushJSON: o})
}

func (b *baseServer) retrieve(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	now := time.Now().UTC()
	b.mu.Lock()
	e, ok := b.pushes[token]
	if !ok {
		b.mu.Unlock()
		baseWrite(w, http.StatusNotFound, map[string]string{"error": "Not Found"})
		return
	}
	given := r.URL.Query().Get("passphrase")
	if e.passphrase == "" {
		given = "" // as Hush: a push without a passphrase shows "" whatever was sent
	}
	if !e.expired && e.passphrase != "" && given != e.passphrase {
		b.mu.Unlock()
		baseWrite(w, http.StatusUnauthorized, basePassphraseRefused)
		return
	}
	var payload *string
	if !e.expired {
		p := e.payload
		payload = &p
		e.views++
		e.updated = now
		if e.views >= e.max {
			e.expired, e.expireOn, e.payload = true, now, ""
		}
	}
	o := b.render(r, token, e)
	b.mu.Unlock()
	if payload != nil { // as Hush: the last view is shown unexpired, with views_remaining 0, and the passphrase given
		o.Passphrase, o.Expired, o.ExpiredOn = &given, false, nil
	}
	baseWrite(w, http.StatusOK, baseShownJSON{basePushJSON: o, Payload: payload, Files: []struct{}{}})
}

// render builds the push object; the caller holds b.mu.
func (b *baseServer) render(r *http.Request, token string, e *baseEntry) basePushJSON {
	u := "http://" + r.Host + "/p/" + token + "/r"
	o := basePushJSON{
		ExpireAfterViews:  e.max,
		Expired:           e.expired,
		URLToken:          token,
		DeletableByViewer: true,
		RetrievalStep:     true,
		CreatedAt:         e.created.Format(baseTimeFormat),
		UpdatedAt:         e.updated.Format(baseTimeFormat),
		ExpireAfterDays:   7,
		DaysRemaining:     7,
		ViewsRemaining:    e.max - e.views,
		JSONURL:           u + ".json",
		HTMLURL:           u,
		Kind:              "text",
	}
	if e.expired {
		t := e.expireOn.Format(baseTimeFormat)
		o.ExpiredOn = &t
	}
	return o
}

func baseWrite(w http.ResponseWriter, status int, v any) {
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// serveBaseline listens on addr and serves the baseline until ctx ends. It
// calls ready with the address it listens on.
func serveBaseline(ctx context.Context, addr string, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           newBaseServer().handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          nil,
	}
	if ready != nil {
		ready(ln.Addr())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// baselineCmd is `hush-bench baseline`.
func baselineCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("baseline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:5200", "listen address (loopback only)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := checkLoopbackAddr(*addr); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return serveBaseline(ctx, *addr, func(a net.Addr) {
		fmt.Fprintf(stdout, "baseline listening on %s\n", a)
	})
}
