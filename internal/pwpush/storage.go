package pwpush

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"hush/internal/blob"
	"hush/internal/blob/s3"
)

// S3Bucket is the bucket of Password Pusher's S3 storage services, as its
// settings name it (PWP__FILES__S3__ENDPOINT, _ACCESS_KEY_ID,
// _SECRET_ACCESS_KEY, _REGION, _BUCKET).
type S3Bucket struct {
	// Endpoint is the service's URL, such as "https://s3.eu-west-1.amazonaws.com"
	// or "http://minio:9000"; "" is Amazon S3. A bare host:port is taken as
	// https.
	Endpoint        string
	AccessKeyID     string
	SecretAccessKey string
	Region          string // "" is us-east-1
	Bucket          string
}

// Storages opens the files of blobs where Password Pusher keeps them: on
// the Disk service under DiskRoot (its storage/ directory), or in an S3
// bucket. Either may be missing; a blob on a service that is missing, or
// on GCS or Azure, cannot be opened (ErrStorage says which and why).
type Storages struct {
	DiskRoot string
	s3       *s3.Store
}

// ErrStorage is wrapped by Open's errors about where a blob lives: a
// service that was not configured or that Hush does not read.
var ErrStorage = errors.New("storage service not available")

// NewStorages returns Storages for a Disk root ("" for none) and an S3
// bucket (nil for none). It does not contact the bucket: see Ping.
func NewStorages(diskRoot string, bucket *S3Bucket) (*Storages, error) {
	st := &Storages{DiskRoot: diskRoot}
	if bucket == nil {
		return st, nil
	}
	host, tls, err := s3Endpoint(bucket.Endpoint, bucket.Region)
	if err != nil {
		return nil, err
	}
	if bucket.Bucket == "" {
		return nil, errors.New("S3 storage: no bucket")
	}
	st.s3, err = s3.New(s3.Options{Endpoint: host, Bucket: bucket.Bucket, AccessKey: bucket.AccessKeyID,
		SecretKey: bucket.SecretAccessKey, Region: bucket.Region, UseSSL: tls})
	return st, err
}

// s3Endpoint turns Active Storage's endpoint URL into host:port and
// whether to use TLS.
func s3Endpoint(endpoint, region string) (string, bool, error) {
	if endpoint == "" {
		if region == "" || region == "us-east-1" {
			return "s3.amazonaws.com", true, nil
		}
		return "s3." + region + ".amazonaws.com", true, nil
	}
	if !strings.Contains(endpoint, "://") {
		endpoint = "https://" + endpoint
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false, errors.New("S3 storage: the endpoint is not an http(s) URL")
	}
	return u.Host, u.Scheme == "https", nil
}

// Ping checks that the S3 bucket, when there is one, can be reached.
func (st *Storages) Ping(ctx context.Context) error {
	if st.s3 == nil {
		return nil
	}
	return st.s3.Ping(ctx)
}

// HasS3 reports whether an S3 bucket was given.
func (st *Storages) HasS3() bool { return st.s3 != nil }

// Open returns the contents of a blob from the service it lives on.
// Reading them to the end checks their size and checksum (VerifyReader).
func (st *Storages) Open(ctx context.Context, b Blob) (io.ReadCloser, error) {
	switch kind := StorageKind(b.ServiceName); {
	case kind == StorageDisk && st.DiskRoot != "":
		return OpenDisk(st.DiskRoot, b)
	case kind == StorageDisk:
		return nil, fmt.Errorf("blob %d is on the Disk service (%q): %w: give Password Pusher's storage directory", b.ID, b.ServiceName, ErrStorage)
	case kind == StorageS3 && st.s3 != nil:
		return st.openS3(ctx, b)
	case kind == StorageS3:
		return nil, fmt.Errorf("blob %d is in an S3 bucket (%q): %w: set PWP__FILES__S3__BUCKET and its settings", b.ID, b.ServiceName, ErrStorage)
	case kind == "":
		return nil, fmt.Errorf("blob %d is on the service %q, which Password Pusher's storage.yml does not define: %w", b.ID, b.ServiceName, ErrStorage)
	default:
		return nil, fmt.Errorf("blob %d is on %s (%q), which Hush does not read: %w", b.ID, kind, b.ServiceName, ErrStorage)
	}
}

func (st *Storages) openS3(ctx context.Context, b Blob) (io.ReadCloser, error) {
	obj, err := st.s3.OpenObject(ctx, b.Key)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, fmt.Errorf("blob %d: no object %q in the bucket", b.ID, b.Key)
	}
	if err != nil {
		return nil, fmt.Errorf("blob %d: %w", b.ID, err)
	}
	r, err := VerifyReader(obj, b)
	if err != nil {
		obj.Close()
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{r, obj}, nil
}
