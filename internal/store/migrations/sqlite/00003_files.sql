-- +goose Up
CREATE TABLE IF NOT EXISTS push_files (
    id         INTEGER PRIMARY KEY,
    push_id    INTEGER NOT NULL REFERENCES pushes(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    blob_id    TEXT    NOT NULL UNIQUE,
    meta       BLOB    NOT NULL,
    file_key   BLOB,
    size       BIGINT  NOT NULL,
    purge_at   BIGINT,
    created_at BIGINT  NOT NULL
);
CREATE INDEX IF NOT EXISTS push_files_push ON push_files(push_id, position);
CREATE INDEX IF NOT EXISTS push_files_purge ON push_files(purge_at);

-- +goose Down
DROP TABLE push_files;
