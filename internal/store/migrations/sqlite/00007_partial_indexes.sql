-- +goose Up
-- Each index of pushes now holds only the rows its queries look for, so an
-- anonymous active push (the usual create) is entered in two indexes
-- (url_token, active expiry) instead of four, and a view that is not the
-- last changes no index at all.
DROP INDEX IF EXISTS pushes_owner;
DROP INDEX IF EXISTS pushes_active_expiry;
DROP INDEX IF EXISTS pushes_expired_on;
CREATE INDEX IF NOT EXISTS pushes_owner ON pushes(user_id, expired, created_at) WHERE user_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS pushes_active_expiry ON pushes(expires_at) WHERE expired = 0;
CREATE INDEX IF NOT EXISTS pushes_expired_on ON pushes(expired_on) WHERE expired = 1;

-- +goose Down
DROP INDEX IF EXISTS pushes_owner;
DROP INDEX IF EXISTS pushes_active_expiry;
DROP INDEX IF EXISTS pushes_expired_on;
CREATE INDEX IF NOT EXISTS pushes_owner ON pushes(user_id, expired, created_at);
CREATE INDEX IF NOT EXISTS pushes_active_expiry ON pushes(expired, expires_at);
CREATE INDEX IF NOT EXISTS pushes_expired_on ON pushes(expired, expired_on);
