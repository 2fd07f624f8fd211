package secure

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"time"
)

// FileLink is what a download link carries: which file of which push, until
// when, and the file's key — so that a link handed out with a push's last
// view keeps working for its lifetime after the stored keys were wiped.
type FileLink struct {
	FileID  int64
	PushID  int64
	Expires time.Time // milliseconds
	Key     []byte    // 32 bytes
}

// fileLinkPurpose is the master key's sub-key of download links.
const fileLinkPurpose = "file-link"

// maxFileLinkToken bounds what OpenFileLink decodes.
const maxFileLinkToken = 512

// Seal encodes the link as an opaque, URL-safe token sealed under the
// master key: file id | push id | expiry (8 bytes each, big-endian) | key.
func (l FileLink) Seal(keys *Keyring) (string, error) {
	if len(l.Key) != keySize {
		return "", fmt.Errorf("secure: file key is %d bytes, want %d", len(l.Key), keySize)
	}
	raw := make([]byte, 24, 24+keySize)
	binary.BigEndian.PutUint64(raw[0:], uint64(l.FileID))
	binary.BigEndian.PutUint64(raw[8:], uint64(l.PushID))
	binary.BigEndian.PutUint64(raw[16:], uint64(l.Expires.UnixMilli()))
	sealed, err := keys.Seal(fileLinkPurpose, append(raw, l.Key...), []byte(fileLinkPurpose))
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(sealed), nil
}

// OpenFileLink reverses Seal. Any token that is not one (too long, not
// base64, tampered, under an unknown key, of the wrong size) is ErrOpen.
func OpenFileLink(keys *Keyring, token string) (FileLink, error) {
	if len(token) > maxFileLinkToken {
		return FileLink{}, fmt.Errorf("%w: file link too long", ErrOpen)
	}
	sealed, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return FileLink{}, fmt.Errorf("%w: file link not base64", ErrOpen)
	}
	raw, err := keys.Open(fileLinkPurpose, sealed, []byte(fileLinkPurpose))
	if err != nil {
		return FileLink{}, err
	}
	if len(raw) != 24+keySize {
		return FileLink{}, fmt.Errorf("%w: file link of %d bytes", ErrOpen, len(raw))
	}
	return FileLink{
		FileID:  int64(binary.BigEndian.Uint64(raw[0:])),
		PushID:  int64(binary.BigEndian.Uint64(raw[8:])),
		Expires: time.UnixMilli(int64(binary.BigEndian.Uint64(raw[16:]))).UTC(),
		Key:     raw[24:],
	}, nil
}
