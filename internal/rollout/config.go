package rollout

import (
	"errors"
	"fmt"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/header"
)

// DefaultTokenHeader is the header that carries a rollout's session token,
// as NeMo Gym's claude_code_agent sends it.
const DefaultTokenHeader = "X-NeMo-Gym-Session-Token"

// Config is the contract's configuration: the mcp.rollout block of a
// server's config (autoexpose.Rollout, which converts to it in one place).
// Every field is optional; the zero Config is the contract as NeMo Gym's
// agents expect it. Its field docs are autoexpose.Rollout's.
type Config struct {
	Disable        bool          // keep the contract off
	AllowTokenless bool          // let a tool call without a token through
	TokenHeader    string        // the token's header; "" is DefaultTokenHeader
	TokenTTL       time.Duration // a token's lifetime; 0 is untimed
	MaxSeedBytes   int64         // the cap on a /seed_session body; 0 is DefaultMaxSeedBytes
	MaxVerifyBytes int64         // the cap on a /verify body; 0 is verifywrap's default
	// AllowedTools decides a rollout's allow-list from its seed body.
	AllowedTools func(seedBody []byte) ([]string, error)
}

// IsZero reports whether c sets nothing.
func (c *Config) IsZero() bool {
	return !c.Disable && !c.AllowTokenless && c.TokenHeader == "" && c.TokenTTL == 0 && c.MaxSeedBytes == 0 && c.MaxVerifyBytes == 0 && c.AllowedTools == nil
}

// Validate reports every invalid setting, each naming its key under
// mcp.rollout.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("mcpdoor: config: mcp.rollout.%s: "+format, append([]any{key}, args...)...))
	}
	if c.TokenHeader != "" && !header.ValidName(c.TokenHeader) {
		bad("token_header", "%q is not a header name", c.TokenHeader)
	}
	switch ttl := c.TokenTTL; {
	case ttl < 0:
		bad("token_ttl", "%v is negative", ttl)
	case ttl > 0 && ttl < time.Second:
		bad("token_ttl", "%v is under a second, the resolution of token timestamps", ttl)
	}
	if c.MaxSeedBytes < 0 {
		bad("max_seed_bytes", "%d is negative", c.MaxSeedBytes)
	}
	if c.MaxVerifyBytes < 0 {
		bad("max_verify_bytes", "%d is negative", c.MaxVerifyBytes)
	}
	return errors.Join(errs...)
}

// DefaultMaxSeedBytes is the default cap on a /seed_session request body
// (mcp.rollout.max_seed_bytes): 256 MiB. NeMo Gym sets none, and its agents
// post the whole dataset row, inline images included; the body is held in
// memory whole (the AllowedTools hook and the handler read it), so the cap
// bounds what one request can make the server hold.
const DefaultMaxSeedBytes = 256 << 20

func (c *Config) maxSeedBytes() int64 {
	if c.MaxSeedBytes == 0 {
		return DefaultMaxSeedBytes
	}
	return c.MaxSeedBytes
}

func (c *Config) tokenHeader() string {
	if c.TokenHeader == "" {
		return DefaultTokenHeader
	}
	return c.TokenHeader
}
