-- +goose Up
-- No index here, unlike SQLite's 00008: an index whose condition reads
-- view_count would make every view claim update every index of pushes
-- (no HOT update), and on PostgreSQL the sweeper's scan for pushes out of
-- views blocks no other writer. The version is kept in step with SQLite.

-- +goose Down
