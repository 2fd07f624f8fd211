package app

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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
	dir := t.TempDir()
	env := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_MASTER_KEY": strings.Repeat("d4", 32), "HUSH_SWEEP_INTERVAL": "1s",
		"HUSH_SHUTDOWN_TIMEOUT": "30s", "HUSH_MAX_FILE_SIZE": "8388608", "PWP__PW__RETRIEVAL_STEP_DEFAULT": "false"}
	env = withDB(t, env) // the process and the admin verbs share one database
	run(t, env, "", "user", "create", "--email", "g@example.com", "--password", "graceful password")
	_, out, _ := run(t, env, "", "token", "create", "--email", "g@example.com")
	auth := "Bearer " + strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
	in := startInstance(t, env)

	upload := func(base string, content []byte, slow bool) (int, string, error) {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		mw.WriteField("push[payload]", "graceful")
		fw, _ := mw.CreateFormFile("push[files][]", "blob.bin")
		fw.Write(content)
		mw.Close()
		var body io.Reader = &b
		if slow {
			body = &slowReader{r: &b, pause: 25 * time.Millisecond}
		}
		req, _ := http.NewRequest("POST", base+"/api/v2/pushes", body)
		req.ContentLength = int64(b.Len())
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Authorization", auth)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer res.Body.Close()
		var obj struct {
			URLToken string `json:"url_token"`
		}
		err = json.NewDecoder(res.Body).Decode(&obj)
		return res.StatusCode, obj.URLToken, err
	}
	fileLink := func(base, tok string) string {
		_, got := call(t, "GET", base+"/api/v2/pushes/"+tok, nil, "Authorization", auth)
		return got.(map[string]any)["files"].([]any)[0].(map[string]any)["url"].(string)
	}

	big := make([]byte, 3<<20)
	rand.Read(big)
	bigSum := sha256.Sum256(big)
	status, bigTok, err := upload(in.url, big, false)
	if status != 201 || err != nil {
		t.Fatalf("upload: %d %v", status, err)
	}

	var wg sync.WaitGroup
	errs := make(chan error, 100)
	uploaded := make(chan [2]string, 4) // token, sha
	for i := range 4 {                  // slow uploads: ~1.5 MiB at 32 KiB per 25 ms
		wg.Add(1)
		go func() {
			defer wg.Done()
			content := make([]byte, 1500<<10+i)
			rand.Read(content)
			status, tok, err := upload(in.url, content, true)
			if status != 201 || err != nil {
				errs <- fmt.Errorf("slow upload %d: %d %v", i, status, err)
				return
			}
			sum := sha256.Sum256(content)
			uploaded <- [2]string{tok, string(sum[:])}
		}()
	}
	for i := range 4 { // slow downloads of 3 MiB
		link := fileLink(in.url, bigTok)
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := http.Get(link)
			if err != nil {
				errs <- fmt.Errorf("slow download %d: %v", i, err)
				return
			}
			defer res.Body.Close()
			h := sha256.New()
			n, err := io.Copy(h, &slowReader{r: res.Body, pause: 20 * time.Millisecond})
			if res.StatusCode != 200 || err != nil || !bytes.Equal(h.Sum(nil), bigSum[:]) {
				errs <- fmt.Errorf("slow download %d: status %d, %d bytes, %v: cut mid-write", i, res.StatusCode, n, err)
			}
		}()
	}
	stopFast := make(chan struct{})
	fastDone := make(chan int)
	go func() { // fast requests until the server stops answering
		served := 0
		defer func() { fastDone <- served }()
		for {
			select {
			case <-stopFast:
				return
			default:
			}
			res, err := http.Get(in.url + "/api/v2/version")
			if err != nil {
				continue // refused once the listener is closed
			}
			b, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || res.StatusCode != 200 || !json.Valid(b) {
				errs <- fmt.Errorf("fast request: %d %v %q", res.StatusCode, err, b)
				return
			}
			served++
		}
	}()

	time.Sleep(400 * time.Millisecond)
	signalled := time.Now()
	if err := in.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(stopFast)
	t.Logf("fast requests served: %d; in-flight requests finished %v after SIGTERM", <-fastDone, time.Since(signalled).Round(time.Millisecond))
	exited := make(chan error, 1)
	go func() { exited <- in.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("hush exited with %v:\n%s", err, in.log.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("hush did not exit after SIGTERM")
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	logs := in.log.String()
	if !strings.Contains(logs, "msg=stopped") || strings.Contains(logs, "level=ERROR") {
		t.Errorf("no clean stop:\n%s", logs)
	}

	// Everything acknowledged is there after a restart.
	close(uploaded)
	again := startInstance(t, env)
	count := 0
	for u := range uploaded {
		res, err := http.Get(fileLink(again.url, u[0]))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		io.Copy(h, res.Body)
		res.Body.Close()
		if string(h.Sum(nil)) != u[1] {
			t.Errorf("upload %s differs after the restart", u[0][:6])
		}
		count++
	}
	if count != 4 {
		t.Errorf("%d of 4 slow uploads acknowledged", count)
	}
}
