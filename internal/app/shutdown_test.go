package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hush/internal/client"
)

// slowReader hands out its data in small pieces with pauses: a client on a
// slow line, so that its request is surely in flight at the signal.
type slowReader struct {
	r     io.Reader
	pause time.Duration
}

func (s *slowReader) Read(p []byte) (int, error) {
	time.Sleep(s.pause)
	return s.r.Read(p[:min(len(p), 32<<10)])
}

// TestGracefulShutdownUnderLoad sends SIGTERM to a hush process while slow
// uploads and downloads and a stream of fast requests are in flight: every
// request the server had begun completes whole, the process exits 0 after
// the sweeper stopped, and the uploads are all there after a restart.
func TestGracefulShutdownUnderLoad(t *testing.T) {
	g := startGraceful(t)
	g.slowUploads(4)
	g.slowDownloads(4)
	stopFast := g.fastRequests()
	time.Sleep(400 * time.Millisecond)
	g.terminate(stopFast)
	g.checkAfterRestart(4)
}

// graceful is the state of TestGracefulShutdownUnderLoad.
type graceful struct {
	t      *testing.T
	env    map[string]string
	in     *instance
	api    *client.Client
	big    string   // a 3 MiB file push
	bigSum [32]byte // its file's SHA-256

	wg       sync.WaitGroup
	errs     chan error
	uploaded chan [2]string // token, SHA-256 of the slow uploads acknowledged
}

// startGraceful starts a hush process with a user, a token and a 3 MiB
// file push to download.
func startGraceful(t *testing.T) *graceful {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_MASTER_KEY": strings.Repeat("d4", 32), "HUSH_SWEEP_INTERVAL": "1s",
		"HUSH_SHUTDOWN_TIMEOUT": "30s", "HUSH_MAX_FILE_SIZE": "8388608", "PWP__PW__RETRIEVAL_STEP_DEFAULT": "false"}
	env = withDB(t, env) // the process and the admin verbs share one database
	g := &graceful{t: t, env: env, in: startInstance(t, env), errs: make(chan error, 100), uploaded: make(chan [2]string, 4)}
	g.api = &client.Client{Base: g.in.url, Token: apiToken(t, env, "g@example.com", "a long enough password")}
	big := make([]byte, 3<<20)
	rand.Read(big)
	g.bigSum = sha256.Sum256(big)
	p, err := g.api.CreateWithFiles(context.Background(), map[string]string{"payload": "graceful"}, client.Upload{Name: "blob.bin", Data: big})
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	g.big = p.URLToken
	return g
}

// apiToken creates a user with `hush user create` and returns a token from
// `hush token create` (the last line of its output).
func apiToken(t *testing.T, env map[string]string, email, password string) string {
	t.Helper()
	if code, _, errOut := run(t, env, "", "user", "create", "--email", email, "--password", password); code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut := run(t, env, "", "token", "create", "--email", email)
	if code != 0 {
		t.Fatal(errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// fileLink returns the download link of a push's first file, read by its
// owner (no view used).
func (g *graceful) fileLink(base, tok string) string {
	c := *g.api
	c.Base = base
	p, err := c.Retrieve(context.Background(), tok, "")
	if err != nil || len(p.Files) == 0 {
		g.t.Fatalf("retrieve %s: %+v, %v", tok[:6], p, err)
	}
	return p.Files[0].URL
}

// slowUploads starts n uploads of about 1.5 MiB at 32 KiB per 25 ms.
func (g *graceful) slowUploads(n int) {
	for i := range n {
		g.wg.Go(func() {
			content := make([]byte, 1500<<10+i)
			rand.Read(content)
			body, ctype := client.Multipart(map[string]string{"payload": "graceful"}, client.Upload{Name: "blob.bin", Data: content})
			req, _ := http.NewRequest("POST", g.in.url+"/api/v2/pushes", &slowReader{r: bytes.NewReader(body), pause: 25 * time.Millisecond})
			req.ContentLength = int64(len(body))
			req.Header.Set("Content-Type", ctype)
			req.Header.Set("Authorization", "Bearer "+g.api.Token)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				g.errs <- fmt.Errorf("slow upload %d: %v", i, err)
				return
			}
			defer res.Body.Close()
			var p client.Push
			if err := json.NewDecoder(res.Body).Decode(&p); err != nil || res.StatusCode != 201 {
				g.errs <- fmt.Errorf("slow upload %d: %d %v", i, res.StatusCode, err)
				return
			}
			sum := sha256.Sum256(content)
			g.uploaded <- [2]string{p.URLToken, string(sum[:])}
		})
	}
}

// slowDownloads starts n downloads of the 3 MiB file, read slowly.
func (g *graceful) slowDownloads(n int) {
	for i := range n {
		link := g.fileLink(g.in.url, g.big)
		g.wg.Go(func() {
			res, err := http.Get(link)
			if err != nil {
				g.errs <- fmt.Errorf("slow download %d: %v", i, err)
				return
			}
			defer res.Body.Close()
			h := sha256.New()
			n, err := io.Copy(h, &slowReader{r: res.Body, pause: 20 * time.Millisecond})
			if res.StatusCode != 200 || err != nil || !bytes.Equal(h.Sum(nil), g.bigSum[:]) {
				g.errs <- fmt.Errorf("slow download %d: status %d, %d bytes, %v: cut mid-write", i, res.StatusCode, n, err)
			}
		})
	}
}

// fastRequests sends requests one after another until stopped or the
// server stops answering; every answer must be whole. The returned
// function stops them and returns how many were served.
func (g *graceful) fastRequests() func() int {
	stop, done := make(chan struct{}), make(chan int)
	go func() {
		served := 0
		defer func() { done <- served }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			res, err := (&client.Client{Base: g.in.url}).Do(context.Background(), "GET", "/api/v2/version", nil, nil)
			if err != nil {
				continue // refused once the listener is closed
			}
			if res.Status != 200 || !json.Valid(res.Body) {
				g.errs <- fmt.Errorf("fast request: %d %q", res.Status, res.Body)
				return
			}
			served++
		}
	}()
	return func() int {
		close(stop)
		return <-done
	}
}

// terminate sends SIGTERM, waits for the requests in flight, and checks that
// the process stopped cleanly.
func (g *graceful) terminate(stopFast func() int) {
	t := g.t
	signalled := time.Now()
	if err := g.in.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	g.wg.Wait()
	t.Logf("fast requests served: %d; in-flight requests finished %v after SIGTERM", stopFast(), time.Since(signalled).Round(time.Millisecond))
	exited := make(chan error, 1)
	go func() { exited <- g.in.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("hush exited with %v:\n%s", err, g.in.log.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("hush did not exit after SIGTERM")
	}
	close(g.errs)
	for err := range g.errs {
		t.Error(err)
	}
	logs := g.in.log.String()
	if !strings.Contains(logs, "msg=stopped") || strings.Contains(logs, "level=ERROR") {
		t.Errorf("no clean stop:\n%s", logs)
	}
}

// checkAfterRestart checks that every acknowledged upload is there, intact,
// after a restart.
func (g *graceful) checkAfterRestart(want int) {
	close(g.uploaded)
	again := startInstance(g.t, g.env)
	count := 0
	for u := range g.uploaded {
		body, err := g.api.Download(context.Background(), g.fileLink(again.url, u[0]))
		if err != nil {
			g.t.Fatal(err)
		}
		if sum := sha256.Sum256(body); string(sum[:]) != u[1] {
			g.t.Errorf("upload %s differs after the restart", u[0][:6])
		}
		count++
	}
	if count != want {
		g.t.Errorf("%d of %d slow uploads acknowledged", count, want)
	}
}
