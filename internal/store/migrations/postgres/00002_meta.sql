-- +goose Up
CREATE TABLE IF NOT EXISTS meta (
    name  TEXT PRIMARY KEY,
    value BYTEA NOT NULL
);

-- +goose Down
DROP TABLE meta;
