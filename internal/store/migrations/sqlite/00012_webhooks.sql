-- +goose Up
-- Signed webhooks (docs/decisions.md, D48 and D49).
--
-- An endpoint belongs to its user (and is told of that user's pushes), or
-- to the instance (user_id NULL: an admin's, told of every push). Its
-- signing secret is sealed under the master key, bound to ref.
CREATE TABLE webhook_endpoints (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id         BIGINT REFERENCES users(id) ON DELETE CASCADE,
    url             TEXT    NOT NULL,
    events          INTEGER NOT NULL,
    secret_sealed   BLOB   NOT NULL,
    ref             TEXT    NOT NULL,
    enabled         SMALLINT NOT NULL DEFAULT 1,
    disabled_reason TEXT    NOT NULL DEFAULT '',
    failing_since   BIGINT  NOT NULL DEFAULT 0,
    created_at      BIGINT  NOT NULL,
    updated_at      BIGINT  NOT NULL
);
CREATE INDEX webhook_endpoints_user ON webhook_endpoints(user_id);

-- One event for one endpoint, written in the transaction of the event with
-- what the audit log records of it (never a payload, note, file name or
-- link); its delivery is an outbox message (kind webhook, subject_id the
-- id here) so that every instance's outbox worker shares the work.
CREATE TABLE webhook_messages (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    endpoint_id BIGINT  NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
    event_id    TEXT    NOT NULL,
    msg_id      TEXT    NOT NULL UNIQUE,
    event       INTEGER NOT NULL,
    push_id     BIGINT  NOT NULL,
    token_key   TEXT    NOT NULL DEFAULT '',
    push_kind   TEXT    NOT NULL DEFAULT '',
    push_name   TEXT    NOT NULL DEFAULT '',
    views_left  INTEGER NOT NULL DEFAULT 0,
    expires_at  BIGINT  NOT NULL DEFAULT 0,
    ip          TEXT    NOT NULL DEFAULT '',
    user_agent  TEXT    NOT NULL DEFAULT '',
    state       TEXT    NOT NULL DEFAULT 'pending',
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_status INTEGER NOT NULL DEFAULT 0,
    created_at  BIGINT  NOT NULL,
    updated_at  BIGINT  NOT NULL
);
CREATE INDEX webhook_messages_event ON webhook_messages(event_id);
CREATE INDEX webhook_messages_endpoint ON webhook_messages(endpoint_id, id);
CREATE INDEX webhook_messages_created ON webhook_messages(created_at);

-- The delivery log: one row per attempt.
CREATE TABLE webhook_attempts (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id    BIGINT  NOT NULL REFERENCES webhook_messages(id) ON DELETE CASCADE,
    endpoint_id   BIGINT  NOT NULL,
    attempt       INTEGER NOT NULL,
    status_code   INTEGER NOT NULL DEFAULT 0,
    latency_ms    BIGINT  NOT NULL DEFAULT 0,
    error         TEXT    NOT NULL DEFAULT '',
    next_retry_at BIGINT  NOT NULL DEFAULT 0,
    created_at    BIGINT  NOT NULL
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts(endpoint_id, id);
CREATE INDEX webhook_attempts_message ON webhook_attempts(message_id);

-- +goose Down
SELECT 'down migration not supported';
