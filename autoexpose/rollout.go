package autoexpose

import (
	"net/http"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/rollout"
)

// Rollout is the mcp.rollout block: NeMo Gym's rollout contract. Every
// field is optional; the zero Rollout is the contract as NeMo Gym's agents
// expect it.
type Rollout struct {
	// Disable keeps the contract off even though the router serves
	// POST /seed_session and POST /verify: they are then plain routes (and
	// tools). Default false: the contract is on exactly when the router
	// serves both routes. Setting it beside another field is an Install
	// error: they would do nothing.
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
	// MaxSeedBytes caps a /seed_session request body, the whole dataset
	// row NeMo Gym's agents post (inline images included); a longer one
	// gets 413 naming this key. Default 256 MiB. The body is held in memory
	// whole, for the AllowedTools hook and the handler.
	MaxSeedBytes int64 `yaml:"max_seed_bytes"`
	// MaxVerifyBytes caps a /verify request body, a whole trajectory; a
	// longer one gets 413 naming this key. Default 1 GiB
	// (verifywrap.DefaultMaxBodyBytes). The body is held once, about its
	// size in memory, and the handler reads the normalized copy as a
	// stream from it.
	MaxVerifyBytes int64 `yaml:"max_verify_bytes"`
	// ReverifyMode is what GET /reverify_mode answers gym eval reverify:
	// "stateless" (the verifier is a pure function of the /verify body and
	// the config), "unsupported" (it reads state seeded at /seed_session)
	// or "unknown". Default "unknown", NeMo Gym's: mcpdoor cannot see into
	// the verifier, so only the server may declare it stateless.
	ReverifyMode string `yaml:"reverify_mode"`
	// Claims is what /verify does with a claimed call of one of the
	// server's tools that the session's ledger (or, with no live session,
	// a receipt) does not bear out — never executed, executed with other
	// arguments, or claimed twice: "refuse" answers 422 and the verifier
	// does not run; "mark" names it as emitted and lists it under the body's
	// mcp_tool_call_rejections; "off" checks nothing and keeps no ledger.
	// Default "refuse" (docs/rollout.md).
	Claims string `yaml:"claims"`
	// MaxLedger bounds a session's ledger, the record of each tool call it
	// ran: the newest are kept. Default 4096.
	MaxLedger int `yaml:"max_ledger"`

	// AllowedTools decides a rollout's allow-list from the raw JSON body
	// posted to /seed_session: the tools its token may list and call. nil
	// (the hook, or the list it returns) means every tool. An error fails the
	// seed request (HTTP 500) and no token is minted.
	AllowedTools func(seedBody []byte) ([]string, error) `yaml:"-"`
}

// contract is the block as the contract's implementation takes it: the
// one place the two are converted.
func (r *Rollout) contract() rollout.Config {
	return rollout.Config{
		Disable:        r.Disable,
		AllowTokenless: r.AllowTokenless,
		TokenHeader:    r.TokenHeader,
		TokenTTL:       r.TokenTTL,
		MaxSeedBytes:   r.MaxSeedBytes,
		MaxVerifyBytes: r.MaxVerifyBytes,
		ReverifyMode:   r.ReverifyMode,
		Claims:         r.Claims,
		MaxLedger:      r.MaxLedger,
		AllowedTools:   r.AllowedTools,
	}
}

// RolloutID returns the rollout id of a request: for a tool call made with
// a session token, the rollout the token was minted for (the id of the
// /ng-rollout/<id>/seed_session it was seeded under), whether or not the
// call came under the prefix, as NeMo Gym's tool calls do not; for any
// other request, the id of the /ng-rollout/<id>/ prefix it came under, or
// "".
//
// Only the first is authenticated. On a request without a token — a route
// over HTTP, /verify posted with the seed's cookie, a tokenless tool call —
// the id is the client's choice, a correlation id for logs and metrics:
// never use it for authorization, and never to find a rollout's state.
// The session (package session, the token's or the cookie's) is what is
// authenticated; keep a rollout's state in it.
//
// The Door strips the prefix before any of the server's code runs (see
// Door.ServeHTTP), so that /ng-rollout/<id>/<path> is served exactly as
// /<path>, with every check the server makes on /<path>. A path whose id is
// outside NeMo Gym's pattern (letters, digits, dots, dashes, underscores,
// starting with a letter or digit) is not a rollout path and is routed as
// it is.
func RolloutID(r *http.Request) string { return rollout.ID(r) }
