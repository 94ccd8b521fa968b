// Package keyring is the key ring behind token.Keys: the secrets that
// everything mcpdoor signs (session cookies, session tokens) is signed with,
// and the signing codecs of each purpose. Package token exports its type as
// token.Keys; the operations that only mcpdoor's own packages use are this
// package's functions, so that token.Keys has no methods of its own.
package keyring

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/gorilla/securecookie"
)

// MinSecretLen is the shortest secret New accepts: 32 bytes, the size of
// an HMAC-SHA256 key. Shorter secrets can be guessed offline from one token.
const MinSecretLen = 32

// ErrShortSecret is wrapped by New's error for a secret under MinSecretLen
// bytes.
var ErrShortSecret = errors.New("secret is shorter than 32 bytes")

// maxEncodedLen bounds what a codec will decode. An allow-list of a few
// hundred tool names fits; a megabyte of header does not get HMAC'd.
const maxEncodedLen = 64 << 10

// Keys is a key ring derived from one or more secrets: the first secret
// signs, every secret verifies, so a new secret can be rolled out in front
// of the old one without invalidating what the old one signed.
//
// The zero Keys signs nothing. Keys is immutable and safe for concurrent
// use.
type Keys struct {
	secrets [][]byte
}

// New returns a key ring over secrets, the signing one first. Each secret
// must be at least MinSecretLen bytes. Its errors have no "mcpdoor: "
// prefix: the caller's error, which names the setting, has it.
func New(secrets ...[]byte) (Keys, error) {
	if len(secrets) == 0 {
		return Keys{}, errors.New("no secret given")
	}
	k := Keys{secrets: make([][]byte, len(secrets))}
	for i, s := range secrets {
		if len(s) < MinSecretLen {
			return Keys{}, fmt.Errorf("secret %d of %d: %w (it has %d)", i+1, len(secrets), ErrShortSecret, len(s))
		}
		k.secrets[i] = append([]byte(nil), s...)
	}
	return k, nil
}

// Random returns a key ring over one fresh random secret. What it signs
// does not survive the process, nor verify on another replica.
func Random() Keys {
	return Keys{secrets: [][]byte{[]byte(rand.Text() + rand.Text())}}
}

// IsZero reports whether k holds no secret.
func IsZero(k Keys) bool { return len(k.secrets) == 0 }

// Codecs returns k's securecookie codecs for one purpose ("session",
// "token", ...), the signing one first, for securecookie.EncodeMulti and
// DecodeMulti. Each purpose gets its own HMAC-SHA256 key derived from each
// secret, so a value signed for one purpose never verifies as another.
//
// The codecs serialize with JSON, refuse encoded values over 64 KiB, and
// refuse values signed more than maxAge ago (in whole seconds, at least one;
// 0 means no limit).
func Codecs(k Keys, purpose string, maxAge time.Duration) []securecookie.Codec {
	if maxAge > 0 && maxAge < time.Second {
		maxAge = time.Second // securecookie counts whole seconds; 0 would mean no limit
	}
	codecs := make([]securecookie.Codec, len(k.secrets))
	for i, secret := range k.secrets {
		mac := hmac.New(sha256.New, secret)
		mac.Write([]byte("mcpdoor/" + purpose))
		sc := securecookie.New(mac.Sum(nil), nil)
		sc.SetSerializer(securecookie.JSONEncoder{})
		sc.MaxAge(int(maxAge / time.Second))
		sc.MaxLength(maxEncodedLen)
		codecs[i] = sc
	}
	return codecs
}

// MACKeys returns k's HMAC-SHA256 keys for one purpose, the signing one
// first, derived from each secret as Codecs derives its own: a MAC made
// for one purpose never verifies as another's.
func MACKeys(k Keys, purpose string) [][]byte {
	keys := make([][]byte, len(k.secrets))
	for i, secret := range k.secrets {
		mac := hmac.New(sha256.New, secret)
		mac.Write([]byte("mcpdoor/" + purpose))
		keys[i] = mac.Sum(nil)
	}
	return keys
}
