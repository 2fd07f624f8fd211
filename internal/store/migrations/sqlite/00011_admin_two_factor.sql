-- +goose Up
-- Administration and the second factor (docs/decisions.md, "Accounts").
--
-- users.admin: the account may use the admin pages. users.disabled_at: when
-- an admin disabled it (NULL: enabled); a disabled account signs in nowhere.
-- The TOTP secret is sealed under the master key (service/twofactor.go);
-- totp_enabled_at says the second factor is on, totp_last_step is the last
-- time step whose code was accepted (a code is taken once). An enrolment
-- not yet confirmed keeps its secret in totp_pending, with the auth epoch it
-- began under: a password change or revocation in between voids it.
ALTER TABLE users ADD COLUMN admin SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN disabled_at BIGINT;
ALTER TABLE users ADD COLUMN totp_secret BLOB;
ALTER TABLE users ADD COLUMN totp_enabled_at BIGINT;
ALTER TABLE users ADD COLUMN totp_last_step BIGINT NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN totp_pending BLOB;
ALTER TABLE users ADD COLUMN totp_pending_epoch TEXT;

-- Single-use recovery codes, by the SHA-256 of the code (80 random bits).
-- Using one deletes its row.
CREATE TABLE recovery_codes (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    digest     TEXT    NOT NULL,
    created_at BIGINT  NOT NULL
);
CREATE UNIQUE INDEX recovery_codes_user ON recovery_codes(user_id, digest);

-- What admins did, and who: rows name the accounts by id and by the email
-- they had, so that the log outlives both.
CREATE TABLE admin_log (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    actor_id   INTEGER,
    actor      TEXT    NOT NULL,
    action     TEXT    NOT NULL,
    target_id  INTEGER,
    target     TEXT    NOT NULL,
    ip         TEXT    NOT NULL,
    created_at BIGINT  NOT NULL
);

-- +goose Down
DROP TABLE admin_log;
DROP TABLE recovery_codes;
ALTER TABLE users DROP COLUMN totp_pending_epoch;
ALTER TABLE users DROP COLUMN totp_pending;
ALTER TABLE users DROP COLUMN totp_last_step;
ALTER TABLE users DROP COLUMN totp_enabled_at;
ALTER TABLE users DROP COLUMN totp_secret;
ALTER TABLE users DROP COLUMN disabled_at;
ALTER TABLE users DROP COLUMN admin;
