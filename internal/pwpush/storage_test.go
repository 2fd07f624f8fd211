package pwpush

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/minio/minio-go/v7"

	"hush/internal/blob/s3test"
)

func blobOf(id int64, key, service string, data []byte) Blob {
	sum := md5.Sum(data)
	return Blob{ID: id, Key: key, Filename: "f.txt", ByteSize: int64(len(data)),
		Checksum: base64.StdEncoding.EncodeToString(sum[:]), ServiceName: service}
}

func readAll(t *testing.T, st *Storages, b Blob) ([]byte, error) {
	t.Helper()
	r, err := st.Open(context.Background(), b)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// Blobs of an S3 service are read from the bucket at their key, checked
// against their size and checksum; the Disk service from its root.
func TestStoragesS3AndDisk(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	data := bytes.Repeat([]byte("contents of a file on S3\n"), 4000)
	put := func(key string, b []byte) {
		if _, err := srv.Client.PutObject(ctx, bucket, key, bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	put("kq3v8x1m0z2b7n4c6d9f5g1h3j0a", data)
	put("tamperedtamperedtampered0000", append(bytes.Clone(data[:len(data)-1]), '!'))

	root := t.TempDir()
	disk := []byte("on disk")
	os.MkdirAll(filepath.Join(root, "ab", "cd"), 0o755)
	os.WriteFile(filepath.Join(root, "ab", "cd", "abcdefghijklmnopqrstuvwxyz01"), disk, 0o644)

	st, err := NewStorages(root, &S3Bucket{Endpoint: "http://" + srv.Endpoint, AccessKeyID: s3test.AccessKey,
		SecretAccessKey: s3test.SecretKey, Bucket: bucket})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	for _, service := range []string{"amazon", "minio", "cloudflare_r2"} {
		got, err := readAll(t, st, blobOf(1, "kq3v8x1m0z2b7n4c6d9f5g1h3j0a", service, data))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes, %v", service, len(got), err)
		}
	}
	if _, err := readAll(t, st, blobOf(2, "tamperedtamperedtampered0000", "amazon", data)); !errors.Is(err, ErrIntegrity) {
		t.Errorf("an object that is not the blob: %v", err)
	}
	if _, err := readAll(t, st, blobOf(3, "missingmissingmissingmissing", "amazon", data)); err == nil {
		t.Error("a missing object opens")
	}
	if got, err := readAll(t, st, blobOf(4, "abcdefghijklmnopqrstuvwxyz01", "local", disk)); err != nil || !bytes.Equal(got, disk) {
		t.Errorf("disk: %q, %v", got, err)
	}
	for _, service := range []string{"google", "microsoft", "my_own"} {
		if _, err := readAll(t, st, blobOf(5, "x", service, nil)); !errors.Is(err, ErrStorage) {
			t.Errorf("%s: %v", service, err)
		}
	}
	none, _ := NewStorages("", nil)
	for _, service := range []string{"local", "amazon"} {
		if _, err := readAll(t, none, blobOf(6, "abcdefghijklmnopqrstuvwxyz01", service, disk)); !errors.Is(err, ErrStorage) {
			t.Errorf("%s without its service: %v", service, err)
		}
	}
	wrong, _ := NewStorages("", &S3Bucket{Endpoint: "http://" + srv.Endpoint, AccessKeyID: s3test.AccessKey,
		SecretAccessKey: "wrong secret", Bucket: bucket})
	if err := wrong.Ping(ctx); err == nil {
		t.Error("a wrong secret key pings")
	}
}

func TestS3Endpoint(t *testing.T) {
	for _, c := range []struct {
		endpoint, region, host string
		tls, bad               bool
	}{
		{"", "", "s3.amazonaws.com", true, false},
		{"", "eu-west-1", "s3.eu-west-1.amazonaws.com", true, false},
		{"https://fra1.digitaloceanspaces.com", "fra1", "fra1.digitaloceanspaces.com", true, false},
		{"http://minio:9000", "", "minio:9000", false, false},
		{"minio:9000", "", "minio:9000", true, false},
		{"ftp://x", "", "", false, true},
		{"http://", "", "", false, true},
	} {
		host, tls, err := s3Endpoint(c.endpoint, c.region)
		if (err != nil) != c.bad || host != c.host || tls != c.tls {
			t.Errorf("%q: %q %v %v", c.endpoint, host, tls, err)
		}
	}
}
