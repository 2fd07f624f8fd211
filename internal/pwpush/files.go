package pwpush

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// File is a file attached to a push: an Active Storage attachment (record
// type "Push", name "files") and its blob. Password Pusher stores the files
// as uploaded, unencrypted, on the storage service named by ServiceName.
type File struct {
	AttachmentID int64
	PushID       int64
	AttachedAt   time.Time
	Blob
}

// Blob is a row of active_storage_blobs.
type Blob struct {
	ID       int64
	Key      string // the file's name in the service: see DiskPath; the object key on S3
	Filename string // the name it was uploaded with
	// ContentType is the MIME type Active Storage settled on; "" if none.
	ContentType string
	ByteSize    int64
	// Checksum is the base64 MD5 of the contents (Active Storage's default,
	// always so on the Disk service), or "sha256:" and the base64 SHA-256
	// on an S3 service configured for it; "" when none was recorded.
	Checksum string
	// ServiceName is the service the file lives on, a name from Password
	// Pusher's config/storage.yml: "local" is the Disk service rooted at
	// its storage/ directory; amazon, minio, backblaze_b2, cloudflare_r2,
	// digitalocean_spaces, linode_object_storage and wasabi are S3 buckets
	// holding the file at object key Key; google and microsoft are GCS and
	// Azure containers.
	ServiceName string
	Metadata    string // Active Storage's JSON metadata
	CreatedAt   time.Time
}

// Files streams the files attached to one push, in attachment order.
func (s *Source) Files(ctx context.Context, pushID int64) iter.Seq2[File, error] {
	return stream(ctx, s, "read attached files", `SELECT a.id, a.record_id, a.created_at, b.id, b.key, b.filename,
		b.content_type, b.byte_size, b.checksum, b.service_name, b.metadata, b.created_at
		FROM active_storage_attachments a JOIN active_storage_blobs b ON b.id = a.blob_id
		WHERE a.record_type = 'Push' AND a.name = 'files' AND a.record_id = $1 ORDER BY a.id`,
		[]any{pushID}, scanFile)
}

func scanFile(r *sql.Rows) (File, error) {
	var (
		f                                                File
		record, size                                     intCol
		attached, created                                timeCol
		key, name, ctype, checksum, service, metadataCol sql.NullString
	)
	if err := r.Scan(&f.AttachmentID, &record, &attached, &f.ID, &key, &name, &ctype, &size, &checksum, &service,
		&metadataCol, &created); err != nil {
		return File{}, err
	}
	f.PushID, f.AttachedAt, f.ByteSize, f.CreatedAt = record.v, attached.v, size.v, created.v
	f.Key, f.Filename, f.ContentType = key.String, name.String, ctype.String
	f.Checksum, f.ServiceName, f.Metadata = checksum.String, service.String, metadataCol.String
	return f, nil
}

// Kinds of storage service, as StorageKind names them.
const (
	StorageDisk  = "disk"
	StorageS3    = "s3"
	StorageGCS   = "gcs"
	StorageAzure = "azure"
)

// StorageKind is the kind of service Password Pusher's config/storage.yml
// gives a blob's ServiceName: StorageDisk for local (and test), StorageS3
// for amazon, minio, backblaze_b2, cloudflare_r2, digitalocean_spaces,
// linode_object_storage and wasabi (the object key is the blob's Key),
// StorageGCS for google, StorageAzure for microsoft; "" for a name that
// file does not define (a deployment with its own storage.yml).
func StorageKind(serviceName string) string {
	switch serviceName {
	case "local", "test":
		return StorageDisk
	case "amazon", "minio", "backblaze_b2", "cloudflare_r2", "digitalocean_spaces", "linode_object_storage", "wasabi":
		return StorageS3
	case "google":
		return StorageGCS
	case "microsoft":
		return StorageAzure
	}
	return ""
}

// DiskPath is where Active Storage's Disk service keeps the file of a
// blob key under its root directory: root/<key[0:2]>/<key[2:4]>/<key>. It
// refuses, as Active Storage does, a blank key, one with a "." or ".."
// segment or a NUL, and any path that would leave root.
func DiskPath(root, key string) (string, error) {
	if strings.TrimSpace(key) == "" {
		return "", errors.New("blob key is blank")
	}
	if strings.ContainsRune(key, 0) {
		return "", errors.New("blob key is an invalid string")
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "." || seg == ".." {
			return "", errors.New("blob key has path traversal segments")
		}
	}
	first := key[:min(2, len(key))]
	second := ""
	if len(key) > 2 {
		second = key[2:min(4, len(key))]
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("disk service root: %w", err)
	}
	p := filepath.Join(absRoot, first, second, key)
	if rel, err := filepath.Rel(absRoot, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errors.New("blob key leads outside the disk service root")
	}
	return p, nil
}

// OpenDisk opens a blob's file on a Disk service rooted at root (for the
// "local" service, the storage/ directory of Password Pusher's application
// root: /opt/PasswordPusher/storage in its container image). Reading it to
// the end checks its size and checksum: a mismatch is ErrIntegrity.
func OpenDisk(root string, b Blob) (io.ReadCloser, error) {
	p, err := DiskPath(root, b.Key)
	if err != nil {
		return nil, fmt.Errorf("blob %d: %w", b.ID, err)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("blob %d: %w", b.ID, err)
	}
	r, err := VerifyReader(f, b)
	if err != nil {
		f.Close()
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{r, f}, nil
}

// ErrIntegrity is returned at the end of a file whose size or checksum is
// not the blob's.
var ErrIntegrity = errors.New("file does not match its blob's size or checksum")

// VerifyReader wraps r, a blob's contents from any service, so that
// reading it to the end checks ByteSize and Checksum: the final read
// returns ErrIntegrity instead of io.EOF on a mismatch. A blob without a
// checksum is checked for size only.
func VerifyReader(r io.Reader, b Blob) (io.Reader, error) {
	v := &verifier{r: r, blob: b.ID, size: b.ByteSize}
	switch alg, sum, ok := strings.Cut(b.Checksum, ":"); {
	case b.Checksum == "":
	case !ok:
		v.h, v.want = md5.New(), b.Checksum
	case alg == "md5":
		v.h, v.want = md5.New(), sum
	case alg == "sha256":
		v.h, v.want = sha256.New(), sum
	default:
		return nil, fmt.Errorf("blob %d: unsupported checksum algorithm %q", b.ID, alg)
	}
	return v, nil
}

type verifier struct {
	r    io.Reader
	h    hash.Hash
	want string
	blob int64
	size int64
	n    int64
}

func (v *verifier) Read(p []byte) (int, error) {
	n, err := v.r.Read(p)
	v.n += int64(n)
	if v.h != nil {
		v.h.Write(p[:n])
	}
	if v.n > v.size {
		return n, fmt.Errorf("blob %d: %w (longer than %d bytes)", v.blob, ErrIntegrity, v.size)
	}
	if err == io.EOF {
		if v.n != v.size {
			return n, fmt.Errorf("blob %d: %w (%d bytes, want %d)", v.blob, ErrIntegrity, v.n, v.size)
		}
		if v.h != nil {
			got := base64.StdEncoding.EncodeToString(v.h.Sum(nil))
			if subtle.ConstantTimeCompare([]byte(got), []byte(v.want)) != 1 {
				return n, fmt.Errorf("blob %d: %w (checksum)", v.blob, ErrIntegrity)
			}
		}
	}
	return n, err
}
