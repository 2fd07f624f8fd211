-- +goose Up
CREATE TABLE IF NOT EXISTS meta (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
);

-- +goose Down
DROP TABLE meta;
