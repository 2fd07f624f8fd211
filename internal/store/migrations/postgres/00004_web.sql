-- +goose Up
-- Web sessions (scs). The token column holds the SHA-256 digest of the
-- session cookie's token, never the token itself.
CREATE TABLE IF NOT EXISTS sessions (
    token  TEXT   PRIMARY KEY,
    data   BYTEA  NOT NULL,
    expiry BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions(expiry);

-- +goose Down
DROP TABLE sessions;
