-- +goose Up
-- Attempts counted for rate limits (failed passphrases, sign-ins), shared by
-- every instance. bucket is a digest naming what is counted.
CREATE TABLE IF NOT EXISTS rate_events (
    bucket TEXT   NOT NULL,
    at     BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS rate_events_bucket ON rate_events(bucket, at);
CREATE INDEX IF NOT EXISTS rate_events_at ON rate_events(at);

-- +goose Down
DROP TABLE rate_events;
