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
	ReverifyMode   string        // what GET /reverify_mode answers; "" is ReverifyUnknown
	Claims         string        // how /verify treats a claim the ledger does not bear out; "" is ClaimsRefuse
	MaxLedger      int           // the records a session's ledger keeps; 0 is DefaultMaxLedger
	// AllowedTools decides a rollout's allow-list from its seed body.
	AllowedTools func(seedBody []byte) ([]string, error)
}

// IsZero reports whether c sets nothing.
func (c *Config) IsZero() bool {
	return !c.Disable && !c.AllowTokenless && c.TokenHeader == "" && c.TokenTTL == 0 && c.MaxSeedBytes == 0 && c.MaxVerifyBytes == 0 && c.AllowedTools == nil &&
		c.ReverifyMode == "" && c.Claims == "" && c.MaxLedger == 0
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
	switch c.ReverifyMode {
	case "", ReverifyStateless, ReverifyUnsupported, ReverifyUnknown:
	default:
		bad("reverify_mode", "%q is not a mode; use %q, %q or %q", c.ReverifyMode, ReverifyStateless, ReverifyUnsupported, ReverifyUnknown)
	}
	switch c.Claims {
	case "", ClaimsRefuse, ClaimsMark, ClaimsOff:
	default:
		bad("claims", "%q is not a choice; use %q, %q or %q", c.Claims, ClaimsRefuse, ClaimsMark, ClaimsOff)
	}
	if c.MaxLedger < 0 {
		bad("max_ledger", "%d is negative", c.MaxLedger)
	}
	return errors.Join(errs...)
}

// The modes GET /reverify_mode answers, as NeMo Gym's ReverifyMode.
const (
	// ReverifyStateless: the verifier is a pure function of the /verify
	// body and the server's config, so re-verifying a stored rollout is
	// safe.
	ReverifyStateless = "stateless"
	// ReverifyUnsupported: the verifier reads per-rollout state seeded at
	// /seed_session, gone once the rollout has ended.
	ReverifyUnsupported = "unsupported"
	// ReverifyUnknown: the server has not declared which; NeMo Gym's
	// default, and mcpdoor's, which cannot see into a verifier.
	ReverifyUnknown = "unknown"
)

// The choices of mcp.rollout.claims: what /verify does with a claimed tool
// call that neither the session's ledger nor a receipt bears out.
const (
	// ClaimsRefuse refuses the whole trajectory (422); the verifier does
	// not run. The default.
	ClaimsRefuse = "refuse"
	// ClaimsMark hands the verifier the trajectory with each failed claim
	// named as the agent emitted it and listed under RejectionsKey.
	ClaimsMark = "mark"
	// ClaimsOff checks nothing and keeps no ledger: /verify passes claims
	// on as it did before the checks.
	ClaimsOff = "off"
)

// DefaultMaxLedger is the default of mcp.rollout.max_ledger: the records
// a session's ledger keeps, the newest, one per tool call. Four times the
// thousand calls of a long rollout, at a few hundred bytes each.
const DefaultMaxLedger = 4096

func (c *Config) claims() string {
	if c.Claims == "" {
		return ClaimsRefuse
	}
	return c.Claims
}

func (c *Config) reverifyMode() string {
	if c.ReverifyMode == "" {
		return ReverifyUnknown
	}
	return c.ReverifyMode
}

func (c *Config) maxLedger() int {
	if c.MaxLedger == 0 {
		return DefaultMaxLedger
	}
	return c.MaxLedger
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
