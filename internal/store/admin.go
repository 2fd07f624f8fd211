package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"hush/internal/push"
)

// errNotAdmin refuses an action whose actor is no longer an enabled admin.
var errNotAdmin = push.Errorf(push.CodeForbidden, "Only administrators may do this.")

// AdminResult is what an admin action did: the account's email and
// whether anything changed (push.AdminResult), and the blob ids of the
// account's files for the caller to delete from the file store
// (AdminDelete).
type AdminResult struct {
	push.AdminResult
	Blobs []string
}

// Administer performs an admin action on the account targetID and writes
// its line of the admin log, in one transaction (adminTx); an action that
// changes nothing (disabling a disabled account, …) writes none. It
// returns the target's email, whether the action changed anything and,
// for AdminDelete, the blob ids of its files; push.CodeNotFound when there
// is no such account.
func (s *Store) Administer(ctx context.Context, actor push.AdminActor, action push.AdminAction, targetID int64, now time.Time) (AdminResult, error) {
	return adminTx(ctx, s, actor, now, func(tx *Tx) (AdminResult, []adminLine, error) {
		target, err := emailOf(ctx, tx, targetID)
		if err != nil {
			return AdminResult{}, nil, err
		}
		r := AdminResult{AdminResult: push.AdminResult{Target: target}}
		r.Changed, r.Blobs, err = administer(ctx, tx, action, targetID, now)
		if err != nil {
			return AdminResult{}, nil, err
		}
		if !r.Changed {
			return r, nil, nil
		}
		return r, []adminLine{{action, targetID, target}}, nil
	})
}

// AdminCreateUser adds an account as CreateUser does, as an admin action
// of actor: logged as created, and with admin made an administrator and
// logged as promoted too, in the same transaction.
func (s *Store) AdminCreateUser(ctx context.Context, actor push.AdminActor, email, passwordHash string, admin bool, now time.Time) (*push.User, error) {
	u := &push.User{Email: strings.ToLower(strings.TrimSpace(email)), PasswordHash: passwordHash, AuthEpoch: newEpoch(), CreatedAt: now}
	id, err := adminTx(ctx, s, actor, now, func(tx *Tx) (int64, []adminLine, error) {
		id, err := insertUser(ctx, tx, u)
		if err != nil {
			return 0, nil, err
		}
		lines := []adminLine{{push.AdminCreate, id, u.Email}}
		if admin {
			if _, _, err := administer(ctx, tx, push.AdminPromote, id, now); err != nil {
				return 0, nil, err
			}
			lines = append(lines, adminLine{push.AdminPromote, id, u.Email})
		}
		return id, lines, nil
	})
	if err != nil {
		return nil, err
	}
	u.ID, u.Admin = id, admin
	return u, nil
}

// AdminSetPassword sets the password of the account targetID as
// SetPassword does, as a logged admin action of actor. It returns the
// account's new epoch.
func (s *Store) AdminSetPassword(ctx context.Context, actor push.AdminActor, targetID int64, passwordHash string, now time.Time) (string, error) {
	epoch := newEpoch()
	_, err := adminTx(ctx, s, actor, now, func(tx *Tx) (none, []adminLine, error) {
		target, err := emailOf(ctx, tx, targetID)
		if err != nil {
			return none{}, nil, err
		}
		if err := setPassword(ctx, tx, targetID, passwordHash, epoch, now); err != nil {
			return none{}, nil, err
		}
		return none{}, []adminLine{{push.AdminSetPassword, targetID, target}}, nil
	})
	if err != nil {
		return "", err
	}
	return epoch, nil
}

// AdminReplaceToken makes digest the only API token of the account
// targetID as ReplaceToken does, as a logged admin action of actor.
func (s *Store) AdminReplaceToken(ctx context.Context, actor push.AdminActor, targetID int64, digest string, now time.Time) error {
	_, err := adminTx(ctx, s, actor, now, func(tx *Tx) (none, []adminLine, error) {
		target, err := emailOf(ctx, tx, targetID)
		if err != nil {
			return none{}, nil, err
		}
		if err := replaceToken(ctx, tx, targetID, digest, now); err != nil {
			return none{}, nil, err
		}
		return none{}, []adminLine{{push.AdminNewToken, targetID, target}}, nil
	})
	return err
}

// adminLine is a line of the admin log: what was done to which account.
type adminLine struct {
	action   push.AdminAction
	targetID int64
	target   string // the account's email
}

// adminTx runs an admin action of actor in one write transaction with the
// lines of the admin log that fn returns for it: an action that happened
// is logged, and a logged action happened. Admin actions are serialized by
// a lock row (lockAdminActions), and a web actor (ID ≠ 0) must still be an
// enabled admin when the action runs, so two admins acting on each other
// at once cannot both succeed, and an admin disabled a moment ago acts no
// more.
func adminTx[T any](ctx context.Context, s *Store, actor push.AdminActor, now time.Time, fn func(tx *Tx) (T, []adminLine, error)) (T, error) {
	return write(ctx, s, func(tx *Tx) (T, error) {
		var zero T
		if err := lockAdminActions(ctx, tx); err != nil {
			return zero, err
		}
		if actor.ID != 0 {
			var one int
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM users WHERE id = $1 AND admin = 1 AND disabled_at IS NULL`, actor.ID).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return zero, errNotAdmin
			}
			if err != nil {
				return zero, fmt.Errorf("check admin: %w", err)
			}
		}
		out, lines, err := fn(tx)
		if err != nil {
			return zero, err
		}
		for _, l := range lines {
			if err := writeAdminLog(ctx, tx, actor, l.action, l.targetID, l.target, now); err != nil {
				return zero, err
			}
		}
		return out, nil
	})
}

// emailOf is the email of the account id, in tx; push.CodeNotFound when
// there is no such account.
func emailOf(ctx context.Context, tx *Tx, id int64) (string, error) {
	var email string
	err := tx.QueryRowContext(ctx, `SELECT email FROM users WHERE id = $1`, id).Scan(&email)
	if errors.Is(err, sql.ErrNoRows) {
		return "", push.Errorf(push.CodeNotFound, "no such user")
	}
	if err != nil {
		return "", fmt.Errorf("load user: %w", err)
	}
	return email, nil
}

// lockAdminActions takes, in tx, the lock row that serializes admin
// actions and the deletion of an admin's own account: whatever such a
// transaction reads of who is an enabled admin stays true until it ends.
func lockAdminActions(ctx context.Context, tx *Tx) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (name, value) VALUES ('admin_lock', $1)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, []byte{}); err != nil {
		return fmt.Errorf("lock admin actions: %w", err)
	}
	return nil
}

// writeAdminLog writes one line of the admin log in tx.
func writeAdminLog(ctx context.Context, tx *Tx, actor push.AdminActor, action push.AdminAction, targetID int64, target string, now time.Time) error {
	var actorID any
	if actor.ID != 0 {
		actorID = actor.ID
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO admin_log (actor_id, actor, action, target_id, target, ip, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, actorID, actor.Name, string(action), targetID, target, actor.IP, ms(now)); err != nil {
		return fmt.Errorf("write admin log: %w", err)
	}
	return nil
}

// MsgLastAdmin refuses the deletion of the last enabled admin's own
// account.
const MsgLastAdmin = "You are the only administrator: make another account an administrator before you delete yours."

// DeleteOwnAccount deletes the account userID at its owner's request (the
// account page), as DeleteUser does, under the lock of the admin actions.
// The account of an enabled admin is deleted only while another enabled
// admin remains (else push.CodeForbidden with MsgLastAdmin), and its
// deletion is written to the admin log, with the admin as actor and target
// and ip as the client address, in the same transaction: so the pages never
// leave the instance without an enabled admin, and of two admins deleting
// themselves at once when only they are left, one is refused. It returns
// the blob ids of the account's files, as DeleteUser does.
func (s *Store) DeleteOwnAccount(ctx context.Context, userID int64, ip string, now time.Time) ([]string, error) {
	return write(ctx, s, func(tx *Tx) ([]string, error) {
		if err := lockAdminActions(ctx, tx); err != nil {
			return nil, err
		}
		var (
			email    string
			admin    int
			disabled sql.NullInt64
		)
		err := tx.QueryRowContext(ctx, `SELECT email, admin, disabled_at FROM users WHERE id = $1`,
			userID).Scan(&email, &admin, &disabled)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, push.Errorf(push.CodeNotFound, "no such user")
		}
		if err != nil {
			return nil, fmt.Errorf("load user: %w", err)
		}
		if admin == 1 && !disabled.Valid {
			last, err := lastEnabledAdmin(ctx, tx, userID)
			if err != nil {
				return nil, err
			}
			if last {
				return nil, push.Errorf(push.CodeForbidden, "%s", MsgLastAdmin)
			}
			actor := push.AdminActor{ID: userID, Name: email, IP: ip}
			if err := writeAdminLog(ctx, tx, actor, push.AdminDelete, userID, email, now); err != nil {
				return nil, err
			}
		}
		return deleteUser(ctx, tx, userID)
	})
}

// LastEnabledAdmin reports whether the account userID is an enabled admin
// and no other account is.
func (s *Store) LastEnabledAdmin(ctx context.Context, userID int64) (bool, error) {
	return lastEnabledAdmin(ctx, s.r, userID)
}

func lastEnabledAdmin(ctx context.Context, q rowQuerier, userID int64) (bool, error) {
	var self, others int
	err := q.QueryRowContext(ctx, `SELECT COALESCE(SUM(CASE WHEN id = $1 THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN id = $1 THEN 0 ELSE 1 END), 0)
		FROM users WHERE admin = 1 AND disabled_at IS NULL`, userID).Scan(&self, &others)
	if err != nil {
		return false, fmt.Errorf("count admins: %w", err)
	}
	return self == 1 && others == 0, nil
}

// adminUpdates are the actions that are one UPDATE of the account's row;
// the condition of each refuses a row already as the action leaves it. $3,
// where there is one, is a new auth epoch: disabling takes one as well as
// deleting the sessions, so that a session row written by a request in
// flight signs nobody in either.
var adminUpdates = map[push.AdminAction]string{
	push.AdminDisable:        `UPDATE users SET disabled_at = $1, auth_epoch = $3, updated_at = $1 WHERE id = $2 AND disabled_at IS NULL`,
	push.AdminEnable:         `UPDATE users SET disabled_at = NULL, updated_at = $1 WHERE id = $2 AND disabled_at IS NOT NULL`,
	push.AdminRevokeSessions: `UPDATE users SET auth_epoch = $3, updated_at = $1 WHERE id = $2`,
	push.AdminPromote:        `UPDATE users SET admin = 1, updated_at = $1 WHERE id = $2 AND admin = 0`,
	push.AdminDemote:         `UPDATE users SET admin = 0, updated_at = $1 WHERE id = $2 AND admin = 1`,
}

// administer is the change an action makes, in tx; changed is false when
// the account was already as the action would leave it. For AdminDelete,
// it returns the blob ids of the account's files.
func administer(ctx context.Context, tx *Tx, action push.AdminAction, id int64, now time.Time) (changed bool, blobs []string, err error) {
	if q, ok := adminUpdates[action]; ok {
		changed, err := updateAccount(ctx, tx, action, q, id, now)
		return changed, nil, err
	}
	switch action {
	case push.AdminRevokeToken:
		n, err := rowsAffected(tx.ExecContext(ctx, `DELETE FROM api_tokens WHERE user_id = $1`, id))
		return n > 0, nil, err
	case push.AdminResetTwoFactor:
		var has int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM users WHERE id = $1 AND (totp_secret IS NOT NULL
			OR totp_enabled_at IS NOT NULL OR totp_pending IS NOT NULL OR totp_pending_epoch IS NOT NULL
			OR EXISTS (SELECT 1 FROM recovery_codes WHERE user_id = $1))`, id).Scan(&has); err != nil || has == 0 {
			return false, nil, err
		}
		return true, nil, disableTwoFactor(ctx, tx, id, now)
	case push.AdminDelete:
		blobs, err := deleteUser(ctx, tx, id)
		return true, blobs, err
	case push.AdminSendReset:
		return true, nil, nil // the service queues the message once this is logged
	}
	return false, nil, push.Errorf(push.CodeBadRequest, "unknown admin action %q", action)
}

// updateAccount runs an action of adminUpdates, q, on the account id;
// disabling and revoking end its sessions too.
func updateAccount(ctx context.Context, tx *Tx, action push.AdminAction, q string, id int64, now time.Time) (bool, error) {
	args := []any{ms(now), id}
	if strings.Contains(q, "$3") {
		args = append(args, newEpoch())
	}
	n, err := rowsAffected(tx.ExecContext(ctx, q, args...))
	if err != nil {
		return false, fmt.Errorf("%s: %w", action, err)
	}
	if n == 0 {
		return false, nil
	}
	if action == push.AdminDisable || action == push.AdminRevokeSessions {
		return true, deleteSessionsOf(ctx, tx, id)
	}
	return true, nil
}

// AdminLog returns the admin log's entries, newest first, from offset, at
// most limit, and how many there are in all.
func (s *Store) AdminLog(ctx context.Context, offset, limit int) ([]push.AdminEntry, int, error) {
	var total int
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM admin_log`).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count admin log: %w", err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id, created_at, actor_id, actor, action, target_id, target, ip
		FROM admin_log ORDER BY id DESC LIMIT $1 OFFSET $2`, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("read admin log: %w", err)
	}
	defer rows.Close()
	var out []push.AdminEntry
	for rows.Next() {
		var (
			e                 push.AdminEntry
			at                int64
			actorID, targetID sql.NullInt64
			action            string
		)
		if err := rows.Scan(&e.ID, &at, &actorID, &e.Actor, &action, &targetID, &e.Target, &e.IP); err != nil {
			return nil, 0, fmt.Errorf("read admin log: %w", err)
		}
		e.At, e.ActorID, e.Action, e.TargetID = fromMS(at), actorID.Int64, push.AdminAction(action), targetID.Int64
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// UserSummary is an account as the admin pages list it.
type UserSummary struct {
	push.User
	HasToken     bool
	ActivePushes int
	Password     bool // the account has a password
	SSO          bool // the account has an identity at an OpenID Connect provider (D50)
}

// SignsIn says how the account signs in: "password", "SSO", "password and
// SSO", or "none" (neither: it can only have a password set).
func (u UserSummary) SignsIn() string {
	switch {
	case u.Password && u.SSO:
		return "password and SSO"
	case u.SSO:
		return "SSO"
	case u.Password:
		return "password"
	}
	return "none"
}

// ListUsers returns the accounts whose email contains query (all for ""),
// in id order from offset, at most limit, and how many match in all.
func (s *Store) ListUsers(ctx context.Context, query string, offset, limit int) ([]UserSummary, int, error) {
	pattern := "%" + escapeLike(strings.ToLower(strings.TrimSpace(query))) + "%"
	var total int
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM users u WHERE u.email LIKE $1 ESCAPE '\'`, pattern).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count users: %w", err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+userColumnsOf("u")+`,
		(SELECT COUNT(*) FROM api_tokens t WHERE t.user_id = u.id),
		(SELECT COUNT(*) FROM pushes p WHERE p.user_id = u.id AND p.expired = 0),
		(SELECT COUNT(*) FROM user_identities i WHERE i.user_id = u.id)
		FROM users u WHERE u.email LIKE $1 ESCAPE '\' ORDER BY u.id LIMIT $2 OFFSET $3`, pattern, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	var out []UserSummary
	for rows.Next() {
		var (
			u          UserSummary
			tokens, id int
		)
		user, err := scanUser(rows, &tokens, &u.ActivePushes, &id)
		if err != nil {
			return nil, 0, fmt.Errorf("list users: %w", err)
		}
		u.User, u.HasToken, u.SSO, u.Password = *user, tokens > 0, id > 0, user.PasswordHash != ""
		u.PasswordHash, u.AuthEpoch = "", "" // not for pages
		out = append(out, u)
	}
	return out, total, rows.Err()
}

// escapeLike makes s match itself in a LIKE pattern with ESCAPE '\'.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// PushCount is how many pushes of a kind are active and expired.
type PushCount struct {
	Kind    push.Kind
	Active  int64
	Expired int64
}

// Stats is the instance overview of the admin pages.
type Stats struct {
	Users, Admins, Disabled, TwoFactor int64
	Pushes                             []PushCount // by kind, in kind order
	Files, FileBytes                   int64       // files kept and their size as uploaded
	DatabaseBytes                      int64       // the database's size on disk
}

// Stats counts users, pushes by kind and state, files and the database's size.
func (s *Store) Stats(ctx context.Context) (*Stats, error) {
	var st Stats
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(admin), 0),
		COALESCE(SUM(CASE WHEN disabled_at IS NULL THEN 0 ELSE 1 END), 0),
		COALESCE(SUM(CASE WHEN totp_enabled_at IS NULL THEN 0 ELSE 1 END), 0) FROM users`).
		Scan(&st.Users, &st.Admins, &st.Disabled, &st.TwoFactor); err != nil {
		return nil, fmt.Errorf("count users: %w", err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT kind, expired, COUNT(*) FROM pushes GROUP BY kind, expired ORDER BY kind`)
	if err != nil {
		return nil, fmt.Errorf("count pushes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			kind    string
			expired int
			n       int64
		)
		if err := rows.Scan(&kind, &expired, &n); err != nil {
			return nil, fmt.Errorf("count pushes: %w", err)
		}
		if len(st.Pushes) == 0 || st.Pushes[len(st.Pushes)-1].Kind != push.Kind(kind) {
			st.Pushes = append(st.Pushes, PushCount{Kind: push.Kind(kind)})
		}
		c := &st.Pushes[len(st.Pushes)-1]
		if expired == 1 {
			c.Expired += n
		} else {
			c.Active += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count pushes: %w", err)
	}
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(size), 0) FROM push_files`).Scan(&st.Files, &st.FileBytes); err != nil {
		return nil, fmt.Errorf("count files: %w", err)
	}
	q := `SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()`
	if s.Engine() == "postgres" {
		q = `SELECT pg_database_size(current_database())`
	}
	if err := s.r.QueryRowContext(ctx, q).Scan(&st.DatabaseBytes); err != nil {
		return nil, fmt.Errorf("database size: %w", err)
	}
	return &st, nil
}
