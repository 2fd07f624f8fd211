-- +goose Up
-- Languages (docs/decisions.md, D52, D53). pushes.locale is the language of
-- the push's recipient pages and emails, as push_locale named it ('': the
-- recipient's own). users.preferred_language is the language an account
-- chose for its pages ('': its browser's).
ALTER TABLE pushes ADD COLUMN locale TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN preferred_language TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE users DROP COLUMN preferred_language;
ALTER TABLE pushes DROP COLUMN locale;
