package token

import (
	"fmt"

	"github.com/mcpdoor/mcpdoor/internal/keyring"
)

// Keys is a key ring derived from one or more secrets: the first secret
// signs, every secret verifies, so a new secret can be rolled out in front
// of the old one without invalidating what the old one signed. One Keys
// signs a server's session cookies (session.New) and its session tokens
// (NewCodec), each under a key of its own derived from the secrets.
//
// The zero Keys signs nothing; make one with NewKeys. Keys is immutable and
// safe for concurrent use.
type Keys = keyring.Keys

// NewKeys returns a key ring over secrets, the signing one first. Each
// secret must be at least 32 bytes, the size of an HMAC-SHA256 key
// (shorter secrets can be guessed offline from one token); there must be
// one at least.
func NewKeys(secrets ...[]byte) (Keys, error) {
	k, err := keyring.New(secrets...)
	if err != nil {
		return Keys{}, fmt.Errorf("mcpdoor: %w", err)
	}
	return k, nil
}
