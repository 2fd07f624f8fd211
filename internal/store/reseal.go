package store

import (
	"context"
	"fmt"
)

// SealedField names a sealed value for key rotation.
type SealedField string

// The sealed columns of pushes. A file key is named FileKeyField(blobID).
const (
	FieldPayload SealedField = "payload"
	FieldNote    SealedField = "note"
	FieldToken   SealedField = "token" // an owned push's url_token
)

// FileKeyField names the sealed key of the file stored under blobID.
func FileKeyField(blobID string) SealedField { return SealedField("file/" + blobID) }

// TOTPFieldPrefix begins the name of an account's sealed TOTP secret (the
// confirmed one and an enrolment's alike): TOTPFieldPrefix + the account id.
// Its values have no token key.
const TOTPFieldPrefix = "user-totp/"

func totpField(userID string) SealedField { return SealedField(TOTPFieldPrefix + userID) }

// sealedSource is one sealed column: its query yields id, token_key (or
// what binds the value in its place), a label and the value, in id order
// after $1, at most $2 rows.
type sealedSource struct {
	table, column, query string
	field                func(label string) SealedField
}

var sealedSources = []sealedSource{
	{"pushes", "payload", `SELECT id, token_key, '', payload FROM pushes
		WHERE id > $1 AND payload IS NOT NULL AND token_key IS NOT NULL ORDER BY id LIMIT $2`, func(string) SealedField { return FieldPayload }},
	{"pushes", "note", `SELECT id, token_key, '', note FROM pushes
		WHERE id > $1 AND note IS NOT NULL AND token_key IS NOT NULL ORDER BY id LIMIT $2`, func(string) SealedField { return FieldNote }},
	{"pushes", "token_sealed", `SELECT id, token_key, '', token_sealed FROM pushes
		WHERE id > $1 AND token_sealed IS NOT NULL AND token_key IS NOT NULL ORDER BY id LIMIT $2`, func(string) SealedField { return FieldToken }},
	{"push_files", "file_key", `SELECT f.id, p.token_key, f.blob_id, f.file_key FROM push_files f
		JOIN pushes p ON p.id = f.push_id WHERE f.id > $1 AND f.file_key IS NOT NULL AND p.token_key IS NOT NULL
		ORDER BY f.id LIMIT $2`, FileKeyField},
	{"users", "totp_secret", `SELECT id, '', CAST(id AS TEXT) AS label, totp_secret FROM users
		WHERE id > $1 AND totp_secret IS NOT NULL ORDER BY id LIMIT $2`, totpField},
	{"users", "totp_pending", `SELECT id, '', CAST(id AS TEXT) AS label, totp_pending FROM users
		WHERE id > $1 AND totp_pending IS NOT NULL ORDER BY id LIMIT $2`, totpField},
	// An outbox message's payload: its ref stands where the token key does,
	// its field names its kind (OutboxField).
	{"outbox", "payload", `SELECT id, ref, kind, payload FROM outbox
		WHERE id > $1 AND payload IS NOT NULL ORDER BY id LIMIT $2`, OutboxField},
	// A webhook endpoint's signing secret: its ref stands where the token
	// key does.
	{"webhook_endpoints", "secret_sealed", `SELECT id, ref, '', secret_sealed FROM webhook_endpoints
		WHERE id > $1 ORDER BY id LIMIT $2`, func(string) SealedField { return FieldWebhookSecret }},
}

// FieldWebhookSecret names the sealed signing secret of a webhook endpoint;
// the endpoint's ref is passed where a push's token key is.
const FieldWebhookSecret SealedField = "webhook/secret"

// OutboxField names the sealed payload of an outbox message of kind; the
// message's ref is passed where a push's token key is.
func OutboxField(kind string) SealedField { return SealedField("outbox/" + kind) }

// Reseal hands every sealed value to fn, in batches, and stores what fn
// returns when it reports a change. It returns how many values changed.
// Each batch is one short transaction, so the service keeps serving meanwhile;
// a value changed concurrently (an expiry) is left alone.
func (s *Store) Reseal(ctx context.Context, fn func(tokenKey string, f SealedField, sealed []byte) ([]byte, bool, error)) (int, error) {
	changed := 0
	for _, src := range sealedSources {
		n, err := s.resealSource(ctx, src, fn)
		changed += n
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

func (s *Store) resealSource(ctx context.Context, src sealedSource, fn func(string, SealedField, []byte) ([]byte, bool, error)) (int, error) {
	const batch = 200
	type row struct {
		id         int64
		key, label string
		value      []byte
	}
	var lastID int64
	changed := 0
	for {
		var rows []row
		rs, err := s.r.QueryContext(ctx, src.query, lastID, batch)
		if err != nil {
			return changed, fmt.Errorf("reseal: %w", err)
		}
		for rs.Next() {
			var r row
			if err := rs.Scan(&r.id, &r.key, &r.label, &r.value); err != nil {
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
		batchChanged, err := maintain(ctx, s, func(tx *Tx) (int, error) {
			n := 0
			for _, r := range rows {
				field := src.field(r.label)
				out, ok, err := fn(r.key, field, r.value)
				if err != nil {
					return 0, fmt.Errorf("reseal %s %d %s: %w", src.table, r.id, field, err)
				}
				if !ok {
					continue
				}
				q := `UPDATE ` + src.table + ` SET ` + src.column + ` = $1 WHERE id = $2 AND ` + src.column + ` = $3`
				done, err := rowsAffected(tx.ExecContext(ctx, q, out, r.id, r.value))
				if err != nil {
					return 0, fmt.Errorf("reseal %s %d: %w", src.table, r.id, err)
				}
				n += int(done)
			}
			return n, nil
		})
		if err != nil {
			return changed, err
		}
		changed += batchChanged
		lastID = rows[len(rows)-1].id
	}
}
