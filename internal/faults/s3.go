package faults

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"hush/internal/client"
	"hush/internal/faultproxy"
	"hush/internal/hushproc"
)

// s3Down takes the S3 server away (connections cut and refused) while an
// upload and a download are in flight: the upload is answered 503, never
// 500; the cut download is logged as a failure of the file store, not as
// altered data; readiness names the file store; and once the server is
// back the parts of the failed upload are gone within seconds and files
// upload and download again.
func s3Down(ctx context.Context, w *world) (string, error) {
	e, err := startOnS3(ctx, w)
	if err != nil {
		return "", err
	}
	size := w.scale(48<<20, 128<<20)
	kept := map[string][32]byte{} // url_token → digest of its file
	var link string
	for i := range 2 {
		data := pattern(size, byte(i))
		res, err := e.owner.CreateWithFiles(ctx, map[string]string{"push[expire_after_views]": "10"},
			client.Upload{Name: fmt.Sprintf("kept-%d.bin", i), Data: data})
		if err != nil {
			return "", fmt.Errorf("upload before the fault: %w", err)
		}
		kept[res.URLToken] = sha256.Sum256(data)
		if link, err = fileLink(ctx, e.owner, res.URLToken); err != nil {
			return "", err
		}
	}

	uploadStatus, downloaded := e.cutInFlight(ctx, w, link, size)
	time.Sleep(1100 * time.Millisecond) // past the last readiness answer kept
	during := w.readyz(ctx, e.base)
	e.checkDuring(w, uploadStatus, downloaded, size, during)

	e.proxy.Set(faultproxy.Pass)
	rec, err := w.waitReady(ctx, e.base, 30*time.Second)
	if err != nil {
		w.violate("%v", err)
	}
	partsGone := e.waitPartsGone(ctx, w)
	intactFiles := e.checkFiles(ctx, w, kept)
	if _, err := e.owner.CreateWithFiles(ctx, map[string]string{}, client.Upload{Name: "after.bin", Data: []byte("after")}); err != nil {
		w.violate("upload after the file store came back: %v", err)
	}
	return fmt.Sprintf("S3 cut and refused with a %d MiB upload and download halfway: the upload answered %d, "+
		"the download cut and logged as a file store failure; /readyz %d `%s`; back: ready %s later, "+
		"the failed upload's parts gone %s after that, %d acknowledged files intact, uploads 201",
		size>>20, uploadStatus, during.status, during.body, secs(rec), secs(partsGone), intactFiles), nil
}

// onS3 is a server whose files are in an S3 bucket reached through a fault
// proxy, and a client of its owner.
type onS3 struct {
	proc                             *hushproc.Proc
	proxy                            *faultproxy.Proxy
	base, token                      string
	owner                            *client.Client
	endpoint, access, secret, bucket string
}

func startOnS3(ctx context.Context, w *world) (*onS3, error) {
	e := &onS3{}
	e.endpoint, e.access, e.secret, e.bucket = w.opt.S3()
	var err error
	if e.proxy, err = faultproxy.Start(e.endpoint); err != nil {
		return nil, err
	}
	w.onCleanup(func() { e.proxy.Close() })
	spec := hushproc.Spec{Binary: w.opt.Binary, Env: w.env("HUSH_DATA_DIR="+w.opt.Dir(), "HUSH_S3_ENDPOINT="+e.proxy.Addr(),
		"HUSH_S3_BUCKET="+e.bucket, "HUSH_S3_ACCESS_KEY="+e.access, "HUSH_S3_SECRET_KEY="+e.secret, "HUSH_S3_USE_SSL=false")}
	if e.proc, err = w.start(spec); err != nil {
		return nil, err
	}
	e.base = e.proc.URL()
	if e.token, err = apiToken(ctx, spec, "s3@example.com"); err != nil {
		return nil, err
	}
	e.owner = &client.Client{Base: e.base, Token: e.token, HTTP: w.hc}
	return e, nil
}

// cutInFlight starts an upload and a download, each paused halfway, takes
// the server away, and returns the upload's status and how much of the
// download came.
func (e *onS3) cutInFlight(ctx context.Context, w *world, link string, size int) (int, int64) {
	cut := make(chan struct{})
	var wg sync.WaitGroup
	var uploadStatus int
	var downloaded int64
	wg.Go(func() { uploadStatus = uploadPaused(ctx, e.base, e.token, size, cut) })
	wg.Go(func() { downloaded = downloadPaused(ctx, w.hc, link, cut) })
	time.Sleep(time.Second)
	e.proxy.Set(faultproxy.Refuse)
	e.proxy.Cut()
	close(cut)
	wg.Wait()
	w.count(uploadStatus)
	return uploadStatus, downloaded
}

// checkDuring checks what was answered and logged with the server gone.
func (e *onS3) checkDuring(w *world, uploadStatus int, downloaded int64, size int, during readiness) {
	if uploadStatus != http.StatusServiceUnavailable && uploadStatus != 0 {
		w.violate("the upload cut by the file store was answered %d, want 503", uploadStatus)
	}
	if downloaded >= int64(size) {
		w.violate("the download went through whole although the file store was gone")
	}
	logs := e.proc.Log()
	if !strings.Contains(logs, "the file store failed while sending it") || strings.Contains(logs, "does not authenticate") {
		w.violate("the cut download was not logged as a file store failure")
	}
	if during.status != http.StatusServiceUnavailable || !strings.Contains(during.body, `"files":"unreachable"`) {
		w.violate("/readyz answered %d %s with the file store gone", during.status, during.body)
	}
}

// waitPartsGone waits until the bucket holds no unfinished upload and
// returns how long that took.
func (e *onS3) waitPartsGone(ctx context.Context, w *world) time.Duration {
	direct, err := minio.New(e.endpoint, &minio.Options{Creds: credentials.NewStaticV4(e.access, e.secret, "")})
	if err != nil {
		w.violate("S3 client: %v", err)
		return 0
	}
	for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(200 * time.Millisecond) {
		n := 0
		for range direct.ListIncompleteUploads(ctx, e.bucket, "", true) {
			n++
		}
		if n == 0 {
			return time.Since(start)
		}
	}
	w.violate("the parts of the failed upload were still stored 30 s after the server came back")
	return 0
}

// checkFiles downloads every kept file and compares its digest.
func (e *onS3) checkFiles(ctx context.Context, w *world, kept map[string][32]byte) int {
	intact := 0
	for tok, sum := range kept {
		l, err := fileLink(ctx, e.owner, tok)
		if err == nil {
			var body []byte
			body, err = e.owner.Download(ctx, l)
			if err == nil && sha256.Sum256(body) != sum {
				err = fmt.Errorf("contents differ")
			}
		}
		if err != nil {
			w.violate("a file acknowledged before the fault: %v", err)
			continue
		}
		intact++
	}
	return intact
}

// pattern is n bytes of a pattern set by seed.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) ^ seed
	}
	return b
}

// fileLink retrieves tok as its owner (no view) and returns the link of its
// first file.
func fileLink(ctx context.Context, owner *client.Client, tok string) (string, error) {
	p, err := owner.Retrieve(ctx, tok, "")
	if err != nil {
		return "", err
	}
	if len(p.Files) == 0 {
		return "", fmt.Errorf("push without files")
	}
	return p.Files[0].URL, nil
}

// uploadPaused sends a file push of size bytes whose body stops halfway
// until cut is closed, and returns the status (0 when the connection ended
// without one).
func uploadPaused(ctx context.Context, base, token string, size int, cut <-chan struct{}) int {
	head, ctype := client.Multipart(map[string]string{"push[expire_after_views]": "2"},
		client.Upload{Name: "cut.bin", Data: pattern(size, 9)})
	half := len(head) / 2
	body := io.MultiReader(bytes.NewReader(head[:half]), &waitReader{cut: cut}, bytes.NewReader(head[half:]))
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/api/v2/pushes", body)
	if err != nil {
		return 0
	}
	req.ContentLength = int64(len(head))
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}

// waitReader blocks until cut is closed, then ends.
type waitReader struct{ cut <-chan struct{} }

func (r *waitReader) Read([]byte) (int, error) {
	<-r.cut
	return 0, io.EOF
}

// downloadPaused reads a download's first MiB, waits for cut, reads on and
// returns how many bytes came.
func downloadPaused(ctx context.Context, hc *http.Client, link string, cut <-chan struct{}) int64 {
	req, err := http.NewRequestWithContext(ctx, "GET", link, nil)
	if err != nil {
		return 0
	}
	res, err := hc.Do(req)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	n, _ := io.CopyN(io.Discard, res.Body, 1<<20)
	<-cut
	rest, _ := io.Copy(io.Discard, res.Body)
	return n + rest
}
