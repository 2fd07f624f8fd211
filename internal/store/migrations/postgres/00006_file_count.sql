-- +goose Up
-- How many files a push carries, so a retrieve of a push without files
-- needs no push_files lookup.
ALTER TABLE pushes ADD COLUMN file_count INTEGER NOT NULL DEFAULT 0;
UPDATE pushes SET file_count = (SELECT COUNT(*) FROM push_files WHERE push_files.push_id = pushes.id);

-- +goose Down
ALTER TABLE pushes DROP COLUMN file_count;
