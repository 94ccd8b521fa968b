package rollout

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	"github.com/mcpdoor/mcpdoor/internal/bodies"
	"github.com/mcpdoor/mcpdoor/internal/exposed"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/token"
)

// The routes of the contract.
const (
	SeedPath   = "/seed_session"
	VerifyPath = "/verify"
)

// Reserved are the route names of the contract, which are never tools while
// it is on: /seed_session, /verify, and NeMo Gym's /aggregate_metrics.
var Reserved = []string{"aggregate_metrics", "seed_session", "verify"}

// Params are what the door tells a Contract of the server it serves.
type Params struct {
	// Server is the MCP server's name: the <server> of mcp__<server>__<tool>
	// and the name a token is bound to.
	Server string
	// Path is the MCP endpoint's path, for the metadata.
	Path string
	// Sessions is the server's session manager; its keys sign the tokens.
	Sessions *sessions.Manager
	// MaxHeldBytes caps the /seed_session response held back to add the
	// metadata to (mcp.max_body_bytes): a longer one goes out as the
	// handler wrote it, without a token. Default 4 MiB. The request body
	// has its own cap, Config.MaxSeedBytes.
	MaxHeldBytes int64
	// Bodies is how the request bodies of /seed_session and /verify are
	// read: within the server's budget and deadline. Nil: with neither.
	Bodies *bodies.Policy
	// Logger receives what goes wrong: a failed AllowedTools hook, a seed
	// response that gets no token, a /verify body that cannot be rewritten.
	// Default slog.Default().
	Logger *slog.Logger
}

// defaultMaxHeldBytes is the default of Params.MaxHeldBytes, the default
// of mcp.max_body_bytes.
const defaultMaxHeldBytes = 4 << 20

// A Contract is the rollout contract of one server. It is safe for
// concurrent use.
type Contract struct {
	server, path string
	header       string
	codec        *token.Codec
	sessions     *sessions.Manager
	allowedTools func([]byte) ([]string, error)
	tokenless    bool
	maxSeed      int64 // the request body
	maxHeld      int64 // the response held back
	maxVerify    int64
	bodies       *bodies.Policy
	log          *slog.Logger
	tools        *exposed.Tools // the server's tools, once Expose has named them
	names        []string       // their names, sorted
	reverify     string         // what GET /reverify_mode answers
	claims       string         // mcp.rollout.claims
	maxLedger    int            // the records a session's ledger keeps
	receiptKeys  [][]byte       // the receipts' MAC keys, the signing one first
}

// New returns the contract that cfg configures for the server p describes.
// It panics when p has no Sessions, a setup mistake.
func New(cfg Config, p Params) *Contract {
	if p.Sessions == nil {
		panic("mcpdoor: rollout.New with nil Params.Sessions")
	}
	if p.MaxHeldBytes <= 0 {
		p.MaxHeldBytes = defaultMaxHeldBytes
	}
	if p.Logger == nil {
		p.Logger = slog.Default()
	}
	return &Contract{
		server:       p.Server,
		path:         p.Path,
		header:       cfg.tokenHeader(),
		codec:        token.NewCodec(p.Server, p.Sessions.Keys(), cfg.TokenTTL),
		sessions:     p.Sessions,
		allowedTools: cfg.AllowedTools,
		tokenless:    cfg.AllowTokenless,
		maxSeed:      cfg.maxSeedBytes(),
		maxHeld:      p.MaxHeldBytes,
		maxVerify:    cfg.MaxVerifyBytes, // 0: verifywrap's default
		bodies:       p.Bodies,
		log:          p.Logger,
		reverify:     cfg.reverifyMode(),
		claims:       cfg.claims(),
		maxLedger:    cfg.maxLedger(),
		receiptKeys:  receiptKeys(p.Sessions.Keys()),
	}
}

// Expose names the server's tools, for Verify: call it once, before the
// contract serves a request.
func (c *Contract) Expose(names []string) {
	c.tools = exposed.NewTools(names)
	c.names = slices.Sorted(slices.Values(names))
}

// toolNames returns the tools a token listing allowed may call (nil:
// every tool), sorted; nil before Expose.
func (c *Contract) toolNames(allowed []string) []string {
	if allowed == nil {
		return c.names
	}
	var names []string
	for _, n := range c.names {
		if slices.Contains(allowed, n) {
			names = append(names, n)
		}
	}
	return names
}

// TokenHeader returns the header that carries the session token.
func (c *Contract) TokenHeader() string { return c.header }

// Codes of the refusals Admit returns, as in an isError result's
// {"error": {"code": ...}}.
const (
	CodeMissingToken    = "missing_token"
	CodeInvalidToken    = "invalid_token"
	CodeToolNotAllowed  = "tool_not_allowed"
	CodeRolloutMismatch = "rollout_mismatch"
)

// A Refusal is why the contract refuses a tool call.
type Refusal struct {
	// Code is one of CodeMissingToken, CodeInvalidToken,
	// CodeToolNotAllowed and CodeRolloutMismatch.
	Code string
	// Text is what the model is told, as newest NeMo Gym words it:
	// "Missing X-NeMo-Gym-Session-Token for Gym MCP tool call.",
	// "Invalid Gym MCP session token.", "Tool 'x' is not allowed for this
	// session."; and, for a call under another rollout's prefix (which
	// NeMo Gym does not check), "MCP session token belongs to another
	// rollout."
	Text string
	// Message says why, for a program.
	Message string
	// Status is the HTTP status of the refusal: 401 or 403.
	Status int
}

func (r *Refusal) Error() string { return r.Text }

// Admit checks a tool call's session token, sent in header, for the tool
// called name: present (unless Config.AllowTokenless), valid for this
// server, unexpired, listing the tool, and, for a call that came under
// /ng-rollout/<rolloutID>/ (rolloutID "" for none), minted for that
// rollout. It returns the token's payload — the session the call runs in,
// and the rollout it runs for — or the zero Payload for a tokenless call
// that may go on, or a *Refusal. The token is verified on every call, with
// no cache.
func (c *Contract) Admit(header http.Header, name, rolloutID string) (token.Payload, error) {
	p, sent, err := c.token(header)
	if !sent {
		if c.tokenless {
			return token.Payload{}, nil
		}
		return token.Payload{}, &Refusal{
			Code:    CodeMissingToken,
			Text:    fmt.Sprintf("Missing %s for Gym MCP tool call.", c.header),
			Message: "no session token",
			Status:  http.StatusUnauthorized,
		}
	}
	if err != nil {
		return token.Payload{}, invalidToken(err)
	}
	if rolloutID != "" && p.Rollout != rolloutID {
		// The path is the client's to choose, the token's rollout is not:
		// a call never runs as a rollout its token was not minted for.
		minted := fmt.Sprintf("under rollout %q", p.Rollout)
		if p.Rollout == "" {
			minted = "without a rollout prefix"
		}
		return token.Payload{}, &Refusal{
			Code:    CodeRolloutMismatch,
			Text:    "MCP session token belongs to another rollout.",
			Message: fmt.Sprintf("the session token was minted %s, and the call came under %s%s/", minted, prefix, rolloutID),
			Status:  http.StatusForbidden,
		}
	}
	if !p.Allows(name) {
		return token.Payload{}, &Refusal{
			Code:    CodeToolNotAllowed,
			Text:    fmt.Sprintf("Tool '%s' is not allowed for this session.", name),
			Message: "the session token does not list this tool",
			Status:  http.StatusForbidden,
		}
	}
	return p, nil
}

// Visible returns which tools a listing sent with header may show (the
// tools/list result, the catalog, the unknown-tool error's list): every
// tool (a nil func) without a token, or with a valid token without an
// allow-list; with a valid token's list, a func reporting whether a tool is
// on it. A token that is sent but does not verify (a bad signature,
// another server's, expired) sees no tool: Visible returns the *Refusal
// (CodeInvalidToken) a tool call with it gets, for the listing to answer
// with instead.
func (c *Contract) Visible(header http.Header) (func(name string) bool, error) {
	p, sent, err := c.token(header)
	switch {
	case !sent:
		return nil, nil
	case err != nil:
		return nil, invalidToken(err)
	case p.Tools == nil:
		return nil, nil
	}
	return p.Allows, nil
}

// invalidToken is the refusal of a token that was sent but does not verify,
// err saying why.
func invalidToken(err error) *Refusal {
	msg := "the session token is not valid for this server"
	if errors.Is(err, token.ErrExpired) {
		msg = "the session token has expired"
	}
	return &Refusal{Code: CodeInvalidToken, Text: "Invalid Gym MCP session token.", Message: msg, Status: http.StatusUnauthorized}
}

// Session returns the session the token in header names, for telling who a
// request comes from: ok is false when header carries no token, and sid is
// "" when it carries one that does not verify.
func (c *Contract) Session(header http.Header) (sid string, ok bool) {
	p, sent, err := c.token(header)
	if !sent {
		return "", false
	}
	if err != nil {
		return "", true
	}
	return p.SID, true
}

// token verifies the session token sent in header: sent is false when
// header carries none, and err is why one that is sent does not verify.
func (c *Contract) token(header http.Header) (p token.Payload, sent bool, err error) {
	raw := header.Get(c.header)
	if raw == "" {
		return token.Payload{}, false, nil
	}
	p, err = c.codec.Verify(raw)
	return p, true, err
}

// Decide says whether the contract is on for a router that serves
// /seed_session (seed) and /verify (verify) as POST routes: on when it
// serves both, unless cfg disables it. A router that serves one of the two
// alone, or none while cfg sets anything, is a mistake, and the error says
// what to add or remove.
func Decide(cfg Config, seed, verify bool) (bool, error) {
	switch {
	case cfg.Disable:
		others := cfg
		others.Disable = false
		if !others.IsZero() {
			return false, fmt.Errorf("mcpdoor: mcp.rollout.disable is true, so the other mcp.rollout settings do nothing; fix: remove them, or remove disable")
		}
		return false, nil
	case seed && verify:
		return true, nil
	case seed || verify:
		have, missing, why := SeedPath, VerifyPath, "its tool-call names are normalized for scoring"
		if verify {
			have, missing, why = VerifyPath, SeedPath, "its response carries the MCP session token to the agent"
		}
		return false, fmt.Errorf("mcpdoor: the router serves POST %s but not POST %s, so NeMo Gym's rollout contract is half there "+
			"(POST %s: %s); fix: add POST %s, or set mcp.rollout.disable: true to serve POST %s as a plain route",
			have, missing, missing, why, missing, have)
	case !cfg.IsZero():
		return false, fmt.Errorf("mcpdoor: mcp.rollout is configured, but the router serves neither POST %s nor POST %s, "+
			"the routes of NeMo Gym's rollout contract; fix: add both routes, or remove the mcp.rollout settings", SeedPath, VerifyPath)
	}
	return false, nil
}
