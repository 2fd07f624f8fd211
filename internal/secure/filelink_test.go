package secure

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestFileLink(t *testing.T) {
	keys, _ := NewKeyring(bytes.Repeat([]byte{1}, 32))
	other, _ := NewKeyring(bytes.Repeat([]byte{2}, 32))
	l := FileLink{FileID: 42, PushID: 7, Expires: time.UnixMilli(1_800_000_000_123).UTC(), Key: bytes.Repeat([]byte{9}, 32)}
	tok, err := l.Seal(keys)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(tok, "+/=") {
		t.Errorf("token %q is not URL-safe", tok)
	}
	got, err := OpenFileLink(keys, tok)
	if err != nil || got.FileID != 42 || got.PushID != 7 || !got.Expires.Equal(l.Expires) || !bytes.Equal(got.Key, l.Key) {
		t.Fatalf("OpenFileLink = %+v, %v", got, err)
	}
	flipped := []byte(tok)
	flipped[len(flipped)/2] ^= 1
	for name, bad := range map[string]string{"other key": "", "tampered": string(flipped), "not base64": "!!!",
		"too long": strings.Repeat("A", 600), "empty": ""} {
		k := keys
		if name == "other key" {
			k, bad = other, tok
		}
		if _, err := OpenFileLink(k, bad); !errors.Is(err, ErrOpen) {
			t.Errorf("%s: %v, want ErrOpen", name, err)
		}
	}
	if _, err := (FileLink{Key: []byte("short")}).Seal(keys); err == nil {
		t.Error("a short key was sealed")
	}
}
