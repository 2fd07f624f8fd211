-- +goose Up
CREATE TABLE IF NOT EXISTS users (
    id            INTEGER PRIMARY KEY,
    email         TEXT    NOT NULL UNIQUE,
    password_hash TEXT    NOT NULL,
    created_at    BIGINT  NOT NULL,
    updated_at    BIGINT  NOT NULL
);

CREATE TABLE IF NOT EXISTS api_tokens (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    digest     TEXT    NOT NULL UNIQUE,
    created_at BIGINT  NOT NULL
);
CREATE INDEX IF NOT EXISTS api_tokens_user ON api_tokens(user_id);

CREATE TABLE IF NOT EXISTS pushes (
    id                  INTEGER PRIMARY KEY,
    url_token           TEXT     NOT NULL UNIQUE,
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
    updated_at          BIGINT   NOT NULL
);
CREATE INDEX IF NOT EXISTS pushes_owner ON pushes(user_id, expired, created_at);
CREATE INDEX IF NOT EXISTS pushes_active_expiry ON pushes(expired, expires_at);
CREATE INDEX IF NOT EXISTS pushes_expired_on ON pushes(expired, expired_on);

CREATE TABLE IF NOT EXISTS audit_logs (
    id         INTEGER PRIMARY KEY,
    push_id    INTEGER  NOT NULL REFERENCES pushes(id) ON DELETE CASCADE,
    kind       SMALLINT NOT NULL,
    ip         TEXT     NOT NULL,
    user_agent TEXT     NOT NULL,
    referrer   TEXT     NOT NULL,
    user_id    INTEGER,
    created_at BIGINT   NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_logs_push ON audit_logs(push_id, id);

-- +goose Down
DROP TABLE audit_logs;
DROP TABLE pushes;
DROP TABLE api_tokens;
DROP TABLE users;
