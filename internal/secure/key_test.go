package secure

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestSealWithKey(t *testing.T) {
	key := mustKey(t)
	pt, ad := []byte("passphrase layer"), []byte("ad")
	sealed, err := SealWithKey(key, pt, ad)
	if err != nil {
		t.Fatalf("SealWithKey: %v", err)
	}
	if want := 1 + 12 + len(pt) + 16; len(sealed) != want || sealed[0] != 0x01 {
		t.Errorf("sealed length %d version %#x, want %d and 0x01", len(sealed), sealed[0], want)
	}
	tests := []struct {
		name    string
		key     []byte
		sealed  []byte
		ad      []byte
		wantErr bool
	}{
		{"right key", key, sealed, ad, false},
		{"wrong key", mustKey(t), sealed, ad, true},
		{"wrong ad", key, sealed, []byte("other"), true},
		{"short key", key[:16], sealed, ad, true},
		{"nil key", nil, sealed, ad, true},
		{"version changed", key, append([]byte{0x02}, sealed[1:]...), ad, true},
		{"truncated", key, sealed[:len(sealed)-1], ad, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := OpenWithKey(tc.key, tc.sealed, tc.ad)
			if tc.wantErr {
				if !errors.Is(err, ErrOpen) {
					t.Fatalf("OpenWithKey error = %v, want ErrOpen", err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, pt) {
				t.Fatalf("OpenWithKey = %q, %v; want %q", got, err, pt)
			}
		})
	}
	if _, err := SealWithKey(key[:31], pt, ad); err == nil {
		t.Error("SealWithKey with a 31-byte key succeeded")
	}
}

func TestParseHexKey(t *testing.T) {
	valid := strings.Repeat("0123456789abcdef", 4)
	tests := []struct {
		name    string
		input   string
		wantErr bool
	}{
		{"valid", valid, false},
		{"valid upper with whitespace", "  " + strings.ToUpper(valid) + "\n", false},
		{"empty", "", true},
		{"too short", valid[:62], true},
		{"too long", valid + "00", true},
		{"non hex", "zz" + valid[2:], true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, err := ParseHexKey(tc.input)
			if !tc.wantErr {
				if err != nil {
					t.Fatalf("ParseHexKey: %v", err)
				}
				if len(key) != 32 || key[0] != 0x01 || key[31] != 0xef {
					t.Fatalf("ParseHexKey = %x", key)
				}
				return
			}
			if err == nil {
				t.Fatal("ParseHexKey succeeded, want error")
			}
			msg := err.Error()
			if !strings.Contains(msg, "64 hexadecimal characters (32 bytes)") {
				t.Errorf("error %q does not explain the key format", msg)
			}
			if trimmed := strings.TrimSpace(tc.input); trimmed != "" && strings.Contains(msg, trimmed) {
				t.Errorf("error %q contains the input", msg)
			}
			if strings.Contains(msg, "zz") {
				t.Errorf("error %q leaks input characters", msg)
			}
		})
	}
}
