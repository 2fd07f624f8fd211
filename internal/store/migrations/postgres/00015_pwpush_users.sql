-- +goose Up
-- Importing Password Pusher (docs/decisions.md, D28): users.pwpush_user_id
-- is the id, in Password Pusher's database, of the user an import made
-- this account for (NULL: no import made it). A later run gives that
-- user's pushes to this account only, never to another account that holds
-- the same address.
ALTER TABLE users ADD COLUMN pwpush_user_id BIGINT;
CREATE UNIQUE INDEX users_pwpush_user_id ON users(pwpush_user_id) WHERE pwpush_user_id IS NOT NULL;

-- +goose Down
DROP INDEX users_pwpush_user_id;
ALTER TABLE users DROP COLUMN pwpush_user_id;
