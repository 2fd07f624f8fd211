package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/store"
)

// Importing another deployment (hush import-pwpush): accounts keep their
// email, password and API token; pushes keep their url_token, so their links
// keep working, and are sealed the way Hush seals every push (sealing.go):
// the payload under the passphrase (when there is one), the token layer and
// the master key. Each account and each push is stored in one transaction
// of its own, and one that is already there is left as it is, so an import
// can be run again (docs/decisions.md, D28).

// ImportUser is an account to import.
type ImportUser struct {
	SourceID int64 // the user's id in the old deployment's database
	Email    string
	// PasswordHash is Devise's bcrypt hash or an Argon2id one; any other
	// value imports the account without a password that signs in.
	PasswordHash string
	APIToken     string // the account's API token, in clear; "" for none
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// ImportedUser is what importing an account did.
type ImportedUser struct {
	// ID is the account in Hush an import made for the user, which its
	// pushes go to; 0 when Taken.
	ID       int64
	Created  bool // false: an earlier import made the account, which is left as it is
	Taken    bool // the email is an account's that no import made for this user: the user's pushes are not imported
	Password bool // the account can sign in with its password
	Token    bool // the account's API token was imported
}

// ImportUser adds an account with its password hash and API token, both
// kept as they are usable: a bcrypt hash is checked until the account's
// next sign-in replaces it (passwords.go), and the token is stored as its
// digest, so the scripts that use it keep working. The account records
// the user's SourceID: a later run finds it by that, and an account with
// the email that no import made for the user — someone who signed up with
// the address meanwhile — is Taken, never the user's (docs/decisions.md,
// D28).
func (s *Service) ImportUser(ctx context.Context, in ImportUser) (ImportedUser, error) {
	email := NormalizeEmail(in.Email)
	if email == "" || !strings.Contains(email, "@") || len(email) > maxEmail || !utf8.ValidString(email) {
		return ImportedUser{}, invalid("email", MsgBadEmail)
	}
	out := ImportedUser{Password: secure.IsBcryptHash(in.PasswordHash) || secure.IsArgonHash(in.PasswordHash)}
	u := store.ImportedUser{SourceID: in.SourceID, Email: email, CreatedAt: in.CreatedAt, UpdatedAt: in.UpdatedAt}
	if out.Password {
		u.PasswordHash = in.PasswordHash
	}
	if in.APIToken != "" && len(in.APIToken) <= maxTokenLen {
		u.TokenDigest, out.Token = secure.TokenDigest(in.APIToken), true
	}
	got, err := s.store.ImportUser(ctx, u)
	if err != nil {
		return ImportedUser{}, err
	}
	out.ID, out.Created, out.Taken = got.ID, got.Created, got.Taken
	if out.Created && out.Password {
		s.bcryptHashes.forget()
	}
	if !out.Created {
		out.Password, out.Token = false, false
	}
	return out, nil
}

// ImportPush is a push to import, as its old deployment held it.
type ImportPush struct {
	Token string // the url_token of its links
	Kind  push.Kind
	Owner int64 // the owner's id in Hush; 0 for an anonymous push
	Name  string
	// Payload is the secret of a live push; nil imports the push as
	// expired, without secret, files or passphrase.
	Payload           *string
	Note              string
	Passphrase        string // "" for none
	ExpireAfterDays   int
	ExpireAfterViews  int
	ViewCount         int
	DeletableByViewer *bool // ignored for URL pushes, which never are
	RetrievalStep     bool
	Deleted           bool      // expired by hand (expired pushes only)
	ExpiredOn         time.Time // when an expired push expired
	CreatedAt         time.Time
	UpdatedAt         time.Time
	Events            []push.Event // the audit log, oldest first
	Files             []ImportFile // a live push's files
}

// ImportFile is a file of a push to import. Open returns its contents,
// which are streamed, sealed, into the file store; a reader that fails
// before its end (a size or checksum that does not match) fails the push.
type ImportFile struct {
	Name        string
	ContentType string
	Open        func(ctx context.Context) (io.ReadCloser, error)
}

// ImportedAlready reports whether a push with the url_token is there, as
// an earlier import stored it.
func (s *Service) ImportedAlready(ctx context.Context, token string) (bool, error) {
	if !ValidToken(token) {
		return false, ErrImportToken
	}
	return s.pushThere(ctx, secure.TokenKey(token))
}

func (s *Service) pushThere(ctx context.Context, tokenKey string) (bool, error) {
	_, err := s.store.PushByKey(ctx, tokenKey)
	if errors.Is(err, push.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// ErrImportToken is returned for a url_token Hush cannot serve.
var ErrImportToken = errors.New("a url_token Hush cannot serve (empty, too long, or holding '/', '.' or '?')")

// ImportPush stores a push under its old url_token, sealed as Hush seals
// every push, with its audit log and files. It returns false, storing
// nothing, when a push with that url_token is already there. Files are
// streamed into the file store before the push is stored; whatever fails
// leaves none of them behind.
func (s *Service) ImportPush(ctx context.Context, in ImportPush) (bool, error) {
	if !ValidToken(in.Token) {
		return false, ErrImportToken
	}
	if _, ok := push.ParseKind(string(in.Kind)); !ok {
		return false, fmt.Errorf("unknown kind %q", in.Kind)
	}
	l := newLayers(s.keys, in.Token)
	if there, err := s.pushThere(ctx, l.tokenKey); err != nil || there {
		return false, err
	}
	p := importedPush(in, l.tokenKey)
	var passKey []byte
	if in.Payload != nil && in.Passphrase != "" {
		var err error
		if p.PassphraseSalt, err = secure.NewSalt(); err != nil {
			return false, err
		}
		p.HasPassphrase = true
		if passKey, err = s.passphraseKey(ctx, in.Passphrase, p.PassphraseSalt); err != nil {
			return false, err
		}
	}
	if err := sealImported(l, p, in, passKey); err != nil {
		return false, err
	}
	uploads, err := s.importFiles(ctx, in)
	defer func() {
		for _, u := range uploads {
			s.deleteBlob(ctx, u.blobID, "file of an import that failed")
		}
	}()
	if err != nil {
		return false, err
	}
	rows, err := sealFiles(l, uploads, passKey)
	if err != nil {
		return false, err
	}
	ok, err := s.store.ImportPush(ctx, p, in.Events, rows)
	if ok {
		uploads = nil // the push holds them now
	}
	return ok, err
}

// importedPush is the push row of in, not yet sealed.
func importedPush(in ImportPush, tokenKey string) *push.Push {
	p := &push.Push{TokenKey: tokenKey, Kind: in.Kind, UserID: in.Owner, Name: in.Name,
		ExpireAfterDays: in.ExpireAfterDays, ExpireAfterViews: in.ExpireAfterViews, ViewCount: in.ViewCount,
		RetrievalStep: in.RetrievalStep, CreatedAt: in.CreatedAt, UpdatedAt: in.UpdatedAt}
	if in.Kind != push.KindURL {
		d := in.DeletableByViewer != nil && *in.DeletableByViewer
		p.DeletableByViewer = &d
	}
	if in.Payload == nil {
		p.Expired, p.Deleted, p.ExpiredOn = true, in.Deleted, in.ExpiredOn
		if p.ExpiredOn.IsZero() {
			p.ExpiredOn = in.UpdatedAt
		}
	}
	return p
}

// sealImported seals the payload (of a live push), the note and, for an
// owned push, the url_token, as Create does.
func sealImported(l *layers, p *push.Push, in ImportPush, passKey []byte) error {
	var err error
	if in.Payload != nil {
		if p.PayloadSealed, err = l.seal(purposePayload, "payload", []byte(*in.Payload), passKey); err != nil {
			return err
		}
	}
	if in.Note != "" {
		if p.NoteSealed, err = l.seal(purposeNote, "note", []byte(in.Note), nil); err != nil {
			return err
		}
	}
	if p.UserID != 0 {
		if p.TokenSealed, err = l.sealToken(); err != nil {
			return err
		}
	}
	return nil
}

// importFiles streams a live push's files into the file store. It returns
// what it stored, also on error, for the caller to delete.
func (s *Service) importFiles(ctx context.Context, in ImportPush) ([]*upload, error) {
	if in.Payload == nil || len(in.Files) == 0 {
		return nil, nil
	}
	if s.files == nil {
		return nil, errors.New("the push has files and no file store is configured")
	}
	var out []*upload
	for i, f := range in.Files {
		r, err := f.Open(ctx)
		if err != nil {
			return out, fmt.Errorf("file %d: %w", i+1, err)
		}
		id, key, n, err := s.sealInto(ctx, r)
		r.Close()
		if err != nil {
			return out, fmt.Errorf("file %d: %w", i+1, err)
		}
		ctype := f.ContentType
		if ctype == "" || len(ctype) > 255 || !utf8.ValidString(ctype) {
			ctype = "application/octet-stream"
		}
		name := SafeFileName(f.Name)
		if utf8.RuneCountInString(name) > maxFileName {
			name = string([]rune(name)[:maxFileName])
		}
		out = append(out, &upload{blobID: id, name: name, contentType: ctype, size: n, key: key})
	}
	return out, nil
}
