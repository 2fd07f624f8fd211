package imagetest

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// maxImageSize is the size budget of the image, uncompressed as the engine
// reports it. Email (an SMTP client and the outbox's flows) took it from
// 25.7 MB to 26.6 MB; single sign-on (an OpenID Connect client and JOSE),
// webhooks and thirteen languages' catalogs to 28.8 MB.
const maxImageSize = 30 << 20

// shutdownTimeout is HUSH_SHUTDOWN_TIMEOUT's default.
const shutdownTimeout = 15 * time.Second

// TestImage builds the image as `make image` does and runs it.
func TestImage(t *testing.T) {
	e := findEngine(t)
	img := buildImage(t, e)
	t.Logf("built %s (version %s) with %s in %s", img.tag, img.version, e.name, img.buildTime.Round(time.Millisecond))

	t.Run("contents", func(t *testing.T) { testContents(t, e, img) })
	t.Run("run as the README says", func(t *testing.T) { testReadmeRun(t, e, img) })
	t.Run("two instances sharing PostgreSQL and S3", func(t *testing.T) { testSharedInstances(t, e, img) })
}

// testContents checks the image's configuration, its files and its size.
func testContents(t *testing.T, e *engine, img *builtImage) {
	info := e.inspectImage(t, img.tag)
	c := info.Config
	if c.User != "65532:65532" {
		t.Errorf("User = %q, want 65532:65532 (hush, not root)", c.User)
	}
	if !slices.Equal(c.Entrypoint, []string{"/hush"}) || !slices.Equal(c.Cmd, []string{"serve"}) {
		t.Errorf("Entrypoint %q Cmd %q, want /hush serve", c.Entrypoint, c.Cmd)
	}
	for _, kv := range []string{"HUSH_ADDR=:5100", "HUSH_DATA_DIR=/data"} {
		if !slices.Contains(c.Env, kv) {
			t.Errorf("Env %q lacks %s", c.Env, kv)
		}
	}
	if _, ok := c.ExposedPorts["5100/tcp"]; !ok {
		t.Errorf("ExposedPorts %v lacks 5100/tcp", c.ExposedPorts)
	}
	if _, ok := c.Volumes["/data"]; !ok {
		t.Errorf("Volumes %v lacks /data", c.Volumes)
	}
	hc := c.Healthcheck
	if hc == nil {
		hc = info.Healthcheck
	}
	if hc == nil || !slices.Equal(hc.Test, []string{"CMD", "/hush", "healthcheck", "-ready"}) {
		t.Errorf("health check %+v, want CMD /hush healthcheck -ready", hc)
	}
	revision := c.Labels["org.opencontainers.image.revision"]
	for label, want := range map[string]string{
		"org.opencontainers.image.title":   "Hush",
		"org.opencontainers.image.version": img.version,
	} {
		if got := c.Labels[label]; got != want {
			t.Errorf("label %s = %q, want %q", label, got, want)
		}
	}
	if len(revision) != 40 || c.Labels["org.opencontainers.image.created"] == "" || c.Labels["org.opencontainers.image.description"] == "" {
		t.Errorf("labels lack the revision, creation time or description: %v", c.Labels)
	}

	// The files: the binary, the CA bundle, passwd and group, /data owned by
	// hush — and nothing else, no shell.
	name := "hush-export-" + randomName()
	e.must(t, "create", "--name", name, img.tag)
	e.removeOnCleanup(t, name)
	exported := filepath.Join(t.TempDir(), "rootfs.tar")
	e.must(t, "export", "-o", exported, name)
	f, err := os.Open(exported)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := map[string]*tar.Header{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimSuffix(strings.TrimPrefix(h.Name, "./"), "/")] = h
	}
	for path, want := range map[string]struct {
		uid  int
		mode int64
	}{
		"hush":                              {0, 0o755},
		"etc/ssl/certs/ca-certificates.crt": {0, 0o644},
		"etc/passwd":                        {0, 0o644},
		"etc/group":                         {0, 0o644},
		"data":                              {65532, 0o755},
	} {
		h := files[path]
		switch {
		case h == nil:
			t.Errorf("the image lacks /%s", path)
		case h.Uid != want.uid || h.Mode&0o7777 != want.mode:
			t.Errorf("/%s: uid %d mode %o, want uid %d mode %o", path, h.Uid, h.Mode&0o7777, want.uid, want.mode)
		}
	}
	var nonEmpty []string
	for path, h := range files {
		if h.Typeflag == tar.TypeReg && h.Size > 0 {
			nonEmpty = append(nonEmpty, path)
		}
		if h.Typeflag == tar.TypeSymlink || (h.Typeflag == tar.TypeReg && h.Mode&0o111 != 0 && path != "hush") {
			t.Errorf("unexpected executable or link in the image: /%s", path)
		}
	}
	slices.Sort(nonEmpty)
	if want := []string{"etc/group", "etc/passwd", "etc/ssl/certs/ca-certificates.crt", "hush"}; !slices.Equal(nonEmpty, want) {
		t.Errorf("the image's files are %q, want %q", nonEmpty, want)
	}
	if h := files["etc/ssl/certs/ca-certificates.crt"]; h != nil && h.Size < 10_000 {
		t.Errorf("the CA bundle is %d bytes: not a real bundle", h.Size)
	}

	// Its size: uncompressed as the engine reports it, and gzip-compressed
	// as a registry would store and send it.
	saved := filepath.Join(t.TempDir(), "image.tar")
	e.must(t, "save", "-o", saved, img.tag)
	compressed := gzipSize(t, saved)
	t.Logf("image size: %d bytes (%.1f MB, %.1f MiB) uncompressed; the saved image gzips to %.1f MB",
		info.Size, float64(info.Size)/1e6, float64(info.Size)/(1<<20), float64(compressed)/1e6)
	if info.Size > maxImageSize {
		t.Errorf("the image is %d bytes, over the budget of %d (30 MiB)", info.Size, maxImageSize)
	}
	if info.Size < 5<<20 {
		t.Errorf("the image is only %d bytes: is the binary in it?", info.Size)
	}
}

// gzipSize is the size of the file compressed with gzip's default level.
func gzipSize(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var n countWriter
	zw := gzip.NewWriter(&n)
	if _, err := io.Copy(zw, f); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return int64(n)
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// testReadmeRun runs the README's "Run with Docker" commands with the test's
// names and checks the running container.
func testReadmeRun(t *testing.T, e *engine, img *builtImage) {
	cmds := readmeCommands(t)
	n := readmeNames{container: "hush-test-" + randomName(), volume: "hush-test-data-" + randomName(), image: img.tag, port: freePort(t)}
	base := fmt.Sprintf("http://127.0.0.1:%d", n.port)
	docker := func(key string) (string, error) {
		return e.run(context.Background(), e.runArgs(n.substitute(cmds[key]))...)
	}
	mustDocker := func(key string) {
		t.Helper()
		if _, err := docker(key); err != nil {
			t.Fatal(err)
		}
	}

	mustDocker("volume create")
	t.Cleanup(func() { e.run(context.Background(), "volume", "rm", "-f", n.volume) })
	e.removeOnCleanup(t, n.container)

	// Start to ready, as a client sees it, then the image's own HEALTHCHECK.
	start := time.Now()
	mustDocker("run")
	waitReady(t, base, 30*time.Second)
	t.Logf("start to ready (docker run to /readyz answering 200): %s", time.Since(start).Round(time.Millisecond))
	waitHealthcheck(t, e, n.container, img, 30*time.Second)
	t.Logf("start to healthy (the HEALTHCHECK command passes): %s", time.Since(start).Round(time.Millisecond))

	checkGet(t, base+"/healthz", 200, "ok")
	checkGet(t, base+"/readyz", 200, `{"database":"ok","files":"ok"}`)
	var version struct {
		ApplicationVersion string `json:"application_version"`
	}
	getJSON(t, base+"/api/v2/version", &version)
	if version.ApplicationVersion != img.version || !dottedNumeric.MatchString(version.ApplicationVersion) {
		t.Errorf("the API reports version %q, want the source's dotted numeric %q", version.ApplicationVersion, img.version)
	}

	// The process: not root, no capabilities, on a read-only root.
	checkProcess(t, e, n.container)
	_, err := e.run(context.Background(), "exec", "-e", "HUSH_DATA_DIR=/probe", n.container, "/hush", "migrate")
	if err == nil || !strings.Contains(err.Error(), "read-only file system") {
		t.Errorf("writing outside /data: %v, want a read-only file system error", err)
	}

	// A create and a retrieve; the second view waits for the restart.
	p := create(t, base, "correct horse battery staple", 2)
	retrieve(t, base, p, "correct horse battery staple", 1)

	// SIGTERM while a request is in flight: the request completes, then
	// Hush exits 0 within the shutdown timeout.
	inflight := startSlowCreate(t, n.port, "sent while stopping", 2)
	stopDone := make(chan error, 1)
	stopStart := time.Now()
	go func() { _, err := docker("stop"); stopDone <- err }()
	waitLog(t, e, n.container, "shutting down", 20*time.Second)
	q := inflight.finish(t)
	if err := <-stopDone; err != nil {
		t.Fatal(err)
	}
	stopWithRequest := time.Since(stopStart)
	st := e.inspect(t, n.container)
	if st.State.Running || st.State.ExitCode != 0 {
		t.Fatalf("after stop: running %v, exit code %d; want a clean exit 0", st.State.Running, st.State.ExitCode)
	}
	if stopWithRequest > shutdownTimeout {
		t.Errorf("stop with a request in flight took %s, over HUSH_SHUTDOWN_TIMEOUT %s", stopWithRequest, shutdownTimeout)
	}
	checkLog(t, e, n.container, "stopped")
	t.Logf("stop with a request in flight: %s (the request was held open about 1s of it)", stopWithRequest.Round(time.Millisecond))

	// The same container again: its volume keeps the database and key.
	mustDocker("start")
	waitReady(t, base, 30*time.Second)
	retrieve(t, base, p, "correct horse battery staple", 0)
	retrieve(t, base, q, "sent while stopping", 1)

	// A graceful stop with nothing in flight.
	stopStart = time.Now()
	mustDocker("stop")
	t.Logf("graceful stop (SIGTERM to exit): %s", time.Since(stopStart).Round(time.Millisecond))
	if st := e.inspect(t, n.container); st.State.ExitCode != 0 {
		t.Errorf("second stop: exit code %d, want 0", st.State.ExitCode)
	}

	// A new container on the same volume, as an upgrade does it: remove the
	// container, run the README's line again.
	e.must(t, "rm", n.container)
	mustDocker("run")
	waitReady(t, base, 30*time.Second)
	retrieve(t, base, q, "sent while stopping", 0)
	checkProcess(t, e, n.container)
}

// waitReady polls /readyz until it answers 200.
func waitReady(t *testing.T, base string, limit time.Duration) {
	t.Helper()
	start := time.Now()
	client := &http.Client{Timeout: 2 * time.Second}
	var last string
	for time.Since(start) < limit {
		resp, err := client.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s/readyz did not answer 200 within %s: %s", base, limit, last)
}

// waitHealthcheck runs the image's HEALTHCHECK command in the container
// until it passes; with podman it then has podman run the check itself and
// record the container as healthy. Docker runs the check on its own every
// interval (30s), which the test does not wait for.
func waitHealthcheck(t *testing.T, e *engine, name string, img *builtImage, limit time.Duration) {
	t.Helper()
	info := e.inspectImage(t, img.tag)
	hc := info.Config.Healthcheck
	if hc == nil {
		hc = info.Healthcheck
	}
	if hc == nil || len(hc.Test) < 2 || hc.Test[0] != "CMD" {
		t.Fatalf("the image has no CMD health check: %+v", hc)
	}
	start := time.Now()
	var err error
	for time.Since(start) < limit {
		if _, err = e.run(context.Background(), append([]string{"exec", name}, hc.Test[1:]...)...); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("the health check did not pass within %s: %v", limit, err)
	}
	if e.name == "podman" {
		if _, err := e.run(context.Background(), "healthcheck", "run", name); err != nil {
			t.Errorf("podman healthcheck run: %v", err)
		}
		if st := e.inspect(t, name); st.State.Health == nil || st.State.Health.Status != "healthy" {
			t.Errorf("podman records the container's health as %+v, want healthy", st.State.Health)
		}
	}
}

// checkProcess reads the container's main process from /proc: hush serve,
// as uid and gid 65532, with no capabilities, its root mounted read-only.
func checkProcess(t *testing.T, e *engine, name string) {
	t.Helper()
	pid := e.inspect(t, name).State.Pid
	if pid <= 0 {
		t.Fatalf("container %s has no process", name)
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatalf("read the container's process (is the engine on this host?): %v", err)
	}
	if got := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00"); !slices.Equal(got, []string{"/hush", "serve"}) {
		t.Errorf("the container runs %q, want /hush serve", got)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]string{}
	for line := range strings.SplitSeq(string(status), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[k] = strings.Join(strings.Fields(v), " ")
		}
	}
	for _, k := range []string{"Uid", "Gid"} {
		if fields[k] != "65532 65532 65532 65532" {
			t.Errorf("%s: %q, want 65532 throughout (not root)", k, fields[k])
		}
	}
	if fields["CapEff"] != "0000000000000000" || fields["CapPrm"] != "0000000000000000" {
		t.Errorf("capabilities: effective %s permitted %s, want none", fields["CapEff"], fields["CapPrm"])
	}
	mountinfo, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", pid))
	if err != nil {
		t.Fatal(err)
	}
	rootRO := false
	for line := range strings.SplitSeq(string(mountinfo), "\n") {
		f := strings.Fields(line)
		if len(f) > 5 && f[4] == "/" {
			rootRO = slices.Contains(strings.Split(f[5], ","), "ro")
		}
	}
	if !rootRO {
		t.Errorf("the container's root file system is not mounted read-only")
	}
}

// waitLog waits until the container's log contains s.
func waitLog(t *testing.T, e *engine, name, s string, limit time.Duration) {
	t.Helper()
	start := time.Now()
	for time.Since(start) < limit {
		if strings.Contains(logs(e, name), s) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("container %s did not log %q within %s", name, s, limit)
}

func checkLog(t *testing.T, e *engine, name, s string) {
	t.Helper()
	if l := logs(e, name); !strings.Contains(l, s) {
		t.Errorf("container %s did not log %q:\n%s", name, s, l)
	}
}

func logs(e *engine, name string) string {
	out, _ := exec.Command(e.name, "logs", name).CombinedOutput()
	return string(out)
}

// slowCreate is a create request whose body is still being sent.
type slowCreate struct {
	conn net.Conn
	rest []byte
}

// startSlowCreate sends the headers and half the body of a create, and
// waits long enough for the server to be reading that body.
func startSlowCreate(t *testing.T, port int, payload string, views int) *slowCreate {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"push": map[string]any{
		"payload": payload, "expire_after_views": views, "retrieval_step": false,
	}})
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	half := len(body) / 2
	fmt.Fprintf(conn, "POST /api/v2/pushes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	if _, err := conn.Write(body[:half]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	return &slowCreate{conn: conn, rest: body[half:]}
}

// finish sends the rest of the body and returns the created push's token.
func (s *slowCreate) finish(t *testing.T) string {
	t.Helper()
	time.Sleep(700 * time.Millisecond) // the server is shutting down meanwhile
	if _, err := s.conn.Write(s.rest); err != nil {
		t.Fatalf("finish the in-flight request: %v", err)
	}
	s.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(s.conn), nil)
	if err != nil {
		t.Fatalf("the in-flight request got no answer: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("the in-flight create: %s %s", resp.Status, b)
	}
	var p struct {
		URLToken string `json:"url_token"`
	}
	if err := json.Unmarshal(b, &p); err != nil || p.URLToken == "" {
		t.Fatalf("the in-flight create: %v %s", err, b)
	}
	return p.URLToken
}

// create makes a text push without the retrieval step and returns its token.
func create(t *testing.T, base, payload string, views int) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"push": map[string]any{
		"payload": payload, "expire_after_views": views, "retrieval_step": false,
	}})
	resp, err := http.Post(base+"/api/v2/pushes", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var p struct {
		URLToken string `json:"url_token"`
	}
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(b, &p) != nil || p.URLToken == "" {
		t.Fatalf("create on %s: %s %s", base, resp.Status, b)
	}
	return p.URLToken
}

// pushView is the part of a retrieve answer the tests read.
type pushView struct {
	Payload        *string `json:"payload"`
	ViewsRemaining int     `json:"views_remaining"`
	Expired        bool    `json:"expired"`
	Files          []struct {
		Filename string `json:"filename"`
		URL      string `json:"url"`
	} `json:"files"`
}

// retrieve takes one view of a push and checks its payload and the views left.
func retrieve(t *testing.T, base, token, payload string, viewsLeft int) pushView {
	t.Helper()
	var v pushView
	getJSON(t, base+"/api/v2/pushes/"+token, &v)
	if v.Payload == nil || *v.Payload != payload || v.ViewsRemaining != viewsLeft {
		got := "<nil>"
		if v.Payload != nil {
			got = *v.Payload
		}
		t.Fatalf("retrieve %s on %s: payload %q views_remaining %d expired %v; want %q with %d left",
			token, base, got, v.ViewsRemaining, v.Expired, payload, viewsLeft)
	}
	return v
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	code, b := get(t, url)
	if code != 200 {
		t.Fatalf("GET %s: %d %s", url, code, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v: %s", url, err, b)
	}
}

func checkGet(t *testing.T, url string, code int, body string) {
	t.Helper()
	got, b := get(t, url)
	if got != code || strings.TrimSpace(string(b)) != body {
		t.Errorf("GET %s: %d %q, want %d %q", url, got, b, code, body)
	}
}

// get fetches url and returns its status and body.
func get(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, b
}
