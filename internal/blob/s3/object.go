package s3

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/minio/minio-go/v7"

	"hush/internal/blob"
)

// OpenObject opens the object at key in the bucket, as it is: no prefix is
// added and the key need not be a blob id. It is for reading what another
// application keeps in a bucket (the importer reads Password Pusher's
// files). A missing object is blob.ErrNotFound.
func (s *Store) OpenObject(ctx context.Context, key string) (io.ReadCloser, error) {
	if key == "" {
		return nil, errors.New("blob: empty object key")
	}
	obj, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("blob: open object: %w", err)
	}
	if _, err := obj.Stat(); err != nil {
		obj.Close()
		if isNoSuchKey(err) {
			return nil, blob.ErrNotFound
		}
		return nil, fmt.Errorf("blob: open object: %w", err)
	}
	return obj, nil
}
