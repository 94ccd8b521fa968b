package token

import (
	"errors"
	"fmt"
	"time"

	"github.com/gorilla/securecookie"

	"github.com/mcpdoor/mcpdoor/internal/keyring"
	"github.com/mcpdoor/mcpdoor/internal/sessionkey"
)

// Payload is what a session token carries: the rollout's session id, the
// tools it may call, and the rollout it was minted for.
type Payload struct {
	// SID is the session id that the token's calls run in: the same session
	// the HTTP door's cookie names.
	SID string `json:"sid"`
	// Tools is the allow-list: nil means every tool; an empty, non-nil list
	// means none.
	Tools []string `json:"tools"`
	// Rollout is the id of the NeMo Gym rollout the token was minted for:
	// that of the /ng-rollout/<id>/seed_session it was seeded under, or ""
	// for a seed without the prefix (and for a token minted before tokens
	// carried it). It is signed with the rest: unlike the prefix of a
	// request, a client cannot choose it.
	Rollout string `json:"rid,omitempty"`
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
// wraps ErrExpired. (The errors Verify returns start with "mcpdoor: ", as
// every error of mcpdoor does.)
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
	ttl    int64            // in whole seconds; 0: tokens do not expire
	now    func() time.Time // the clock that stamps and ages tokens; tests set it
}

// signed is what a token's signature covers: the payload's fields and the
// second it was minted at. The age is checked here, against the Codec's
// clock, rather than by securecookie, whose refusal of an old value can only
// be told from its other refusals by the text of an unexported error. (The
// fields are Payload's, not an embedded Payload, which decodes with one
// allocation more.)
type signed struct {
	SID     string   `json:"sid"`
	Tools   []string `json:"tools"`
	Rollout string   `json:"rid,omitempty"` // omitted when "": an unprefixed seed's token is no longer than it was
	// IssuedAt is when the token was minted, in Unix seconds.
	IssuedAt int64 `json:"iat"`
}

// NewCodec returns the Codec of the server called server, signing with keys
// (the first key signs, every key verifies). Tokens older than ttl are
// refused; a ttl of 0 means tokens do not expire. ttl is counted in whole
// seconds n (fractions dropped, at least one): a token minted in second s is
// refused from second s+n+1 on, so it lives between n and n+1 seconds.
// NewCodec panics if keys is the zero Keys or ttl is negative, setup
// mistakes.
func NewCodec(server string, keys Keys, ttl time.Duration) *Codec {
	if keyring.IsZero(keys) {
		panic("mcpdoor: token.NewCodec with zero Keys")
	}
	if ttl < 0 {
		panic(fmt.Sprintf("mcpdoor: token.NewCodec with a negative ttl (%v); 0 means untimed", ttl))
	}
	secs := int64(ttl / time.Second)
	if ttl > 0 && secs == 0 {
		secs = 1
	}
	// securecookie's own age check stays off (maxAge 0): Verify checks IssuedAt.
	return &Codec{name: "mcpdoor-token/" + server, codecs: keyring.Codecs(keys, purpose, 0), ttl: secs, now: time.Now}
}

// Mint returns a signed token carrying p and the time it was minted. Its
// wire form begins with p.SID in plain and a dot, "<sid>.<signed>", so
// that a load balancer can route on the session with no decoding (HAProxy:
// req.hdr(x-nemo-gym-session-token),field(1,.)). p.SID must be 1 to 64
// characters of A-Z, a-z, 0-9, '-' and '_', as mcpdoor's own ids are.
func (c *Codec) Mint(p Payload) (string, error) {
	if err := sessionkey.Check(p.SID); err != nil {
		return "", fmt.Errorf("mcpdoor: minting a session token: %w", err)
	}
	tok, err := securecookie.EncodeMulti(c.name, signed{SID: p.SID, Tools: p.Tools, Rollout: p.Rollout, IssuedAt: c.now().Unix()}, c.codecs...)
	if err != nil {
		return "", fmt.Errorf("mcpdoor: minting a session token: %w", err)
	}
	return sessionkey.Join(p.SID, tok), nil
}

// Verify checks tok's signature, server and age, and returns its payload.
// Every refusal wraps ErrInvalid (and ErrExpired when the token is too old),
// whatever the cause: a tampered, truncated or foreign token tells a client
// nothing more. A token minted in the future of this Codec's clock (another
// replica's clock runs ahead) is not refused for it. The plain session id
// in front must be the signed one; a token without it (the format of
// before tokens carried it) is refused.
func (c *Codec) Verify(tok string) (Payload, error) {
	if tok == "" {
		return Payload{}, fmt.Errorf("mcpdoor: %w: empty", ErrInvalid)
	}
	plain, tok, err := sessionkey.Split(tok)
	if err != nil {
		return Payload{}, fmt.Errorf("mcpdoor: %w: %w", ErrInvalid, err)
	}
	var s signed
	if err := securecookie.DecodeMulti(c.name, tok, &s, c.codecs...); err != nil {
		return Payload{}, fmt.Errorf("mcpdoor: %w: %v", ErrInvalid, err)
	}
	if s.SID == "" {
		return Payload{}, fmt.Errorf("mcpdoor: %w: no session id", ErrInvalid)
	}
	if err := sessionkey.Matches(plain, s.SID); err != nil {
		return Payload{}, fmt.Errorf("mcpdoor: %w: %w", ErrInvalid, err)
	}
	if s.IssuedAt <= 0 {
		return Payload{}, fmt.Errorf("mcpdoor: %w: no issue time", ErrInvalid)
	}
	if c.ttl > 0 && c.now().Unix()-s.IssuedAt > c.ttl {
		return Payload{}, fmt.Errorf("mcpdoor: %w: %w", ErrInvalid, ErrExpired)
	}
	return Payload{SID: s.SID, Tools: s.Tools, Rollout: s.Rollout}, nil
}
