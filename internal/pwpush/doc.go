// Package pwpush reads a Password Pusher database, read-only, for the
// importer (hush import-pwpush): its users with their Devise password hashes and API
// tokens, its pushes with their secrets decrypted, their audit logs and their
// attached files.
//
// # Supported deployments
//
// Password Pusher 1.56 and later on PostgreSQL or SQLite: the unified
// pushes table (db/schema.rb version 2025_05_19_010827 onwards, up to the
// current 2026_05_09_010000). Older versions kept their pushes in three tables
// (passwords, file_pushes, urls) and their views in views; 1.56 copies them
// into pushes and audit_logs in a background job, and 1.57 drops them. Open refuses a database whose pushes are still only in those
// tables: such a deployment is upgraded by starting Password Pusher 1.56
// or later once. MySQL and MariaDB deployments are not supported.
//
// # Lockbox
//
// Password Pusher encrypts pushes.payload_ciphertext, note_ciphertext and
// passphrase_ciphertext (and users.otp_secret_ciphertext) with Lockbox's
// has_encrypted, default options:
//
//   - The master key is PWPUSH_MASTER_KEY, 64 hexadecimal digits (32 bytes);
//     without one Password Pusher uses DefaultMasterKey, a public value.
//   - Each column has its own key: HKDF-SHA384 of the master key with the
//     table name ("pushes") as salt and 32 bytes of 0xB4 followed by the
//     ciphertext column's name ("payload_ciphertext") as info, 32 bytes.
//   - A value is stored as the strict base64 of a random 12-byte nonce, the
//     AES-256-GCM ciphertext (no associated data, no padding) and the
//     16-byte tag. An empty string is stored as an empty column, not
//     encrypted; nil as NULL.
//   - PWPUSH_MASTER_KEY_PREVIOUS lists older master keys, comma-separated:
//     a value is decrypted with the master key first, then each previous key
//     in order; it fails only when none opens it. New values always use the
//     master key.
//
// # Views, deletions and files
//
// Password Pusher counts a push's views from its audit log: the entries of
// kind view and failed_view (owner and admin views count nothing); a push
// is deleted when its log has an expire entry. It expires a push when the
// views or the days (whole days since creation) run out, erasing its
// payload and passphrase and purging its files.
//
// Files are Active Storage attachments of record type "Push", name "files".
// The Disk service keeps a blob under root/<key[0:2]>/<key[2:4]>/<key>
// (DiskPath); an S3 service keeps it at object key Key in its bucket.
//
// # Reading
//
// The readers stream: Users, Pushes, AuditLogs and Files are iterators
// that hold one row at a time. Errors name rows and columns, never a
// secret value or the password of a database URL.
package pwpush
