package app

import (
	"testing"

	"hush/internal/secure"
)

// TestGCSettings: serve collects at five times the live heap under a soft
// limit that leaves room for every Argon2id derivation it may run at once,
// and leaves each setting to the environment when GOGC or GOMEMLIMIT is set.
func TestGCSettings(t *testing.T) {
	argon := secure.NewArgon(2, 19456, 1, 4)
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	percent, limit := gcSettings(env(nil), argon)
	if want := int64(48<<20 + 4*19456<<10); percent != 400 || limit != want {
		t.Errorf("defaults: GOGC %d, limit %d; want 400, %d", percent, limit, want)
	}
	percent, limit = gcSettings(env(map[string]string{"GOGC": "100", "GOMEMLIMIT": "1GiB"}), argon)
	if percent != -1 || limit != -1 {
		t.Errorf("with GOGC and GOMEMLIMIT set: %d, %d; want both left to the runtime", percent, limit)
	}
	if _, limit = gcSettings(env(map[string]string{"GOGC": "off"}), secure.NewArgon(2, 19456, 1, 8)); limit != 48<<20+8*19456<<10 {
		t.Errorf("8 derivations at once: limit %d", limit)
	}
}
