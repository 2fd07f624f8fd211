package secure

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// Password hashes imported from Password Pusher are Devise's: bcrypt of the
// password (no pepper) at cost 12, as "$2a$12$<salt><hash>". Hush checks
// them until their account's next successful sign-in replaces them with
// Argon2id (docs/decisions.md, D27). The checks run under the same bound on
// concurrent computations as Argon2id, since bcrypt is as costly on purpose.

// BcryptCost is the cost of Devise's hashes in production (Password
// Pusher's config.stretches), the cost of the stand-in hash WasteBcrypt
// checks against.
const BcryptCost = 12

// MaxBcryptCost bounds the cost of a hash Hush checks: each step doubles
// the work, and cost 15 already takes seconds.
const MaxBcryptCost = 15

// errBcryptCost is returned for a bcrypt hash whose cost is out of range.
var errBcryptCost = errors.New("secure: bcrypt cost out of range")

// IsBcryptHash reports whether encoded is a bcrypt hash of a version Hush
// checks ($2a$, $2b$ or $2y$) with a cost from 4 to MaxBcryptCost.
func IsBcryptHash(encoded string) bool {
	if len(encoded) != 60 || !(strings.HasPrefix(encoded, "$2a$") || strings.HasPrefix(encoded, "$2b$") ||
		strings.HasPrefix(encoded, "$2y$")) {
		return false
	}
	cost, err := bcrypt.Cost([]byte(encoded))
	return err == nil && cost >= bcrypt.MinCost && cost <= MaxBcryptCost
}

// IsArgonHash reports whether encoded is an Argon2id PHC string that
// VerifyPassword reads.
func IsArgonHash(encoded string) bool {
	_, err := parsePHC(encoded)
	return err == nil
}

// VerifyBcrypt checks password against a bcrypt hash in constant time,
// reading at most 72 bytes of the password as bcrypt does everywhere. A
// password holding a NUL byte never matches: the library that made the
// hashes refuses such passwords. It returns (false, nil) on a mismatch and
// an error for a hash IsBcryptHash refuses.
func (a *Argon) VerifyBcrypt(ctx context.Context, password, encoded string) (bool, error) {
	if !IsBcryptHash(encoded) {
		return false, fmt.Errorf("%w or not a bcrypt hash", errBcryptCost)
	}
	if err := a.acquire(ctx); err != nil {
		return false, err
	}
	defer a.release()
	err := bcrypt.CompareHashAndPassword([]byte(encoded), []byte(password))
	if errors.Is(err, bcrypt.ErrMismatchedHashAndPassword) || strings.ContainsRune(password, 0) {
		return false, nil
	}
	return err == nil, err
}

var wasteHash struct {
	once sync.Once
	hash []byte
}

// WasteBcrypt spends the time a check of a bcrypt hash of BcryptCost
// takes, against a stand-in hash no password matches, so that whether an
// account still has a bcrypt hash does not show in how long its sign-in
// takes.
func (a *Argon) WasteBcrypt(ctx context.Context, password string) {
	wasteHash.once.Do(func() {
		salt, _ := NewSalt()
		wasteHash.hash, _ = bcrypt.GenerateFromPassword(salt, BcryptCost)
	})
	if a.acquire(ctx) != nil {
		return
	}
	defer a.release()
	bcrypt.CompareHashAndPassword(wasteHash.hash, []byte(password))
}
