package secure

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

const (
	saltSize    = 16
	hashSize    = 32
	maxMemKiB   = 1 << 20 // 1 GiB
	maxTime     = 100
	maxHashSize = 1024
	maxSaltSize = 1024
)

// errMalformedHash is wrapped by VerifyPassword for unparsable PHC strings.
var errMalformedHash = errors.New("secure: malformed argon2id hash")

// Argon runs Argon2id with a bound on the number of concurrent
// computations, so that a burst of requests cannot exhaust memory.
type Argon struct {
	// Time is the number of passes over memory.
	Time uint32
	// MemoryKiB is the memory cost in KiB.
	MemoryKiB uint32
	// Threads is the degree of parallelism.
	Threads uint8

	sem chan struct{}
}

// NewArgon returns an Argon with the given cost parameters allowing at most
// maxConcurrent simultaneous computations (runtime.NumCPU() when <= 0).
func NewArgon(time, memoryKiB uint32, threads uint8, maxConcurrent int) *Argon {
	if maxConcurrent <= 0 {
		maxConcurrent = runtime.NumCPU()
	}
	return &Argon{
		Time:      time,
		MemoryKiB: memoryKiB,
		Threads:   threads,
		sem:       make(chan struct{}, maxConcurrent),
	}
}

// DefaultArgon returns an Argon with OWASP's minimum Argon2id parameters
// (time 2, 19 MiB, 1 thread) and concurrency bounded by runtime.NumCPU().
func DefaultArgon() *Argon {
	return NewArgon(2, 19456, 1, runtime.NumCPU())
}

// Concurrency is how many derivations run at once at most (0: no bound).
func (a *Argon) Concurrency() int { return cap(a.sem) }

// acquire takes a computation slot, or returns ctx.Err() if ctx is done
// first. A nil semaphore (zero Argon) means no bound.
func (a *Argon) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if a.sem == nil {
		return nil
	}
	select {
	case a.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release frees a slot taken by acquire.
func (a *Argon) release() {
	if a.sem != nil {
		<-a.sem
	}
}

// idKey runs Argon2id under the semaphore with explicit parameters.
func (a *Argon) idKey(ctx context.Context, secret string, salt []byte, time, memKiB uint32, threads uint8, keyLen uint32) ([]byte, error) {
	if time < 1 || threads < 1 {
		return nil, fmt.Errorf("secure: invalid argon2 parameters t=%d p=%d", time, threads)
	}
	if err := a.acquire(ctx); err != nil {
		return nil, err
	}
	defer a.release()
	return argon2.IDKey([]byte(secret), salt, time, memKiB, threads, keyLen), nil
}

// DeriveKey derives a 32-byte key from secret and salt with Argon2id using
// a's parameters. Waiting for a slot respects ctx cancellation.
func (a *Argon) DeriveKey(ctx context.Context, secret string, salt []byte) ([]byte, error) {
	return a.idKey(ctx, secret, salt, a.Time, a.MemoryKiB, a.Threads, keySize)
}

// HashPassword hashes password with a random 16-byte salt and returns the
// PHC string "$argon2id$v=19$m=<mem>,t=<time>,p=<threads>$<salt>$<hash>"
// with unpadded standard base64 salt and 32-byte hash.
func (a *Argon) HashPassword(ctx context.Context, password string) (string, error) {
	salt, err := NewSalt()
	if err != nil {
		return "", err
	}
	hash, err := a.idKey(ctx, password, salt, a.Time, a.MemoryKiB, a.Threads, hashSize)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, a.MemoryKiB, a.Time, a.Threads,
		base64.RawStdEncoding.EncodeToString(salt),
		base64.RawStdEncoding.EncodeToString(hash)), nil
}

// phc holds the parsed fields of an argon2id PHC string.
type phc struct {
	memKiB, time uint32
	threads      uint8
	salt, hash   []byte
}

func parsePHC(encoded string) (phc, error) {
	var p phc
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return p, fmt.Errorf("%w: not an argon2id PHC string", errMalformedHash)
	}
	if parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return p, fmt.Errorf("%w: unsupported version", errMalformedHash)
	}
	var err error
	if p.memKiB, p.time, p.threads, err = parsePHCParams(parts[3]); err != nil {
		return p, err
	}
	if p.salt, err = phcBytes("salt", parts[4], maxSaltSize); err != nil {
		return p, err
	}
	if p.hash, err = phcBytes("hash", parts[5], maxHashSize); err != nil {
		return p, err
	}
	return p, nil
}

// parsePHCParams reads "m=…,t=…,p=…" and checks each is in range.
func parsePHCParams(s string) (memKiB, time uint32, threads uint8, err error) {
	params := strings.Split(s, ",")
	if len(params) != 3 {
		return 0, 0, 0, fmt.Errorf("%w: bad parameters", errMalformedHash)
	}
	vals := make([]uint64, 3)
	for i, prefix := range []string{"m=", "t=", "p="} {
		s, ok := strings.CutPrefix(params[i], prefix)
		if !ok {
			return 0, 0, 0, fmt.Errorf("%w: bad parameters", errMalformedHash)
		}
		if vals[i], err = strconv.ParseUint(s, 10, 32); err != nil {
			return 0, 0, 0, fmt.Errorf("%w: parameter %s: %w", errMalformedHash, prefix, err)
		}
	}
	switch m, t, th := vals[0], vals[1], vals[2]; {
	case m < 1 || m > maxMemKiB:
		return 0, 0, 0, fmt.Errorf("%w: memory out of range", errMalformedHash)
	case t < 1 || t > maxTime:
		return 0, 0, 0, fmt.Errorf("%w: time out of range", errMalformedHash)
	case th < 1 || th > 255:
		return 0, 0, 0, fmt.Errorf("%w: threads out of range", errMalformedHash)
	}
	return uint32(vals[0]), uint32(vals[1]), uint8(vals[2]), nil
}

// phcBytes decodes one base64 field of a PHC string, 1 to max bytes long.
func phcBytes(name, s string, max int) ([]byte, error) {
	b, err := base64.RawStdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", errMalformedHash, name, err)
	}
	if len(b) == 0 || len(b) > max {
		return nil, fmt.Errorf("%w: %s length out of range", errMalformedHash, name)
	}
	return b, nil
}

// VerifyPassword checks password against a PHC string produced by
// HashPassword, using the parameters stored in the string so that hashes
// made with older parameters keep verifying. It returns (false, nil) on a
// mismatch and an error for a malformed or absurd encoding.
func (a *Argon) VerifyPassword(ctx context.Context, password, encoded string) (bool, error) {
	p, err := parsePHC(encoded)
	if err != nil {
		return false, err
	}
	got, err := a.idKey(ctx, password, p.salt, p.time, p.memKiB, p.threads, uint32(len(p.hash)))
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(got, p.hash) == 1, nil
}

// NewSalt returns 16 random bytes.
func NewSalt() ([]byte, error) {
	return randomBytes(saltSize)
}
