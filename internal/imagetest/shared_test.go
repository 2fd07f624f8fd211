package imagetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/oasdiff/yaml"

	"hush/internal/blob/s3test"
	"hush/internal/testdb"
)

// composeService is the part of a deploy/compose.yaml service the test reads.
type composeService struct {
	Image string `json:"image"`
	Build struct {
		Context    string `json:"context"`
		Dockerfile string `json:"dockerfile"`
	} `json:"build"`
	ReadOnly    bool              `json:"read_only"`
	Environment map[string]string `json:"environment"`
	Secrets     []string          `json:"secrets"`
}

// composeHush reads the Hush services of deploy/compose.yaml, checks that
// they run the image `make image` builds, and returns their settings.
func composeHush(t *testing.T) composeService {
	t.Helper()
	y, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	j, err := yaml.YAMLToJSON(y)
	if err != nil {
		t.Fatalf("deploy/compose.yaml: %v", err)
	}
	var c struct {
		Services map[string]composeService `json:"services"`
		Secrets  map[string]struct {
			File string `json:"file"`
		} `json:"secrets"`
	}
	if err := json.Unmarshal(j, &c); err != nil {
		t.Fatalf("deploy/compose.yaml: %v", err)
	}
	h1, ok1 := c.Services["hush1"]
	h2, ok2 := c.Services["hush2"]
	if !ok1 || !ok2 {
		t.Fatal("deploy/compose.yaml has no services hush1 and hush2")
	}
	b1, _ := json.Marshal(h1)
	b2, _ := json.Marshal(h2)
	if !bytes.Equal(b1, b2) {
		t.Errorf("hush1 and hush2 differ in deploy/compose.yaml:\n%s\n%s", b1, b2)
	}
	// The image make image builds, from the context it prepares.
	if h1.Image != "hush:latest" || h1.Build.Context != "../bin/image" || h1.Build.Dockerfile != "Containerfile" {
		t.Errorf("compose's hush services use image %q built from %s/%s; want hush:latest from ../bin/image/Containerfile (make image)",
			h1.Image, h1.Build.Context, h1.Build.Dockerfile)
	}
	if !h1.ReadOnly {
		t.Error("compose's hush services lack read_only: true")
	}
	for _, s := range []string{"master_key", "s3_secret"} {
		if !slices.Contains(h1.Secrets, s) || c.Secrets[s].File == "" {
			t.Errorf("compose's hush services lack the file secret %s", s)
		}
	}
	return h1
}

// testSharedInstances is what deploy/compose.yaml sets up, less what needs
// images that cannot be had here (postgres, minio, nginx): two containers
// of the image with the compose file's environment and secrets, sharing a
// PostgreSQL and an S3 server (versitygw) that run on the host. The
// containers use the host's network, so everything stays on loopback.
func testSharedInstances(t *testing.T, e *engine, img *builtImage) {
	svc := composeHush(t)
	dbURL := testdb.PostgresURL(t)
	s3 := s3test.Start(t)
	bucket := s3.Bucket(t)

	secrets := t.TempDir()
	if err := os.Chmod(secrets, 0o755); err != nil {
		t.Fatal(err)
	}
	key := make([]byte, 32)
	rand.Read(key)
	secretFiles := map[string]string{
		"master_key": hex.EncodeToString(key) + "\n",
		"s3_secret":  s3test.SecretKey + "\n",
	}
	var mounts []string
	for _, name := range []string{"master_key", "s3_secret"} {
		content := secretFiles[name]
		p := filepath.Join(secrets, name)
		// Readable by the image's user (65532), as deploy/README.md says.
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		mounts = append(mounts, "-v", p+":/run/secrets/"+name+":ro")
	}

	// The compose file's environment, pointed at the host's servers.
	env := map[string]string{}
	for k, v := range svc.Environment {
		env[k] = v
	}
	for k, v := range map[string]string{
		"HUSH_DATABASE_URL":  dbURL,
		"HUSH_S3_ENDPOINT":   s3.Endpoint,
		"HUSH_S3_BUCKET":     bucket,
		"HUSH_S3_ACCESS_KEY": s3test.AccessKey,
	} {
		if _, ok := env[k]; !ok {
			t.Errorf("compose's hush services do not set %s", k)
		}
		env[k] = v
	}
	for k, want := range map[string]string{
		"HUSH_MASTER_KEY_FILE":    "/run/secrets/master_key",
		"HUSH_S3_SECRET_KEY_FILE": "/run/secrets/s3_secret",
	} {
		if env[k] != want {
			t.Errorf("compose sets %s=%q, want %s", k, env[k], want)
		}
	}
	baseURL := env["HUSH_BASE_URL"]

	type instance struct{ name, url string }
	var hush []instance
	for i := range 2 {
		port := freePort(t)
		inst := instance{name: fmt.Sprintf("hush-test-%d-%s", i+1, randomName()), url: fmt.Sprintf("http://127.0.0.1:%d", port)}
		args := []string{"run", "-d", "--name", inst.name, "--network", "host", "--read-only"}
		args = append(args, mounts...)
		env["HUSH_ADDR"] = fmt.Sprintf("127.0.0.1:%d", port)
		keys := make([]string, 0, len(env))
		for k := range env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			args = append(args, "-e", k+"="+env[k])
		}
		args = append(args, img.tag)
		e.removeOnCleanup(t, inst.name)
		start := time.Now()
		e.must(t, e.runArgs(args)...)
		waitReady(t, inst.url, 60*time.Second)
		// The health check finds serve on HUSH_ADDR, not on :5100.
		waitHealthcheck(t, e, inst.name, img, 30*time.Second)
		t.Logf("%s: start to healthy on PostgreSQL and S3: %s", inst.name, time.Since(start).Round(time.Millisecond))
		checkGet(t, inst.url+"/readyz", 200, `{"database":"ok","files":"ok"}`)
		hush = append(hush, inst)
	}

	// The admin verbs in the containers share the database: a user made
	// through one instance gets a token through the other.
	e.must(t, "exec", hush[0].name, "/hush", "user", "create", "--email", "ops@example.com")
	out := e.must(t, "exec", hush[1].name, "/hush", "token", "create", "--email", "ops@example.com")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	token := lines[len(lines)-1]

	// A file push made on the first instance is read and downloaded on the
	// second; the bucket holds only ciphertext.
	fileContent := "-----BEGIN OPENSSH PRIVATE KEY----- " + randomName() + randomName()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("push[payload]", "the deploy key")
	mw.WriteField("push[expire_after_views]", "2")
	mw.WriteField("push[retrieval_step]", "false")
	fw, _ := mw.CreateFormFile("push[files][]", "id_ed25519")
	io.WriteString(fw, fileContent)
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, hush[0].url+"/api/v2/pushes", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var created struct {
		URLToken string `json:"url_token"`
	}
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(b, &created) != nil || created.URLToken == "" {
		t.Fatalf("file push on %s: %s %s", hush[0].name, resp.Status, b)
	}
	v := retrieve(t, hush[1].url, created.URLToken, "the deploy key", 1)
	if len(v.Files) != 1 || v.Files[0].Filename != "id_ed25519" {
		t.Fatalf("the file push's files on %s: %+v", hush[1].name, v.Files)
	}
	link, err := url.Parse(v.Files[0].URL)
	if err != nil || baseURL == "" || !strings.HasPrefix(v.Files[0].URL, baseURL+"/") {
		t.Errorf("download link %q does not start with compose's HUSH_BASE_URL %q", v.Files[0].URL, baseURL)
	}
	for _, inst := range []instance{hush[1], hush[0]} {
		resp, err := http.Get(inst.url + link.RequestURI())
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(got) != fileContent {
			t.Errorf("download on %s: %s %q, want the file", inst.name, resp.Status, got)
		}
	}
	objects := 0
	for obj := range s3.Client.ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Recursive: true}) {
		if obj.Err != nil {
			t.Fatal(obj.Err)
		}
		objects++
		r, err := s3.Client.GetObject(context.Background(), bucket, obj.Key, minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		stored, _ := io.ReadAll(r)
		r.Close()
		if bytes.Contains(stored, []byte(fileContent)) || strings.Contains(obj.Key, "id_ed25519") {
			t.Errorf("object %s in the bucket shows the file in the clear", obj.Key)
		}
	}
	if objects != 1 {
		t.Errorf("the bucket holds %d objects, want the one file", objects)
	}

	// A passphrase-protected push made on the second instance is opened on
	// the first, and its last view there expires it for both.
	body.Reset()
	json.NewEncoder(&body).Encode(map[string]any{"push": map[string]any{
		"payload": "db password", "passphrase": "open sesame", "expire_after_views": 1, "retrieval_step": false,
	}})
	resp, err = http.Post(hush[1].url+"/api/v2/pushes", "application/json", &body)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(b, &created) != nil {
		t.Fatalf("create on %s: %s %s", hush[1].name, resp.Status, b)
	}
	retrieve(t, hush[0].url, created.URLToken+"?passphrase=open+sesame", "db password", 0)
	var gone pushView
	getJSON(t, hush[1].url+"/api/v2/pushes/"+created.URLToken+"?passphrase=open+sesame", &gone)
	if !gone.Expired || gone.Payload != nil {
		t.Errorf("after its last view on %s, %s still serves the push: %+v", hush[0].name, hush[1].name, gone)
	}
}
