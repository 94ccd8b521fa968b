package token

import (
	"errors"
	"fmt"
	"time"

	"github.com/gorilla/securecookie"
)

// Payload is what a session token carries: the rollout's session id and the
// tools it may call.
type Payload struct {
	// SID is the session id that the token's calls run in: the same session
	// the HTTP door's cookie names.
	SID string `json:"sid"`
	// Tools is the allow-list: nil means every tool; an empty, non-nil list
	// means none.
	Tools []string `json:"tools"`
}

// Allows reports whether the payload lets its holder call tool.
func (p Payload) Allows(tool string) bool {
	if p.Tools == nil {
		return true
	}
	for _, t := range p.Tools {
		if t == tool {
			return true
		}
	}
	return false
}

// Errors from Verify. Every refusal wraps ErrInvalid; an expired token also
// wraps ErrExpired.
var (
	ErrInvalid = errors.New("invalid session token")
	ErrExpired = errors.New("session token expired")
)

// purpose separates the token's signing key from the session cookie's.
const purpose = "token"

// A Codec mints and verifies the session tokens of one server. Tokens are
// bound to the server's name: a token minted for one server is refused by
// another, even under the same secret, and accepted by every replica of the
// same server. A Codec is safe for concurrent use.
type Codec struct {
	name   string
	codecs []securecookie.Codec
}

// NewCodec returns the Codec of the server called server, signing with keys
// (the first key signs, every key verifies). Tokens older than ttl are
// refused; a ttl of 0 means tokens do not expire. ttl is counted in whole
// seconds. NewCodec panics if keys is the zero Keys, a setup mistake.
func NewCodec(server string, keys Keys, ttl time.Duration) *Codec {
	if keys.IsZero() {
		panic("token: NewCodec with zero Keys")
	}
	return &Codec{name: "mcpdoor-token/" + server, codecs: keys.Codecs(purpose, ttl)}
}

// Mint returns a signed token carrying p.
func (c *Codec) Mint(p Payload) (string, error) {
	if p.SID == "" {
		return "", errors.New("token: mint: empty session id")
	}
	tok, err := securecookie.EncodeMulti(c.name, p, c.codecs...)
	if err != nil {
		return "", fmt.Errorf("token: mint: %w", err)
	}
	return tok, nil
}

// Verify checks tok's signature, server and age, and returns its payload.
// Every refusal wraps ErrInvalid (and ErrExpired when the token is too old),
// whatever the cause: a tampered, truncated or foreign token tells a client
// nothing more.
func (c *Codec) Verify(tok string) (Payload, error) {
	if tok == "" {
		return Payload{}, fmt.Errorf("%w: empty", ErrInvalid)
	}
	var p Payload
	if err := securecookie.DecodeMulti(c.name, tok, &p, c.codecs...); err != nil {
		if isExpired(err) {
			return Payload{}, fmt.Errorf("%w: %w", ErrInvalid, ErrExpired)
		}
		return Payload{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if p.SID == "" {
		return Payload{}, fmt.Errorf("%w: no session id", ErrInvalid)
	}
	return p, nil
}

// isExpired reports whether securecookie refused a value for its age. It
// says so only in an unexported error's text; DecodeMulti joins the errors of
// every key.
func isExpired(err error) bool {
	var multi securecookie.MultiError
	if errors.As(err, &multi) {
		for _, e := range multi {
			if isExpired(e) {
				return true
			}
		}
		return false
	}
	return err != nil && err.Error() == "securecookie: expired timestamp"
}
