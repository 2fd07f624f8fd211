-- +goose Up
-- The sweeper looks for pushes out of views but not expired, chunk by chunk
-- (store.Sweep). A claim expires a push on its last view, so such rows are
-- rare leftovers: this partial index holds only them, where a scan of every
-- active push would hold SQLite's writer for the length of the scan.
CREATE INDEX IF NOT EXISTS pushes_view_limit ON pushes(expired)
    WHERE expired = 0 AND view_count >= expire_after_views;

-- +goose Down
DROP INDEX pushes_view_limit;
