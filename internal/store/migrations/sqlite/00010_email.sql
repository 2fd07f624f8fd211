-- +goose Up
-- Email (docs/decisions.md, D35 to D39).
--
-- The outbox: every message Hush sends is a row here first, written in the
-- transaction of what caused it, and delivered by the outbox worker of any
-- instance (store.ClaimOutbox). kind chooses the sender; payload is sealed
-- under the master key and bound to kind and ref; subject_id and event name
-- what a message is about when it needs no payload (a receipt names its
-- push). A row is deleted once delivered; a row that failed for good keeps
-- no payload.
CREATE TABLE outbox (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    kind        TEXT    NOT NULL,
    ref         TEXT    NOT NULL,
    subject_id  BIGINT,
    event       TEXT    NOT NULL DEFAULT '',
    payload     BLOB,
    failed      SMALLINT NOT NULL DEFAULT 0,
    attempts    INTEGER NOT NULL DEFAULT 0,
    due_at      BIGINT  NOT NULL,
    lease_until BIGINT  NOT NULL DEFAULT 0,
    lease_owner TEXT    NOT NULL DEFAULT '',
    last_error  TEXT    NOT NULL DEFAULT '',
    created_at  BIGINT  NOT NULL
);
CREATE INDEX outbox_due ON outbox(due_at) WHERE failed = 0;
CREATE INDEX outbox_failed ON outbox(created_at) WHERE failed = 1;

-- Accounts: the digests of the one password reset and the one address
-- confirmation a user may have outstanding (never the tokens), whether the
-- address still awaits confirmation, and the receipts new pushes ask for.
ALTER TABLE users ADD COLUMN reset_digest TEXT;
ALTER TABLE users ADD COLUMN reset_expires_at BIGINT;
ALTER TABLE users ADD COLUMN confirm_pending SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN confirm_digest TEXT;
ALTER TABLE users ADD COLUMN confirm_expires_at BIGINT;
ALTER TABLE users ADD COLUMN receipts_default SMALLINT NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX users_reset_digest ON users(reset_digest) WHERE reset_digest IS NOT NULL;
CREATE UNIQUE INDEX users_confirm_digest ON users(confirm_digest) WHERE confirm_digest IS NOT NULL;

-- Pushes: the receipts their owner asked for (push.Receipts), and how many
-- recipients were sent the link (at most 5 over every request).
ALTER TABLE pushes ADD COLUMN receipts SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE pushes ADD COLUMN notify_count INTEGER NOT NULL DEFAULT 0;

-- +goose Down
SELECT 'down migration not supported';
