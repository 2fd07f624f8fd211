package pwpush

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"

	"hush/internal/pwpush/pwpushtest"
)

// vectorFile is testdata/lockbox_vectors.json, made by the Lockbox gem
// (testdata/README.md).
// The Lockbox gem's vectors (testdata/lockbox_vectors.json).
type (
	vectorFile = pwpushtest.Vectors
	vector     = pwpushtest.Vector
)

func loadVectors(t testing.TB) *vectorFile { return pwpushtest.LoadVectors(t) }

func TestDerivedKeysMatchLockbox(t *testing.T) {
	v := loadVectors(t)
	for _, d := range v.DerivedKeys {
		master, _ := hex.DecodeString(v.MasterKeys[d.Key])
		got, err := columnKey(master, d.Table, d.Column)
		if err != nil {
			t.Fatal(err)
		}
		if hex.EncodeToString(got) != d.Derived {
			t.Errorf("%s key of %s.%s: got %x, Lockbox derived %s", d.Key, d.Table, d.Column, got, d.Derived)
		}
	}
}

func TestDecryptLockboxVectors(t *testing.T) {
	v := loadVectors(t)
	rotated, err := ParseKeys(v.MasterKeys["current"], " , "+v.MasterKeys["previous"]+" ,")
	if err != nil {
		t.Fatal(err)
	}
	if rotated.Previous() != 1 {
		t.Fatalf("previous keys: %d", rotated.Previous())
	}
	def, err := ParseKeys("", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range v.Vectors {
		keys := rotated
		if x.Key == "default" {
			keys = def
		}
		got, err := keys.Decrypt(x.Table, x.Column, x.Ciphertext)
		if err != nil {
			t.Errorf("%s %s.%s %s: %v", x.Key, x.Table, x.Column, x.Name, err)
			continue
		}
		if got != x.Plaintext {
			t.Errorf("%s %s.%s %s: wrong plaintext (%d bytes, want %d)", x.Key, x.Table, x.Column, x.Name, len(got), len(x.Plaintext))
		}
	}
}

func TestDecryptNeedsTheRightKey(t *testing.T) {
	v := loadVectors(t)
	currentOnly, _ := ParseKeys(v.MasterKeys["current"], "")
	wrong, _ := ParseKeys(strings.Repeat("ab", 32), "")
	prev := v.Find(t, "previous", "pushes", "payload_ciphertext", "ascii")
	cur := v.Find(t, "current", "pushes", "payload_ciphertext", "ascii")
	check := func(name string, keys *Keys, table, column string, x vector) {
		t.Helper()
		got, err := keys.Decrypt(table, column, x.Ciphertext)
		if !errors.Is(err, ErrDecrypt) || got != "" {
			t.Errorf("%s: got %q, %v; want ErrDecrypt", name, got, err)
		}
		if err != nil && (strings.Contains(err.Error(), x.Ciphertext) || strings.Contains(err.Error(), x.Plaintext)) {
			t.Errorf("%s: the error shows the secret", name)
		}
	}
	check("previous key not given", currentOnly, "pushes", "payload_ciphertext", prev)
	check("wrong key", wrong, "pushes", "payload_ciphertext", cur)
	check("another column's key", currentOnly, "pushes", "note_ciphertext", cur)
	check("another table's key", currentOnly, "passwords", "payload_ciphertext", cur)

	// A previous key alone does not open what the master key sealed.
	prevOnly, _ := ParseKeys(v.MasterKeys["previous"], "")
	check("previous as master", prevOnly, "pushes", "payload_ciphertext", cur)

	raw, _ := base64.StdEncoding.DecodeString(cur.Ciphertext)
	for _, i := range []int{0, 12, len(raw) - 1} {
		bad := append([]byte(nil), raw...)
		bad[i] ^= 1
		if _, err := currentOnly.Decrypt("pushes", "payload_ciphertext", base64.StdEncoding.EncodeToString(bad)); !errors.Is(err, ErrDecrypt) {
			t.Errorf("altered byte %d: %v", i, err)
		}
	}
	if _, err := currentOnly.Decrypt("pushes", "payload_ciphertext", "AAAA"); !errors.Is(err, ErrDecrypt) {
		t.Errorf("too short: %v", err)
	}
	if _, err := currentOnly.Decrypt("pushes", "payload_ciphertext", "not base64 at all!"); !errors.Is(err, ErrNotCiphertext) {
		t.Errorf("not base64: %v", err)
	}
}

func TestDecryptStoredForms(t *testing.T) {
	v := loadVectors(t)
	keys, _ := ParseKeys(strings.ToUpper(v.MasterKeys["current"]), "")
	x := v.Find(t, "current", "pushes", "note_ciphertext", "utf8")
	// Lockbox stores "" unencrypted.
	if got, err := keys.Decrypt("pushes", "note_ciphertext", ""); got != "" || err != nil {
		t.Errorf("empty column: %q, %v", got, err)
	}
	// Lockbox reads base64 leniently: line breaks, no padding.
	wrapped := x.Ciphertext[:20] + "\n" + x.Ciphertext[20:] + "\n"
	for _, s := range []string{wrapped, strings.TrimRight(x.Ciphertext, "=")} {
		if got, err := keys.Decrypt("pushes", "note_ciphertext", s); err != nil || got != x.Plaintext {
			t.Errorf("form %q: %v", s, err)
		}
	}
}

func TestParseKeys(t *testing.T) {
	good := strings.Repeat("0a", 32)
	for _, c := range []struct{ master, previous, want string }{
		{"abc", "", "master key: want 64 hexadecimal digits, got 3 characters"},
		{strings.Repeat("zz", 32), "", "master key: want 64 hexadecimal digits"},
		{good, good + "," + good[:10], "previous master key #2: want 64 hexadecimal digits, got 10 characters"},
	} {
		_, err := ParseKeys(c.master, c.previous)
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseKeys(%q, %q): %v, want %q", c.master, c.previous, err, c.want)
		}
	}
	k, err := ParseKeys(" "+good+" ", "")
	if err != nil || k.Previous() != 0 {
		t.Fatalf("%v %v", k, err)
	}
	if _, err := ParseKeys(DefaultMasterKey, ""); err != nil {
		t.Fatal(err)
	}
}

func TestDecryptConcurrently(t *testing.T) {
	v := loadVectors(t)
	keys, _ := ParseKeys(v.MasterKeys["current"], v.MasterKeys["previous"])
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, x := range v.Vectors {
				if x.Key == "default" {
					continue
				}
				if got, err := keys.Decrypt(x.Table, x.Column, x.Ciphertext); err != nil || got != x.Plaintext {
					t.Errorf("%s.%s %s: %v", x.Table, x.Column, x.Name, err)
				}
			}
		})
	}
	wg.Wait()
}
