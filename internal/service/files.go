package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"hush/internal/blob"
	"hush/internal/push"
	"hush/internal/secure"
)

// Default size limits of attachments.
const (
	DefaultMaxFileSize = 100 << 20
	DefaultMaxPushSize = 1 << 30
	maxFileName        = 255
)

var errFileTooLarge = errors.New("file too large")

// tooLarge is the 413 for an attachment over the limits.
func (s *Service) tooLarge() error {
	return &push.Error{Code: push.CodeTooLarge, Message: fmt.Sprintf(
		"The files are too large: at most %d bytes per file and %d bytes per push.", s.maxFileSize, s.maxPushSize)}
}

// cappedReader fails once more than left bytes are read.
type cappedReader struct {
	r    io.Reader
	left int64
	read int64
	over bool
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.read += int64(n)
	c.left -= int64(n)
	if c.left < 0 {
		c.over = true
		return 0, errFileTooLarge
	}
	return n, err
}

func contentAD(blobID string) []byte { return []byte("hush/file/" + blobID + "/content") }
func metaAD(blobID string) []byte    { return []byte("hush/file/" + blobID + "/meta") }

type fileMeta struct {
	Name        string `json:"n"`
	ContentType string `json:"t"`
}

// sealFiles turns uploads into file rows of the push whose layers l are.
func sealFiles(l *layers, uploads []*upload, passKey []byte) ([]*push.File, error) {
	files := make([]*push.File, len(uploads))
	for i, u := range uploads {
		meta, _ := json.Marshal(fileMeta{u.name, u.contentType})
		metaSealed, err := secure.SealWithKey(u.key, meta, metaAD(u.blobID))
		if err != nil {
			return nil, err
		}
		keySealed, err := l.seal(purposeFileKey, fileKeyField(u.blobID), u.key, passKey)
		if err != nil {
			return nil, err
		}
		files[i] = &push.File{BlobID: u.blobID, MetaSealed: metaSealed, KeySealed: keySealed, Size: u.size}
	}
	return files, nil
}

// FileLink is an attachment as a retrieve shows it.
type FileLink struct {
	Name        string
	ContentType string
	Size        int64
	Token       string // opaque, sealed download token
}

type openedFile struct {
	file *push.File
	key  []byte
	meta fileMeta
}

// openFiles opens the keys and names of a push's files; done before a view
// is claimed, because the last view wipes the keys.
func (s *Service) openFiles(ctx context.Context, p *push.Push, passKey []byte) ([]openedFile, error) {
	if p.FileCount == 0 {
		return nil, nil
	}
	files, err := s.store.FilesOf(ctx, p.ID)
	if err != nil || len(files) == 0 {
		return nil, err
	}
	l := pushLayers(s.keys, p)
	out := make([]openedFile, 0, len(files))
	for _, f := range files {
		if f.KeySealed == nil {
			continue
		}
		key, err := l.open(purposeFileKey, fileKeyField(f.BlobID), f.KeySealed, passKey)
		if err != nil {
			return nil, fmt.Errorf("file %d: %w", f.ID, err)
		}
		raw, err := secure.OpenWithKey(key, f.MetaSealed, metaAD(f.BlobID))
		if err != nil {
			return nil, fmt.Errorf("file %d meta: %w", f.ID, err)
		}
		var m fileMeta
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("file %d meta: %w", f.ID, err)
		}
		out = append(out, openedFile{file: f, key: key, meta: m})
	}
	return out, nil
}

// linkFiles issues download tokens valid for push.FileLinkTTL. A token
// carries the file key sealed under the master key (secure.FileLink), so a
// link works for its five minutes even after the push expired and its keys
// were wiped.
func (s *Service) linkFiles(p *push.Push, opened []openedFile) ([]FileLink, error) {
	links := make([]FileLink, 0, len(opened))
	exp := s.Now().Add(push.FileLinkTTL)
	for _, o := range opened {
		tok, err := secure.FileLink{FileID: o.file.ID, PushID: p.ID, Expires: exp, Key: o.key}.Seal(s.keys)
		if err != nil {
			return nil, err
		}
		links = append(links, FileLink{Name: o.meta.Name, ContentType: o.meta.ContentType, Size: o.file.Size, Token: tok})
	}
	return links, nil
}

// Download is an attachment being served.
type Download struct {
	Name        string
	ContentType string
	Size        int64
	Body        io.ReadCloser // plaintext, authenticated chunk by chunk
}

// OpenDownload checks a download token and opens the file it names. An
// expired, tampered or purged link is push.ErrNotFound, whatever the reason,
// so a link reveals nothing. A download is audited but is not a view.
func (s *Service) OpenDownload(ctx context.Context, token string, m push.Meta) (*Download, error) {
	link, err := secure.OpenFileLink(s.keys, token)
	now := s.Now()
	if err != nil || !now.Before(link.Expires) {
		return nil, push.ErrNotFound
	}
	f, meta, err := s.linkedFile(ctx, link, now)
	if err != nil {
		return nil, err
	}
	rc, err := s.files.Open(ctx, f.BlobID)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, push.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	sr, err := secure.OpenStream(&storageReader{r: rc, want: secure.SealedStreamSize(f.Size)}, link.Key, contentAD(f.BlobID))
	if err != nil {
		rc.Close()
		return nil, fmt.Errorf("file %d: %w", f.ID, err)
	}
	// Downloads are logged once per client, file and minute (logNoise).
	if err := s.logNoise(ctx, link.PushID, fmt.Sprintf("file/%d", f.ID), s.event(push.EventFileDownload, nil, m, now)); err != nil {
		rc.Close()
		return nil, err
	}
	return &Download{Name: meta.Name, ContentType: meta.ContentType, Size: f.Size,
		Body: struct {
			io.Reader
			io.Closer
		}{sr, rc}}, nil
}

// linkedFile loads the file a link names and opens its name and type with
// the link's key: push.ErrNotFound when the file is gone, was purged, or
// belongs to another push than the link says.
func (s *Service) linkedFile(ctx context.Context, link secure.FileLink, now time.Time) (*push.File, fileMeta, error) {
	var meta fileMeta
	f, err := s.store.FileByID(ctx, link.FileID)
	if err != nil {
		return nil, meta, err
	}
	if f.PushID != link.PushID || (!f.PurgeAt.IsZero() && !now.Before(f.PurgeAt)) {
		return nil, meta, push.ErrNotFound
	}
	raw, err := secure.OpenWithKey(link.Key, f.MetaSealed, metaAD(f.BlobID))
	if err != nil {
		return nil, meta, push.ErrNotFound
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, meta, fmt.Errorf("file %d meta: %w", f.ID, err)
	}
	return f, meta, nil
}

// orphanAge is how old an unreferenced blob must be before the sweeper
// deletes it: longer than any upload may take.
const orphanAge = time.Hour
