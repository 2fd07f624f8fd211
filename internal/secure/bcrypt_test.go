package secure

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

type bcryptVector struct {
	Name     string `json:"name"`
	Password string `json:"password"`
	Cost     int    `json:"cost"`
	Hash     string `json:"hash"`
}

// deviseVectors are hashes made by Ruby's bcrypt gem as Devise stores them
// (testdata/devise_bcrypt.rb).
func deviseVectors(t *testing.T) []bcryptVector {
	t.Helper()
	b, err := os.ReadFile("testdata/devise_bcrypt.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Vectors []bcryptVector `json:"vectors"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Vectors) < 10 {
		t.Fatalf("%d vectors", len(f.Vectors))
	}
	return f.Vectors
}

func TestVerifyBcryptDeviseVectors(t *testing.T) {
	ctx := context.Background()
	a := testArgon()
	for _, v := range deviseVectors(t) {
		if v.Cost > 5 && testing.Short() {
			continue
		}
		if !IsBcryptHash(v.Hash) || IsArgonHash(v.Hash) {
			t.Errorf("%s/%d: not recognised as bcrypt", v.Name, v.Cost)
		}
		ok, err := a.VerifyBcrypt(ctx, v.Password, v.Hash)
		if err != nil || !ok {
			t.Errorf("%s/%d: the right password does not verify: %v %v", v.Name, v.Cost, ok, err)
		}
		for _, wrong := range []string{"", v.Password + "!", strings.ToUpper(v.Password), v.Password[:len(v.Password)-1]} {
			if wrong == v.Password || (len(wrong) >= 72 && len(v.Password) >= 72 && wrong[:72] == v.Password[:72]) {
				continue
			}
			if ok, err := a.VerifyBcrypt(ctx, wrong, v.Hash); ok || err != nil {
				t.Errorf("%s/%d: %q verifies: %v %v", v.Name, v.Cost, wrong, ok, err)
			}
		}
		// bcrypt reads 72 bytes of the password, in Ruby as in Go.
		if v.Name == "long" {
			if ok, _ := a.VerifyBcrypt(ctx, v.Password[:72], v.Hash); !ok {
				t.Errorf("long/%d: the first 72 bytes do not verify", v.Cost)
			}
			if ok, _ := a.VerifyBcrypt(ctx, v.Password[:71], v.Hash); ok {
				t.Errorf("long/%d: 71 bytes verify", v.Cost)
			}
		}
		if ok, _ := a.VerifyBcrypt(ctx, v.Password+"\x00", v.Hash); ok && len(v.Password) < 72 {
			t.Errorf("%s/%d: a password with a NUL byte verifies", v.Name, v.Cost)
		}
	}
}

func TestBcryptHashShapes(t *testing.T) {
	ctx := context.Background()
	a := testArgon()
	good, _ := bcrypt.GenerateFromPassword([]byte("pw"), 4)
	tooCostly := strings.Replace(string(good), "$04$", "$16$", 1)
	argon, _ := a.HashPassword(ctx, "pw")
	for _, h := range []string{"", "x", tooCostly, strings.Replace(string(good), "$2a$", "$3a$", 1), string(good[:59]), argon,
		strings.Replace(string(good), "$04$", "$03$", 1)} {
		if IsBcryptHash(h) {
			t.Errorf("%q is taken for a bcrypt hash", h)
		}
		start := time.Now()
		if ok, err := a.VerifyBcrypt(ctx, "pw", h); ok || err == nil {
			t.Errorf("%q: %v %v", h, ok, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%q: refused after %v, not at once", h, d)
		}
	}
	for _, prefix := range []string{"$2a$", "$2b$", "$2y$"} {
		h := prefix + string(good[4:])
		if ok, err := a.VerifyBcrypt(ctx, "pw", h); !ok || err != nil {
			t.Errorf("%s: %v %v", prefix, ok, err)
		}
	}
	if !IsArgonHash(argon) || IsBcryptHash(argon) {
		t.Error("an Argon2id hash is not told apart")
	}
}

// A bcrypt check waits for a slot like Argon2id and gives up with its
// context.
func TestVerifyBcryptBounded(t *testing.T) {
	a := NewArgon(1, 64, 1, 1)
	h, _ := bcrypt.GenerateFromPassword([]byte("pw"), 4)
	if err := a.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if ok, err := a.VerifyBcrypt(ctx, "pw", string(h)); ok || err == nil {
		t.Errorf("a check ran without a free slot: %v %v", ok, err)
	}
	a.release()
	if ok, err := a.VerifyBcrypt(context.Background(), "pw", string(h)); !ok || err != nil {
		t.Errorf("after the slot was freed: %v %v", ok, err)
	}
}

// WasteBcrypt costs what a check of a production hash costs.
func TestWasteBcryptCost(t *testing.T) {
	if testing.Short() {
		t.Skip("cost 12")
	}
	ctx := context.Background()
	a := testArgon()
	a.WasteBcrypt(ctx, "warm up") // makes the stand-in hash
	var prod bcryptVector
	for _, v := range deviseVectors(t) {
		if v.Cost == BcryptCost {
			prod = v
		}
	}
	best := func(f func()) time.Duration {
		d := time.Hour
		for range 3 {
			start := time.Now()
			f()
			d = min(d, time.Since(start))
		}
		return d
	}
	waste := best(func() { a.WasteBcrypt(ctx, "guess") })
	real := best(func() { a.VerifyBcrypt(ctx, "guess", prod.Hash) })
	if waste < real/2 || waste > real*2 {
		t.Errorf("WasteBcrypt took %v, a check of a cost-12 hash %v", waste, real)
	}
	t.Logf("bcrypt cost 12: check %v, waste %v", real, waste)
}
