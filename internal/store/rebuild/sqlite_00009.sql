-- Three changes of the security model (docs/decisions.md, "Ids are never
-- reused" and "No secret link at rest"):
--
-- 1. users, pushes and push_files get AUTOINCREMENT, so SQLite never hands
--    out an id again after the row holding the highest one is deleted. The
--    tables are rebuilt (rebuildSQLite runs this file in one transaction,
--    with foreign keys off and legacy_alter_table on, so renaming a parent
--    leaves its children's REFERENCES pointing at the name, which names the
--    new table once it exists, and dropping the old copy cascades to
--    nothing).
-- 2. pushes no longer keep the url_token. token_key is the token's time
--    prefix and the SHA-256 of the whole token (secure.TokenKey); owned
--    pushes keep the token sealed under the master key (token_sealed) so
--    their owner's lists can show it. Rows from before keep their clear token
--    in legacy_token until the start-up migration (service.MigrateTokens),
--    which needs the master key, derives token_key, re-seals them with the
--    token layer every push has since, and empties it.
-- 3. Web sessions belong to a user (deleted with the account) and every
--    account has an auth_epoch that changes when its password does: a session
--    carries the epoch it was signed in with. Existing sessions carry none,
--    so everyone signs in again once.
ALTER TABLE users RENAME TO users_v8;
CREATE TABLE users (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    email         TEXT    NOT NULL,
    password_hash TEXT    NOT NULL,
    auth_epoch    TEXT    NOT NULL,
    created_at    BIGINT  NOT NULL,
    updated_at    BIGINT  NOT NULL
);
INSERT INTO users (id, email, password_hash, auth_epoch, created_at, updated_at)
    SELECT id, email, password_hash, lower(hex(randomblob(16))), created_at, updated_at FROM users_v8;
DROP TABLE users_v8;
CREATE UNIQUE INDEX users_email ON users(email);

ALTER TABLE pushes RENAME TO pushes_v8;
DROP INDEX IF EXISTS pushes_owner;
DROP INDEX IF EXISTS pushes_active_expiry;
DROP INDEX IF EXISTS pushes_expired_on;
DROP INDEX IF EXISTS pushes_view_limit;
CREATE TABLE pushes (
    id                  INTEGER  PRIMARY KEY AUTOINCREMENT,
    token_key           TEXT,
    token_sealed        BLOB,
    legacy_token        TEXT,
    kind                TEXT     NOT NULL,
    user_id             INTEGER  REFERENCES users(id) ON DELETE CASCADE,
    name                TEXT     NOT NULL DEFAULT '',
    note                BLOB,
    payload             BLOB,
    passphrase_salt     BLOB,
    expire_after_days   INTEGER  NOT NULL,
    expire_after_views  INTEGER  NOT NULL,
    deletable_by_viewer SMALLINT,
    retrieval_step      SMALLINT NOT NULL,
    view_count          INTEGER  NOT NULL DEFAULT 0,
    log_count           INTEGER  NOT NULL DEFAULT 0,
    expired             SMALLINT NOT NULL DEFAULT 0,
    deleted             SMALLINT NOT NULL DEFAULT 0,
    expires_at          BIGINT   NOT NULL,
    expired_on          BIGINT,
    created_at          BIGINT   NOT NULL,
    updated_at          BIGINT   NOT NULL,
    file_count          INTEGER  NOT NULL DEFAULT 0
);
INSERT INTO pushes (id, legacy_token, kind, user_id, name, note, payload, passphrase_salt,
        expire_after_days, expire_after_views, deletable_by_viewer, retrieval_step, view_count, log_count,
        expired, deleted, expires_at, expired_on, created_at, updated_at, file_count)
    SELECT id, url_token, kind, user_id, name, note, payload, passphrase_salt,
        expire_after_days, expire_after_views, deletable_by_viewer, retrieval_step, view_count, log_count,
        expired, deleted, expires_at, expired_on, created_at, updated_at, file_count FROM pushes_v8;
DROP TABLE pushes_v8;
CREATE UNIQUE INDEX pushes_token_key ON pushes(token_key);
CREATE INDEX pushes_legacy_token ON pushes(legacy_token) WHERE legacy_token IS NOT NULL;
CREATE INDEX pushes_owner ON pushes(user_id, expired, created_at) WHERE user_id IS NOT NULL;
CREATE INDEX pushes_active_expiry ON pushes(expires_at) WHERE expired = 0;
CREATE INDEX pushes_expired_on ON pushes(expired_on) WHERE expired = 1;
CREATE INDEX pushes_view_limit ON pushes(expired) WHERE expired = 0 AND view_count >= expire_after_views;

ALTER TABLE push_files RENAME TO push_files_v8;
DROP INDEX IF EXISTS push_files_push;
DROP INDEX IF EXISTS push_files_purge;
CREATE TABLE push_files (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    push_id    INTEGER NOT NULL REFERENCES pushes(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    blob_id    TEXT    NOT NULL,
    meta       BLOB    NOT NULL,
    file_key   BLOB,
    size       BIGINT  NOT NULL,
    purge_at   BIGINT,
    created_at BIGINT  NOT NULL
);
INSERT INTO push_files (id, push_id, position, blob_id, meta, file_key, size, purge_at, created_at)
    SELECT id, push_id, position, blob_id, meta, file_key, size, purge_at, created_at FROM push_files_v8;
DROP TABLE push_files_v8;
CREATE UNIQUE INDEX push_files_blob ON push_files(blob_id);
CREATE INDEX push_files_push ON push_files(push_id, position);
CREATE INDEX push_files_purge ON push_files(purge_at);

-- Ids seen anywhere, not only in the rows that are left, are never handed
-- out again: audit entries remember the users and pushes they were about.
INSERT INTO sqlite_sequence (name, seq) SELECT t, 0 FROM (SELECT 'users' AS t UNION ALL SELECT 'pushes' UNION ALL SELECT 'push_files')
    WHERE t NOT IN (SELECT name FROM sqlite_sequence);
UPDATE sqlite_sequence SET seq = max(seq,
    (SELECT COALESCE(MAX(user_id), 0) FROM audit_logs),
    (SELECT COALESCE(MAX(user_id), 0) FROM pushes)) WHERE name = 'users';
UPDATE sqlite_sequence SET seq = max(seq, (SELECT COALESCE(MAX(push_id), 0) FROM audit_logs)) WHERE name = 'pushes';

DROP TABLE sessions;
CREATE TABLE sessions (
    token   TEXT    PRIMARY KEY,
    user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
    data    BLOB    NOT NULL,
    expiry  BIGINT  NOT NULL
);
CREATE INDEX sessions_expiry ON sessions(expiry);
CREATE INDEX sessions_user ON sessions(user_id) WHERE user_id IS NOT NULL;

-- Rate limits reserve their slot before the work (service.Limiter): an
-- event row per slot, released by id when the work succeeds, and one lock
-- row per bucket that serializes concurrent reservers on PostgreSQL.
DROP TABLE rate_events;
CREATE TABLE rate_events (
    id     INTEGER PRIMARY KEY,
    bucket TEXT    NOT NULL,
    at     BIGINT  NOT NULL
);
CREATE INDEX rate_events_bucket ON rate_events(bucket, at);
CREATE INDEX rate_events_at ON rate_events(at);
CREATE TABLE rate_buckets (
    bucket     TEXT   PRIMARY KEY,
    touched_at BIGINT NOT NULL
);
