// Package s3 keeps file contents in an S3-compatible bucket (AWS S3, MinIO,
// Ceph, versitygw, …): a blob.FileStore shared by several instances.
package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"hush/internal/blob"
)

// PartSize is the part size of the multipart uploads of S3.Put. minio-go
// reads one whole part into a buffer before sending it, so every upload in
// flight holds a buffer of this size however large the file; with the GC's
// headroom that measured about 33 MiB of RSS per concurrent upload. S3
// requires parts of at least 5 MiB and allows at most 10,000 parts: the
// largest blob is 160 GiB.
const PartSize = 16 << 20

// maxRetries is how often the client tries one request to the server.
const maxRetries = 4

// Options configures an S3 store.
type Options struct {
	Endpoint  string // host:port, without scheme
	Bucket    string
	AccessKey string
	SecretKey string
	Region    string // "" means us-east-1
	UseSSL    bool
	Prefix    string // optional key prefix, e.g. "hush/"
}

// Store keeps blobs as objects of an S3-compatible bucket, under an optional
// key prefix. Contents arrive sealed, as for blob.Disk. A blob is uploaded with a
// multipart upload that is completed only when its reader ends without
// error, so a failed upload never becomes a visible object; Walk reports the
// multipart uploads that were left behind (e.g. by a crash), and Delete
// aborts them.
type Store struct {
	client *minio.Client
	bucket string
	prefix string
}

// New returns an S3 store. It does not contact the server: call Ping.
func New(o Options) (*Store, error) {
	if o.Endpoint == "" || o.Bucket == "" {
		return nil, errors.New("blob: S3 needs an endpoint and a bucket")
	}
	region := o.Region
	if region == "" {
		region = "us-east-1"
	}
	c, err := minio.New(o.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(o.AccessKey, o.SecretKey, ""),
		Secure: o.UseSSL,
		Region: region,
		// A few retries ride out a dropped connection; a server that is
		// down fails the request within about two seconds instead of ten.
		MaxRetries: maxRetries,
	})
	if err != nil {
		return nil, fmt.Errorf("blob: S3 client for %s: %w", o.Endpoint, err)
	}
	prefix := strings.Trim(o.Prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	return &Store{client: c, bucket: o.Bucket, prefix: prefix}, nil
}

func (s *Store) key(id string) (string, error) {
	if !blob.ValidID(id) {
		return "", fmt.Errorf("blob: invalid id %q", id)
	}
	return s.prefix + id, nil
}

// Put implements FileStore. It streams r in parts of PartSize bytes, with
// one part in memory at a time. On any error the multipart upload is
// aborted at once, so nothing becomes visible and no part stays stored.
func (s *Store) Put(ctx context.Context, id string, r io.Reader) (int64, error) {
	key, err := s.key(id)
	if err != nil {
		return 0, err
	}
	// Ids are random, so this never trips in practice; it keeps Put from
	// silently replacing a blob, as Disk refuses to.
	if _, err := s.client.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{}); err == nil {
		return 0, fmt.Errorf("blob: %s already exists", id)
	} else if !isNoSuchKey(err) {
		return 0, fmt.Errorf("blob: put %s: %w", id, fault(err))
	}
	src := &sourceReader{r: blob.ContextReader(ctx, r)}
	info, err := s.client.PutObject(ctx, s.bucket, key, src, -1, minio.PutObjectOptions{
		PartSize:    PartSize,
		ContentType: "application/octet-stream",
	})
	if err != nil {
		s.abort(key)
		if src.err != nil {
			// The upload's source failed (its client left, sent too
			// much): not the store's fault.
			return info.Size, fmt.Errorf("blob: write %s: %w", id, src.err)
		}
		return info.Size, fmt.Errorf("blob: write %s: %w", id, fault(err))
	}
	return info.Size, nil
}

// abort removes the parts a failed upload left on the server, at once,
// on a context of its own (the request's may be what ended the upload).
// While the server cannot be reached it tries again in the background,
// every few seconds for abortFor; after that the sweeper removes them
// within the hour.
func (s *Store) abort(key string) {
	if s.removeParts(key) {
		return
	}
	go func() {
		wait := time.Second
		for deadline := time.Now().Add(abortFor); time.Now().Before(deadline); wait = min(2*wait, 30*time.Second) {
			time.Sleep(wait)
			if s.removeParts(key) {
				return
			}
		}
	}()
}

// abortFor is how long abort keeps trying while the server is unreachable.
const abortFor = 10 * time.Minute

// removeParts aborts the multipart upload of key, if any; it reports
// whether the server answered.
func (s *Store) removeParts(key string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.client.RemoveIncompleteUpload(ctx, s.bucket, key)
	return err == nil || isNoSuchKey(err) || minio.ToErrorResponse(err).Code == "NoSuchUpload"
}

// sourceReader remembers the error of the reader an upload streams from,
// to tell the source's failures from the server's.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
		// Wrapped: minio-go takes a bare io.ErrUnexpectedEOF for the end
		// of the data and would complete the object short.
		err = fmt.Errorf("upload source: %w", err)
	}
	return n, err
}

// fault wraps an error of the S3 server or of the connection to it in a
// blob.FaultError saying what it means for the requests: a full store, a
// busy one, or one that cannot be reached. Other answers (a missing key,
// access denied) are returned as they are.
func fault(err error) error {
	resp := minio.ToErrorResponse(err)
	switch {
	case resp.Code == "XMinioStorageFull" || resp.StatusCode == 507:
		return &blob.FaultError{Fault: blob.Full, Err: err}
	case resp.Code == "SlowDown" || resp.StatusCode == 503 || resp.StatusCode == 429:
		return &blob.FaultError{Fault: blob.Busy, Err: err}
	case resp.StatusCode >= 500:
		return &blob.FaultError{Fault: blob.Unreachable, Err: err}
	case resp.StatusCode != 0:
		return err
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return &blob.FaultError{Fault: blob.Unreachable, Err: err}
	}
	return err
}

// Open implements FileStore. The GET request is sent before Open returns, so
// a missing blob is blob.ErrNotFound here rather than on the first Read.
func (s *Store) Open(ctx context.Context, id string) (io.ReadCloser, error) {
	key, err := s.key(id)
	if err != nil {
		return nil, blob.ErrNotFound
	}
	obj, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("blob: open %s: %w", id, fault(err))
	}
	if _, err := obj.Stat(); err != nil {
		obj.Close()
		if isNoSuchKey(err) {
			return nil, blob.ErrNotFound
		}
		return nil, fmt.Errorf("blob: open %s: %w", id, fault(err))
	}
	return objectReader{obj}, nil
}

// objectReader reads an object, its errors classified like the others'.
type objectReader struct{ *minio.Object }

func (o objectReader) Read(p []byte) (int, error) {
	n, err := o.Object.Read(p)
	if err != nil && err != io.EOF {
		err = fault(err)
	}
	return n, err
}

// Delete implements FileStore: it removes the object and aborts any
// multipart upload still open under its key.
func (s *Store) Delete(ctx context.Context, id string) error {
	key, err := s.key(id)
	if err != nil {
		return err
	}
	if err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}); err != nil && !isNoSuchKey(err) {
		return fmt.Errorf("blob: delete %s: %w", id, fault(err))
	}
	if err := s.client.RemoveIncompleteUpload(ctx, s.bucket, key); err != nil && !isNoSuchKey(err) &&
		minio.ToErrorResponse(err).Code != "NoSuchUpload" {
		return fmt.Errorf("blob: abort upload %s: %w", id, fault(err))
	}
	return nil
}

// Walk implements FileStore: every object under the prefix with its
// LastModified time, then every unfinished multipart upload with the time
// it was initiated.
func (s *Store) Walk(ctx context.Context, fn func(id string, modified time.Time) error) error {
	ctx, cancel := context.WithCancel(ctx) // stops the listings if fn fails
	defer cancel()
	for obj := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix, Recursive: true}) {
		if obj.Err != nil {
			return fmt.Errorf("blob: list objects: %w", obj.Err)
		}
		if id, ok := s.id(obj.Key); ok {
			if err := fn(id, obj.LastModified); err != nil {
				return err
			}
		}
	}
	for up := range s.client.ListIncompleteUploads(ctx, s.bucket, s.prefix, true) {
		if up.Err != nil {
			return fmt.Errorf("blob: list uploads: %w", up.Err)
		}
		if id, ok := s.id(up.Key); ok {
			if err := fn(id, up.Initiated); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// id returns the blob id of an object key, if it names one.
func (s *Store) id(key string) (string, bool) {
	id, ok := strings.CutPrefix(key, s.prefix)
	return id, ok && blob.ValidID(id)
}

// Ping implements FileStore: the bucket must exist and be reachable with
// the configured credentials.
func (s *Store) Ping(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return fmt.Errorf("blob: S3 bucket %q at %s: %w", s.bucket, s.client.EndpointURL().Host, fault(err))
	}
	if !ok {
		return fmt.Errorf("blob: S3 bucket %q does not exist at %s", s.bucket, s.client.EndpointURL().Host)
	}
	return nil
}

func isNoSuchKey(err error) bool {
	return minio.ToErrorResponse(err).Code == minio.NoSuchKey
}
