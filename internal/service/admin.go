package service

import (
	"context"
	"slices"

	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/store"
)

// Administration: what an admin (or the operator on the command line) may
// do to accounts, and what the admin pages show (docs/decisions.md, D41).

// UserSummary is an account as the admin pages list it.
type UserSummary = store.UserSummary

// Stats is the instance overview of the admin pages.
type Stats = store.Stats

// OutboxStats counts the outbox, for the admin overview.
type OutboxStats = store.OutboxStats

// Messages of the admin actions.
const (
	MsgNotAdmin   = "Only administrators may do this."
	MsgNotYourOwn = "Administrators cannot do this to their own account here: use your account page, or the hush command."
	MsgLastAdmin  = store.MsgLastAdmin
)

// Administer performs action on the account targetID for actor, and logs it
// in the admin log, in one transaction; it returns the account's email and
// whether the action changed anything (one that did not is not logged). An
// admin on the web acts only on other accounts: so the web can never leave
// the instance without an enabled admin, and an admin cannot lock
// themselves out by a slip. The command line (actor ID 0) may do anything.
func (s *Service) Administer(ctx context.Context, actor push.AdminActor, action push.AdminAction, targetID int64) (push.AdminResult, error) {
	if !slices.Contains(push.AdminActions, action) {
		return push.AdminResult{}, push.Errorf(push.CodeNotFound, "no such admin action")
	}
	if actor.ID != 0 && actor.ID == targetID {
		return push.AdminResult{}, push.Errorf(push.CodeForbidden, "%s", MsgNotYourOwn)
	}
	if action == push.AdminSendReset {
		return push.AdminResult{}, push.Errorf(push.CodeBadRequest, "a password reset is sent by AdminSendReset")
	}
	r, err := s.store.Administer(ctx, actor, action, targetID, s.Now())
	if err != nil {
		return push.AdminResult{}, err
	}
	s.deleteBlobs(ctx, r.Blobs)
	return r.AdminResult, nil
}

// AdminCreateUser creates an account with a given password for actor (the
// operator on the command line, `hush user create`), under the rules of
// sign-up and without a limit, and logs it in the admin log in the same
// transaction; with admin the account is an administrator from the start,
// logged as promoted too.
func (s *Service) AdminCreateUser(ctx context.Context, actor push.AdminActor, email, password string, admin bool) (*push.User, error) {
	return s.createUser(ctx, email, password, func(email, hash string) (*push.User, error) {
		return s.store.AdminCreateUser(ctx, actor, email, hash, admin, s.Now())
	})
}

// AdminSetPassword gives the account of email a new password for actor
// (the operator, `hush user set-password`), logged in the admin log in the
// same transaction: the password rules apply, no limit does, and every web
// session of the account ends.
func (s *Service) AdminSetPassword(ctx context.Context, actor push.AdminActor, email, password string) (*push.User, error) {
	if msg := PasswordError(password, password); msg != "" {
		return nil, invalid("password", msg)
	}
	u, err := s.store.UserByEmail(ctx, NormalizeEmail(email))
	if err != nil {
		return nil, err
	}
	hash, err := s.argon.HashPassword(ctx, password)
	if err != nil {
		return nil, err
	}
	epoch, err := s.store.AdminSetPassword(ctx, actor, u.ID, hash, s.Now())
	if err != nil {
		return nil, err
	}
	u.PasswordHash, u.AuthEpoch = hash, epoch
	return u, nil
}

// AdminReplaceToken gives u a new API token for actor (the operator,
// `hush token create`), as ReplaceToken does, logged in the admin log in
// the same transaction.
func (s *Service) AdminReplaceToken(ctx context.Context, actor push.AdminActor, u *push.User) (string, error) {
	tok, err := secure.NewToken(apiTokenBytes)
	if err != nil {
		return "", err
	}
	if err := s.store.AdminReplaceToken(ctx, actor, u.ID, secure.TokenDigest(tok), s.Now()); err != nil {
		return "", err
	}
	return tok, nil
}

// AdminSendReset emails the account targetID a password reset link naming
// origin, for an admin, as the account's owner would get it from "Forgot
// your password?" (the same limits per client and address apply). The
// action is logged first, in the admin log's transaction that checks the
// actor is still an admin; it returns the account's email. CodeNotFound
// when the instance sends no email.
func (s *Service) AdminSendReset(ctx context.Context, actor push.AdminActor, targetID int64, origin string) (string, error) {
	if s.mail == nil {
		return "", errMailOff
	}
	if actor.ID != 0 && actor.ID == targetID {
		return "", push.Errorf(push.CodeForbidden, "%s", MsgNotYourOwn)
	}
	r, err := s.store.Administer(ctx, actor, push.AdminSendReset, targetID, s.Now())
	if err != nil {
		return "", err
	}
	return r.Target, s.requestByAddress(ctx, kindReset, r.Target, origin, push.Meta{IP: actor.IP})
}

// UserByID finds an account; CodeNotFound when there is none.
func (s *Service) UserByID(ctx context.Context, id int64) (*push.User, error) {
	return s.store.UserByID(ctx, id)
}

// ListUsers returns one page (PageSize, page counted from 1) of the
// accounts whose email contains query, in the order they were made, and how
// many match in all.
func (s *Service) ListUsers(ctx context.Context, query string, page int) ([]UserSummary, int, error) {
	page = min(max(page, 1), MaxPage)
	return s.store.ListUsers(ctx, query, (page-1)*PageSize, PageSize)
}

// AllUsers returns every account whose email contains query, for the
// command line.
func (s *Service) AllUsers(ctx context.Context, query string) ([]UserSummary, error) {
	var all []UserSummary
	for offset := 0; ; offset += 500 {
		part, _, err := s.store.ListUsers(ctx, query, offset, 500)
		if err != nil {
			return nil, err
		}
		all = append(all, part...)
		if len(part) < 500 {
			return all, nil
		}
	}
}

// AdminLog returns one page of the admin log, newest first, and how many
// entries there are in all.
func (s *Service) AdminLog(ctx context.Context, page int) ([]push.AdminEntry, int, error) {
	page = min(max(page, 1), MaxPage)
	return s.store.AdminLog(ctx, (page-1)*PageSize, PageSize)
}

// Stats counts users, pushes by kind and state, files and the database.
func (s *Service) Stats(ctx context.Context) (*Stats, error) { return s.store.Stats(ctx) }
