package store

import (
	"context"
	"database/sql"
	"fmt"
)

// SealedField names a sealed column for key rotation.
type SealedField string

// The sealed columns of pushes.
const (
	FieldPayload SealedField = "payload"
	FieldNote    SealedField = "note"
)

// Reseal hands every sealed value to fn, in batches, and stores what fn
// returns when it reports a change. It returns how many values changed.
// Each batch is one short transaction, so the service keeps serving meanwhile.
func (s *Store) Reseal(ctx context.Context, fn func(urlToken string, f SealedField, sealed []byte) ([]byte, bool, error)) (int, error) {
	const batch = 200
	var lastID int64
	changed := 0
	for {
		type row struct {
			id            int64
			token         string
			note, payload []byte
		}
		var rows []row
		rs, err := s.r.QueryContext(ctx, `SELECT id, url_token, note, payload FROM pushes
			WHERE id > $1 AND (note IS NOT NULL OR payload IS NOT NULL) ORDER BY id LIMIT $2`, lastID, batch)
		if err != nil {
			return changed, fmt.Errorf("reseal: %w", err)
		}
		for rs.Next() {
			var r row
			if err := rs.Scan(&r.id, &r.token, &r.note, &r.payload); err != nil {
				rs.Close()
				return changed, fmt.Errorf("reseal: %w", err)
			}
			rows = append(rows, r)
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return changed, fmt.Errorf("reseal: %w", err)
		}
		if len(rows) == 0 {
			return changed, nil
		}
		batchChanged := 0
		err = s.inTx(ctx, func(tx *sql.Tx) error {
			for _, r := range rows {
				for _, f := range []struct {
					name SealedField
					val  []byte
				}{{FieldPayload, r.payload}, {FieldNote, r.note}} {
					if f.val == nil {
						continue
					}
					out, ok, err := fn(r.token, f.name, f.val)
					if err != nil {
						return fmt.Errorf("reseal push %d %s: %w", r.id, f.name, err)
					}
					if !ok {
						continue
					}
					// Only replace the value we read: a concurrent expiry wins.
					q := `UPDATE pushes SET ` + string(f.name) + ` = $1 WHERE id = $2 AND ` + string(f.name) + ` = $3`
					res, err := tx.ExecContext(ctx, q, out, r.id, f.val)
					if err != nil {
						return fmt.Errorf("reseal push %d: %w", r.id, err)
					}
					n, _ := res.RowsAffected()
					batchChanged += int(n)
				}
			}
			return nil
		})
		if err != nil {
			return changed, err
		}
		changed += batchChanged
		lastID = rows[len(rows)-1].id
	}
}
