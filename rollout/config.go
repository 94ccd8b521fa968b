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

// Config is the mcp.rollout block of a server's config. Every field is
// optional; the zero Config is the contract as NeMo Gym's agents expect it.
type Config struct {
	// Disable keeps the contract off even though the router serves
	// POST /seed_session and POST /verify: they are then plain routes (and
	// tools). Default false: the contract is on exactly when the router
	// serves both routes.
	Disable bool `yaml:"disable"`
	// AllowTokenless lets a tool call without a session token through, for
	// local use (Claude Code after "claude mcp add"): it runs in the
	// client's cookie session, or the door's local session. A token that is
	// sent is still checked. Default false: every call needs a token.
	AllowTokenless bool `yaml:"allow_tokenless"`
	// TokenHeader is the header that carries the session token. Default
	// X-NeMo-Gym-Session-Token.
	TokenHeader string `yaml:"token_header"`
	// TokenTTL bounds a token's age, in whole seconds. Default 0: tokens do
	// not expire, as NeMo Gym's.
	TokenTTL time.Duration `yaml:"token_ttl"`
	// MaxVerifyBytes caps a /verify request body, a whole trajectory; a
	// longer one gets 413 naming this key. Default 64 MiB
	// (verifywrap.DefaultMaxBodyBytes).
	MaxVerifyBytes int64 `yaml:"max_verify_bytes"`

	// AllowedTools decides a rollout's allow-list from the raw JSON body
	// posted to /seed_session: the tools its token may list and call. nil
	// (the hook, or the list it returns) means every tool. An error fails the
	// seed request (HTTP 500) and no token is minted.
	AllowedTools func(seedBody []byte) ([]string, error) `yaml:"-"`
}

// IsZero reports whether c sets nothing.
func (c *Config) IsZero() bool {
	return !c.Disable && !c.AllowTokenless && c.TokenHeader == "" && c.TokenTTL == 0 && c.MaxVerifyBytes == 0 && c.AllowedTools == nil
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
	if c.MaxVerifyBytes < 0 {
		bad("max_verify_bytes", "%d is negative", c.MaxVerifyBytes)
	}
	return errors.Join(errs...)
}

func (c *Config) tokenHeader() string {
	if c.TokenHeader == "" {
		return DefaultTokenHeader
	}
	return c.TokenHeader
}
