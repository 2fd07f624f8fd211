package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"hush/internal/blob/s3test"
	"hush/internal/client"
)

// s3Env is a data dir whose files go to a fresh bucket of srv.
func s3Env(t *testing.T, srv *s3test.Server) map[string]string {
	secretFile := filepath.Join(t.TempDir(), "s3-secret")
	if err := os.WriteFile(secretFile, []byte(s3test.SecretKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"HUSH_DATA_DIR":           t.TempDir(),
		"HUSH_S3_ENDPOINT":        srv.Endpoint,
		"HUSH_S3_BUCKET":          srv.Bucket(t),
		"HUSH_S3_ACCESS_KEY":      s3test.AccessKey,
		"HUSH_S3_SECRET_KEY_FILE": secretFile,
		"HUSH_S3_USE_SSL":         "false",
		"HUSH_S3_PREFIX":          "hush",
	}
}

// uploadFile creates a file push of data as a multipart form.
func uploadFile(t *testing.T, url, token string, data []byte) string {
	t.Helper()
	p, err := (&client.Client{Base: url, Token: token}).CreateWithFiles(context.Background(),
		map[string]string{"payload": "see the file", "expire_after_views": "2"}, client.Upload{Name: "big.bin", Data: data})
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	return p.URLToken
}

// TestServeWithS3 pushes a file through one instance and downloads it
// through a second one sharing the database and the bucket; the bucket
// holds only ciphertext and the data dir no files.
func TestServeWithS3(t *testing.T) {
	srv := s3test.Start(t)
	env := s3Env(t, srv)
	token := apiToken(t, env, "s3@example.com", "long-enough-pw")

	a := startServe(t, env)
	b := startServe(t, env)
	data := make([]byte, 20<<20) // more than one S3 part
	rand.Read(data)
	urlToken := uploadFile(t, a.url, token, data)

	status, obj := call(t, "GET", b.url+"/api/v2/pushes/"+urlToken, nil)
	if status != 200 {
		t.Fatalf("retrieve through the second instance: %d %v", status, obj)
	}
	files, _ := obj.(map[string]any)["files"].([]any)
	if len(files) != 1 {
		t.Fatalf("files: %v", obj)
	}
	link := files[0].(map[string]any)["url"].(string)
	if !strings.HasPrefix(link, b.url) {
		t.Errorf("link %s does not point at the second instance %s", link, b.url)
	}
	res, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	got := sha256.New()
	n, err := io.Copy(got, res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != 200 || n != int64(len(data)) {
		t.Fatalf("download: %d, %d bytes, %v", res.StatusCode, n, err)
	}
	if want := sha256.Sum256(data); !bytes.Equal(got.Sum(nil), want[:]) {
		t.Error("downloaded file differs from the upload")
	}

	// The bucket holds one sealed object under the prefix; no plaintext.
	ctx := context.Background()
	var keys []string
	for o := range srv.Client.ListObjects(ctx, env["HUSH_S3_BUCKET"], minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		keys = append(keys, o.Key)
	}
	if len(keys) != 1 || !strings.HasPrefix(keys[0], "hush/") {
		t.Fatalf("bucket holds %v, want one object under hush/", keys)
	}
	obj2, err := srv.Client.GetObject(ctx, env["HUSH_S3_BUCKET"], keys[0], minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := io.ReadAll(obj2)
	obj2.Close()
	if err != nil || len(stored) < len(data) {
		t.Fatalf("stored object: %d bytes, %v", len(stored), err)
	}
	if bytes.Contains(stored, data[:64]) || bytes.Contains(stored, data[len(data)/2:len(data)/2+64]) {
		t.Error("the stored object holds plaintext")
	}
	if entries, err := os.ReadDir(filepath.Join(env["HUSH_DATA_DIR"], "files")); err == nil && len(entries) > 0 {
		t.Errorf("data dir holds files: %v", entries)
	}
}

// TestServeS3Unreachable checks that serve stops at start when the bucket
// cannot be reached, saying why, without the secret key.
func TestServeS3Unreachable(t *testing.T) {
	srv := s3test.Start(t)
	env := s3Env(t, srv)
	env["HUSH_S3_BUCKET"] = "no-such-bucket"
	env["HUSH_ADDR"] = "127.0.0.1:0"
	code, _, errOut := run(t, env, "", "serve")
	if code == 0 || !strings.Contains(errOut, "no-such-bucket") || !strings.Contains(errOut, "does not exist") {
		t.Errorf("serve with a missing bucket: %d %s", code, errOut)
	}
	if strings.Contains(errOut, s3test.SecretKey) {
		t.Error("the error shows the secret key")
	}
	if strings.Contains(errOut, "listening") {
		t.Error("serve listened despite the missing bucket")
	}
}
