package s3

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/minio/minio-go/v7"

	"hush/internal/blob"
	"hush/internal/blob/blobtest"
	"hush/internal/blob/s3test"
	"hush/internal/faultproxy"
)

func newS3(t *testing.T, srv *s3test.Server, bucket, prefix string) *Store {
	t.Helper()
	s, err := New(Options{Endpoint: srv.Endpoint, Bucket: bucket, AccessKey: s3test.AccessKey,
		SecretKey: s3test.SecretKey, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestS3 runs the FileStore checks against a real S3-compatible server.
func TestS3(t *testing.T) {
	srv := s3test.Start(t)
	blobtest.Run(t, func(t *testing.T) blob.FileStore {
		return newS3(t, srv, srv.Bucket(t), "blobs")
	})
}

// TestS3Prefix checks that stores under different prefixes of one bucket
// keep apart, and that objects hold exactly the bytes given to Put.
func TestS3Prefix(t *testing.T) {
	srv := s3test.Start(t)
	ctx := context.Background()
	bucket := srv.Bucket(t)
	a, b, root := newS3(t, srv, bucket, "a"), newS3(t, srv, bucket, "/b/"), newS3(t, srv, bucket, "")
	ida, idb, idr := blobtest.NewID(t), blobtest.NewID(t), blobtest.NewID(t)
	blobtest.Put(t, a, ida, "in a")
	blobtest.Put(t, b, idb, "in b")
	blobtest.Put(t, root, idr, "at the root")
	for _, c := range []struct {
		fs   *Store
		id   string
		key  string
		body string
	}{{a, ida, "a/" + ida, "in a"}, {b, idb, "b/" + idb, "in b"}, {root, idr, idr, "at the root"}} {
		if got := blobtest.WalkIDs(t, c.fs); len(got) != 1 || got[0] != c.id {
			t.Errorf("Walk under %q saw %v, want [%s]", c.fs.prefix, got, c.id)
		}
		obj, err := srv.Client.GetObject(ctx, bucket, c.key, minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(obj)
		obj.Close()
		if err != nil || string(raw) != c.body {
			t.Errorf("object %s holds %q (%v), want %q", c.key, raw, err, c.body)
		}
	}
	blobtest.AssertMissing(t, a, idb)
	blobtest.AssertMissing(t, b, ida)
	blobtest.AssertMissing(t, root, ida)
}

// TestS3UnfinishedUpload checks that a multipart upload left open (as by a
// crash) is invisible to Open, reported by Walk and aborted by Delete.
func TestS3UnfinishedUpload(t *testing.T) {
	srv := s3test.Start(t)
	ctx := context.Background()
	bucket := srv.Bucket(t)
	s := newS3(t, srv, bucket, "blobs")
	done, crashed := blobtest.NewID(t), blobtest.NewID(t)
	blobtest.Put(t, s, done, "complete")
	core := minio.Core{Client: srv.Client}
	uploadID, err := core.NewMultipartUpload(ctx, bucket, "blobs/"+crashed, minio.PutObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	part := bytes.Repeat([]byte("x"), 1024)
	if _, err := core.PutObjectPart(ctx, bucket, "blobs/"+crashed, uploadID, 1, bytes.NewReader(part), int64(len(part)), minio.PutObjectPartOptions{}); err != nil {
		t.Fatal(err)
	}
	blobtest.AssertMissing(t, s, crashed)
	got := blobtest.WalkIDs(t, s)
	if len(got) != 2 || !strings.Contains(strings.Join(got, " "), crashed) || !strings.Contains(strings.Join(got, " "), done) {
		t.Errorf("Walk saw %v, want %s and %s", got, done, crashed)
	}
	if err := s.Delete(ctx, crashed); err != nil {
		t.Fatal(err)
	}
	if got := blobtest.WalkIDs(t, s); len(got) != 1 || got[0] != done {
		t.Errorf("Walk after Delete saw %v, want [%s]", got, done)
	}
	if got := blobtest.ReadAll(t, s, done); got != "complete" {
		t.Errorf("other blob after Delete: %q", got)
	}
}

// TestS3PingFails checks that Ping reports a missing bucket, wrong
// credentials and an unreachable server, without the secret key.
func TestS3PingFails(t *testing.T) {
	srv := s3test.Start(t)
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	bucket := srv.Bucket(t)
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"missing bucket", Options{Endpoint: srv.Endpoint, Bucket: "no-such-bucket", AccessKey: s3test.AccessKey, SecretKey: s3test.SecretKey}, "does not exist"},
		{"wrong secret", Options{Endpoint: srv.Endpoint, Bucket: bucket, AccessKey: s3test.AccessKey, SecretKey: "wrong-secret-value"}, bucket},
		{"unreachable", Options{Endpoint: closed, Bucket: bucket, AccessKey: s3test.AccessKey, SecretKey: s3test.SecretKey}, closed},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(c.o)
			if err != nil {
				t.Fatal(err)
			}
			err = s.Ping(ctx)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Ping: %v, want an error naming %q", err, c.want)
			}
			if strings.Contains(err.Error(), c.o.SecretKey) {
				t.Errorf("Ping error shows the secret key: %v", err)
			}
		})
	}
	if _, err := New(Options{Bucket: bucket}); err == nil {
		t.Error("New without an endpoint succeeded")
	}
}

// cutAfter reads n bytes of zeros, calls cut once half are read, and goes
// on (the store's connection is gone by then).
type cutAfter struct {
	n, read, at int
	cut         func()
}

func (c *cutAfter) Read(p []byte) (int, error) {
	if c.read >= c.n {
		return 0, io.EOF
	}
	k := min(len(p), c.n-c.read)
	clear(p[:k])
	c.read += k
	if c.cut != nil && c.read >= c.at {
		c.cut()
		c.cut = nil
	}
	return k, nil
}

// TestS3ConnectionCutMidUpload takes the server away in the middle of a
// multipart upload: Put fails with a fault that says the store is
// unreachable (503, not a bug), and once the server is back nothing of the
// upload stays stored, not even its parts, without waiting for the hourly
// sweep.
func TestS3ConnectionCutMidUpload(t *testing.T) {
	srv := s3test.Start(t)
	proxy, err := faultproxy.Start(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	bucket := srv.Bucket(t)
	s, err := New(Options{Endpoint: proxy.Addr(), Bucket: bucket, AccessKey: s3test.AccessKey, SecretKey: s3test.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	id := blobtest.NewID(t)
	down := func() { proxy.Set(faultproxy.Refuse); proxy.Cut() }
	_, err = s.Put(t.Context(), id, &cutAfter{n: 3 * PartSize, at: PartSize + PartSize/2, cut: down})
	if f, ok := blob.FaultOf(err); !ok || f.Cause != "unreachable" {
		t.Fatalf("Put cut mid-upload: %v → %+v %v; want an unreachable fault", err, f, ok)
	}
	left := func() (n int) {
		for range srv.Client.ListIncompleteUploads(t.Context(), bucket, "", true) {
			n++
		}
		return n
	}
	if left() == 0 {
		t.Fatal("setup: no parts were stored before the cut")
	}
	proxy.Set(faultproxy.Pass)
	for deadline := time.Now().Add(10 * time.Second); left() > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the parts of the failed upload were still there 10s after the server came back")
		}
	}
	for obj := range srv.Client.ListObjects(t.Context(), bucket, minio.ListObjectsOptions{Recursive: true}) {
		t.Errorf("object left behind: %s", obj.Key)
	}
	// A failing source is the source's error, not the store's fault, and
	// leaves nothing, even when it fails with io.ErrUnexpectedEOF (an
	// upload's client gone), which minio-go would take for the data's end.
	failing := blobtest.NewID(t)
	_, err = s.Put(t.Context(), failing, io.MultiReader(strings.NewReader("x"), iotest.ErrReader(io.ErrUnexpectedEOF)))
	if f, ok := blob.FaultOf(err); ok || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Put of a failing source: %v classified %+v %v; want the source's error, no fault", err, f, ok)
	}
	blobtest.AssertMissing(t, s, failing)
}
