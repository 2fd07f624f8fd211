package service

import (
	"context"
	"sync"
	"time"

	"hush/internal/push"
	"hush/internal/secure"
)

// Password checks. Accounts made by Hush have Argon2id hashes; accounts
// imported from Password Pusher keep Devise's bcrypt hash until their first
// successful check, which replaces it with an Argon2id hash of the same
// password (docs/decisions.md, D27). Every check costs the same work
// whatever the account has, so the time a sign-in takes does not tell
// whether an address has an account, nor whether that account still has a
// bcrypt hash: while any account has one, every check spends one bcrypt
// check of Devise's cost and one Argon2id computation; once none is left,
// one Argon2id computation.

// verify checks u's password, replacing a bcrypt hash that matches by an
// Argon2id one. The caller has reserved its slot under the sign-in limits.
func (s *Service) verify(ctx context.Context, u *push.User, password string) bool {
	if secure.IsBcryptHash(u.PasswordHash) {
		ok, err := s.argon.VerifyBcrypt(ctx, password, u.PasswordHash)
		if err != nil || !ok {
			s.wasteArgon(ctx, password)
			return false
		}
		s.upgradeHash(ctx, u, password)
		return true
	}
	if s.bcryptLeft(ctx) {
		s.argon.WasteBcrypt(ctx, password)
	}
	ok, err := s.argon.VerifyPassword(ctx, password, u.PasswordHash)
	return err == nil && ok
}

// upgradeHash stores an Argon2id hash of password for u in place of its
// bcrypt hash, unless the hash changed meanwhile. A failure leaves the
// bcrypt hash, which the next sign-in replaces: the check already passed.
func (s *Service) upgradeHash(ctx context.Context, u *push.User, password string) {
	hash, err := s.argon.HashPassword(ctx, password)
	if err != nil {
		return
	}
	if ok, err := s.store.ReplacePasswordHash(context.WithoutCancel(ctx), u.ID, u.PasswordHash, hash, s.Now()); err == nil && ok {
		u.PasswordHash = hash
		s.bcryptHashes.forget()
	}
}

// wasteVerify spends the time a check of an account's password takes, for
// an address that has no account.
func (s *Service) wasteVerify(ctx context.Context, password string) {
	if s.bcryptLeft(ctx) {
		s.argon.WasteBcrypt(ctx, password)
	}
	s.wasteArgon(ctx, password)
}

var dummyHash struct {
	once sync.Once
	hash string
}

// wasteArgon spends the time an Argon2id check takes.
func (s *Service) wasteArgon(ctx context.Context, password string) {
	dummyHash.once.Do(func() { dummyHash.hash, _ = s.argon.HashPassword(ctx, "not the password") })
	s.argon.VerifyPassword(ctx, password, dummyHash.hash)
}

// bcryptRecheck is how long the answer to "does any account still have a
// bcrypt hash" is kept.
const bcryptRecheck = time.Minute

// bcryptState remembers whether any account had a bcrypt hash at the last
// look.
type bcryptState struct {
	mu     sync.Mutex
	left   bool
	looked time.Time
}

// forget makes the next question look again.
func (b *bcryptState) forget() {
	b.mu.Lock()
	b.looked = time.Time{}
	b.mu.Unlock()
}

// bcryptLeft reports whether any account still has a bcrypt hash, looking
// at most once a bcryptRecheck; when the look fails it answers yes, which
// costs time but tells nothing.
func (s *Service) bcryptLeft(ctx context.Context) bool {
	b := &s.bcryptHashes
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if !b.looked.IsZero() && now.Sub(b.looked) < bcryptRecheck {
		return b.left
	}
	left, err := s.store.HasBcryptHashes(ctx)
	if err != nil {
		return true
	}
	b.left, b.looked = left, now
	return left
}
