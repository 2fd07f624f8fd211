package store

import (
	"context"
	"database/sql"
	"fmt"
)

// LegacyPush is a push stored before secret links left the database: its
// url_token is still in clear, and its sealed values are bound to it.
type LegacyPush struct {
	ID      int64
	Token   string
	UserID  int64
	Payload []byte // nil once expired
	Note    []byte
	Files   []LegacyFileKey
}

// LegacyFileKey is the sealed key of one file of a LegacyPush.
type LegacyFileKey struct {
	ID     int64
	BlobID string
	Key    []byte
}

// LegacyPushes returns up to limit pushes that still hold a clear token,
// oldest first.
func (s *Store) LegacyPushes(ctx context.Context, limit int) ([]*LegacyPush, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, legacy_token, user_id, payload, note FROM pushes
		WHERE legacy_token IS NOT NULL ORDER BY id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("legacy pushes: %w", err)
	}
	var out []*LegacyPush
	for rows.Next() {
		var (
			p    LegacyPush
			user sql.NullInt64
		)
		if err := rows.Scan(&p.ID, &p.Token, &user, &p.Payload, &p.Note); err != nil {
			rows.Close()
			return nil, fmt.Errorf("legacy pushes: %w", err)
		}
		p.UserID = user.Int64
		out = append(out, &p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("legacy pushes: %w", err)
	}
	for _, p := range out {
		fr, err := s.r.QueryContext(ctx, `SELECT id, blob_id, file_key FROM push_files
			WHERE push_id = $1 AND file_key IS NOT NULL ORDER BY id`, p.ID)
		if err != nil {
			return nil, fmt.Errorf("legacy files: %w", err)
		}
		for fr.Next() {
			var f LegacyFileKey
			if err := fr.Scan(&f.ID, &f.BlobID, &f.Key); err != nil {
				fr.Close()
				return nil, fmt.Errorf("legacy files: %w", err)
			}
			p.Files = append(p.Files, f)
		}
		fr.Close()
		if err := fr.Err(); err != nil {
			return nil, fmt.Errorf("legacy files: %w", err)
		}
	}
	return out, nil
}

// Converted is a LegacyPush re-sealed without its clear token: its token
// key, the token sealed for its owner (nil for an anonymous push), and its
// values re-sealed (Files in the order of the LegacyPush's).
type Converted struct {
	TokenKey    string
	TokenSealed []byte
	Payload     []byte
	Note        []byte
	FileKeys    [][]byte
}

// ConvertLegacy replaces a legacy push's clear token and sealed values by
// their converted form, in one transaction, unless the push changed since
// it was read (expired, deleted or converted by another instance): then it
// leaves it for the next pass and reports false.
func (s *Store) ConvertLegacy(ctx context.Context, p *LegacyPush, c *Converted) (bool, error) {
	return maintain(ctx, s, func(tx *Tx) (bool, error) {
		n, err := rowsAffected(tx.ExecContext(ctx, `UPDATE pushes SET token_key = $1, token_sealed = $2, payload = $3, note = $4,
				legacy_token = NULL
			WHERE id = $5 AND legacy_token = $6 AND payload IS NOT DISTINCT FROM $7 AND note IS NOT DISTINCT FROM $8`,
			c.TokenKey, c.TokenSealed, c.Payload, c.Note, p.ID, p.Token, p.Payload, p.Note))
		if err != nil || n == 0 {
			if err != nil {
				err = fmt.Errorf("convert push %d: %w", p.ID, err)
			}
			return false, err
		}
		for i, f := range p.Files {
			if _, err := tx.ExecContext(ctx, `UPDATE push_files SET file_key = $1 WHERE id = $2 AND file_key = $3`,
				c.FileKeys[i], f.ID, f.Key); err != nil {
				return false, fmt.Errorf("convert file %d: %w", f.ID, err)
			}
		}
		return true, nil
	})
}

// LegacyCount returns how many pushes still hold a clear token.
func (s *Store) LegacyCount(ctx context.Context) (int, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM pushes WHERE legacy_token IS NOT NULL`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count legacy pushes: %w", err)
	}
	return n, nil
}
