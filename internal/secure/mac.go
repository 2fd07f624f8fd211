package secure

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
)

// MAC is HMAC-SHA256 of msg under a sub-key derived by HKDF-SHA256 from
// the current master key with info "hush/v1/mac/"+purpose. A MAC made
// before a key rotation no longer matches after it.
func (k *Keyring) MAC(purpose string, msg []byte) ([]byte, error) {
	sub, err := hkdf.Key(sha256.New, k.current.key, nil, infoBase+"mac/"+purpose, keySize)
	if err != nil {
		return nil, fmt.Errorf("secure: deriving sub-key: %w", err)
	}
	m := hmac.New(sha256.New, sub)
	m.Write(msg)
	return m.Sum(nil), nil
}
