package autoexpose

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/typeschema"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/verifywrap"
)

// DefaultTokenHeader is the header that carries a rollout's session token,
// as NeMo Gym's claude_code_agent sends it.
const DefaultTokenHeader = "X-NeMo-Gym-Session-Token"

// Defaults of the mcp block.
const (
	DefaultPath         = "/mcp"
	DefaultIdleTimeout  = 600 * time.Second
	DefaultMaxBodyBytes = 4 << 20
	// DefaultMaxVerifyBytes is the /verify body limit: room for a long
	// rollout's trajectory (NeMo Gym itself sets none).
	DefaultMaxVerifyBytes = verifywrap.DefaultMaxBodyBytes
)

// Config is one server's mcpdoor configuration: the YAML block described in
// the package documentation, plus hooks that only Go can express.
//
// The zero Config leaves the router untouched (expose_tools_over_mcp is
// false). Config can be embedded inline in a server's own config struct:
//
//	type ServerConfig struct {
//		autoexpose.Config `yaml:",inline"`
//		Port int `yaml:"port"`
//	}
type Config struct {
	// Name is the server name: the MCP server's name, and the <name> in the
	// mcp__<name>__<tool> names that /verify normalizes.
	Name string `yaml:"name"`
	// ExposeToolsOverMCP is the opt-in. False (the default) changes nothing.
	ExposeToolsOverMCP bool `yaml:"expose_tools_over_mcp"`
	// MCP holds every other setting; all optional.
	MCP MCPConfig `yaml:"mcp"`

	// Sessions is the session manager whose middleware the router uses.
	// Dispatch puts a tool call in the session its token names, the way that
	// middleware would. Set it with UseSessions, or leave it nil for a server
	// without sessions.
	Sessions *session.Manager `yaml:"-"`
	// Declared gives tools' descriptions and schemas in code, by tool name,
	// without touching their handlers. A declaration wins over what the
	// handler carries.
	Declared map[string]Declaration `yaml:"-"`
	// Tools decides the exposed tools from the harvested ones: return
	// harvested as it is (what a nil hook does), drop tools (a harness-only
	// route stays HTTP-only: never advertised, never callable over MCP, never
	// shape-checked), change their descriptions, schemas or annotations, or
	// append tools that the router's catch-all dispatcher serves, made with
	// catchall.Tool. catchall is nil when the router has no POST /{tool}
	// route. Install checks the result: names, reserved names (mcp.path's
	// too), duplicates, and catch-all tools named like another route.
	Tools func(harvested []Tool, catchall *CatchAll) []Tool `yaml:"-"`
	// AllowedTools decides a rollout's allow-list from the raw JSON body
	// posted to /seed_session: the tools its token may list and call. nil
	// (the hook, or the list it returns) means every tool. An error fails
	// the seed request (HTTP 500) and no token is minted.
	AllowedTools func(seedBody []byte) ([]string, error) `yaml:"-"`
	// Logger receives the startup report and runtime errors (handler panics).
	// Default slog.Default().
	Logger *slog.Logger `yaml:"-"`
	// OpenAPI is an OpenAPI 3.0 or 3.1 document describing the router's
	// routes, JSON or YAML: the bytes a server already embeds or serves
	// (huma's /openapi.yaml, oapi-codegen's GetSwagger marshaled). A tool
	// route POST /<name> whose operation it describes takes from the
	// operation its input schema (the JSON request body's, $refs resolved),
	// description (summary and description) and annotations (x-mcp-read-only,
	// x-mcp-destructive, x-mcp-idempotent, x-mcp-open-world, x-mcp-title)
	// where neither a declaration nor a typed handler gives them; an
	// operation marked x-mcp-exclude: true keeps its route off MCP. $refs must
	// point into the document. A malformed document fails Install. Set this
	// or mcp.openapi, not both.
	OpenAPI []byte `yaml:"-"`
	// Outer is the handler the server serves, when that handler wraps the
	// router: http.ListenAndServe(addr, outer(r)) has Outer: outer(r). Every
	// tool call then replays through it (with the forwarded headers, see
	// mcp.forward_headers), so a check it makes — auth, an allow-list —
	// holds over MCP as over HTTP; a direct call would skip it, so no tool
	// goes direct, and mcp.dispatch direct or strict cannot go with it.
	// Without Outer, mcpdoor sees the router only: its routes and their
	// middlewares.
	Outer http.Handler `yaml:"-"`
}

// MCPConfig is the mcp block of a server's config. Every field is optional;
// the doc comment of each gives its default.
type MCPConfig struct {
	// Path is where the MCP endpoint is mounted (also at Path + "/").
	// Default "/mcp".
	Path string `yaml:"path"`
	// Tools narrows the MCP tool list to these names; a name matches a tool
	// in full or by its suffix after "__". Empty: every tool. HTTP routes are
	// never affected.
	Tools []string `yaml:"tools"`
	// Exclude removes these tools from MCP (matched like Tools). The routes
	// keep working over HTTP.
	Exclude []string `yaml:"exclude"`
	// Dispatch is auto, direct, replay or strict (see detector.Mode).
	// Default auto.
	Dispatch string `yaml:"dispatch"`
	// TransparentMiddleware lists middleware function names (as the startup
	// report prints them) that a direct call may skip.
	TransparentMiddleware []string `yaml:"transparent_middleware"`
	// ForwardHeaders are copied from the MCP request to every dispatched
	// request. Default [Authorization]; an explicit empty list forwards none.
	ForwardHeaders []string `yaml:"forward_headers"`
	// SessionSecret signs session tokens and cookies: one secret, or a list
	// whose first entry signs and whose every entry verifies (rotation).
	// Each at least 32 bytes.
	SessionSecret Secrets `yaml:"session_secret"`
	// SessionSecretEnv names an environment variable holding the secret(s),
	// comma-separated. When neither is set, a random per-process secret is
	// made and the startup log says so.
	SessionSecretEnv string `yaml:"session_secret_env"`
	// TokenTTL bounds a session token's age. Default 0: untimed.
	TokenTTL time.Duration `yaml:"token_ttl"`
	// TokenHeader is the header that carries the session token. Default
	// X-NeMo-Gym-Session-Token.
	TokenHeader string `yaml:"token_header"`
	// Rollout says the server follows the rollout contract (/seed_session
	// and /verify). Default true; false for a plain API.
	Rollout *bool `yaml:"rollout"`
	// RequireToken refuses tool calls without a session token. Default:
	// true for a rollout server, false for a plain API (which has no
	// /seed_session to hand out tokens) and for ServeStdio (which carries
	// no header for one).
	RequireToken *bool `yaml:"require_token"`
	// Stateful serves sessions with Mcp-Session-Id, as many as clients
	// open. Default false: stateless, where any replica with the same secret
	// serves any call.
	Stateful bool `yaml:"stateful"`
	// Exclusive allows at most one live MCP session (implies Stateful), for
	// an environment that holds one agent's state: while it is live, a
	// client of another rollout that opens a session gets HTTP 409 with a
	// JSON-RPC error saying when to retry, and a client of the same rollout
	// (the same token, or session cookie) takes the session over unless one
	// of its calls is running. The session ends, and frees the server, on
	// its client's DELETE, after IdleTimeout, or with Door.Close.
	Exclusive bool `yaml:"exclusive"`
	// IdleTimeout ends a stateful session that has had no request for this
	// long (a call in flight is not idleness). Default 600s.
	IdleTimeout time.Duration `yaml:"idle_timeout"`
	// AllowedOrigins are the browser Origins accepted on the MCP endpoint
	// besides the server's own, as scheme://host[:port] ("null" for opaque
	// origins). A request with any other Origin gets 403.
	AllowedOrigins []string `yaml:"allowed_origins"`
	// AllowedHosts are the Host names (or name:port) accepted on a loopback
	// listener besides localhost and loopback IPs; any other Host gets 403
	// there (DNS rebinding protection). Listeners on other addresses accept
	// any Host.
	AllowedHosts []string `yaml:"allowed_hosts"`
	// RateLimit limits calls per session. Default off.
	RateLimit RateLimit `yaml:"rate_limit"`
	// CallTimeout bounds one tool call. Default 0: none.
	CallTimeout time.Duration `yaml:"call_timeout"`
	// MaxBodyBytes caps an MCP request body, and the response captured from a
	// dispatched handler. Default 4 MiB.
	MaxBodyBytes int64 `yaml:"max_body_bytes"`
	// MaxVerifyBytes caps a /verify request body, a whole trajectory; a
	// longer one gets 413 naming this key. Default 64 MiB.
	MaxVerifyBytes int64 `yaml:"max_verify_bytes"`
	// Degrade is fail (Install returns the error) or http-only (the server
	// runs without the MCP endpoint, and the log says why). Default fail.
	Degrade string `yaml:"degrade"`
	// Annotations set tools' MCP annotations by tool name, over what the
	// code says: {get_weather: {read_only: true, open_world: false}}.
	Annotations map[string]Annotations `yaml:"annotations"`
	// OpenAPI is the path of an OpenAPI document to read at Install (see
	// Config.OpenAPI). LoadConfig makes a relative path relative to the
	// config file's directory; otherwise it is relative to the working
	// directory.
	OpenAPI string `yaml:"openapi"`
}

// RateLimit is the per-session call rate.
type RateLimit struct {
	// PerSession is the sustained rate, in calls per second; 0 is off.
	PerSession float64 `yaml:"per_session"`
	// Burst is the number of calls allowed at once. Default: PerSession
	// rounded up.
	Burst int `yaml:"burst"`
}

// A Declaration describes a tool in code: what its handler does not carry.
type Declaration struct {
	Description string
	// Input is the tool's input schema; it must have type "object". Use
	// SchemaFor to derive one from a Go type.
	Input *jsonschema.Schema
	// Output is the tool's output schema, advertised when it has type
	// "object".
	Output *jsonschema.Schema
	// Annotations are the tool's MCP annotations.
	Annotations *mcp.ToolAnnotations
}

// SchemaFor returns the JSON schema of the arguments a T is decoded from,
// as the MCP SDK derives it (json and jsonschema struct tags), except that a
// slice is an "array" and never null unless it is behind a pointer: a
// required []string field requires an array, and *[]string also admits
// null. As an output schema it is too strict for a value holding a nil
// slice, which encoding/json writes as null. It panics if T has no schema
// (a channel, a func), a setup mistake.
func SchemaFor[T any]() *jsonschema.Schema {
	s, err := typeschema.Input[T]()
	if err != nil {
		panic(fmt.Sprintf("autoexpose: SchemaFor[%s]: %v", reflect.TypeFor[T](), err))
	}
	return s
}

// Bool returns a pointer to b, for the optional booleans of MCPConfig.
func Bool(b bool) *bool { return &b }

var serverNameRule = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Validate reports every invalid setting of an enabled config, each naming
// its key. A disabled config is always valid: it changes nothing.
func (c *Config) Validate() error {
	if !c.ExposeToolsOverMCP {
		return nil
	}
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("autoexpose: config: %s: "+format, append([]any{key}, args...)...))
	}
	m := &c.MCP
	switch {
	case c.Name == "":
		bad("name", "is required when expose_tools_over_mcp is true (it names the MCP server and the mcp__<name>__ prefix)")
	case !serverNameRule.MatchString(c.Name):
		bad("name", "%q does not match %s", c.Name, serverNameRule)
	}
	if m.Path != "" && (!strings.HasPrefix(m.Path, "/") || m.Path == "/" || strings.HasSuffix(m.Path, "/")) {
		bad("mcp.path", "%q must start with / and not end with /", m.Path)
	}
	if mode, err := detector.ParseMode(m.Dispatch); err != nil {
		bad("mcp.dispatch", "%v", err)
	} else if c.Outer != nil && (mode == detector.ForceDirect || mode == detector.Strict) {
		bad("mcp.dispatch", "%s cannot go with Config.Outer, through which every call replays; use auto or replay", mode)
	}
	for _, h := range m.ForwardHeaders {
		if !validHeaderName(h) {
			bad("mcp.forward_headers", "%q is not a header name", h)
		}
	}
	if m.TokenHeader != "" && !validHeaderName(m.TokenHeader) {
		bad("mcp.token_header", "%q is not a header name", m.TokenHeader)
	}
	if len(m.SessionSecret) > 0 && m.SessionSecretEnv != "" {
		bad("mcp.session_secret", "set session_secret or session_secret_env, not both")
	}
	for key, d := range map[string]time.Duration{"mcp.token_ttl": m.TokenTTL, "mcp.idle_timeout": m.IdleTimeout, "mcp.call_timeout": m.CallTimeout} {
		if d < 0 {
			bad(key, "%v is negative", d)
		} else if d > 0 && d < time.Millisecond {
			bad(key, "%v is under a millisecond; write a unit, such as 600s", d)
		}
	}
	if m.TokenTTL > 0 && m.TokenTTL < time.Second {
		bad("mcp.token_ttl", "%v is under a second, the resolution of token timestamps", m.TokenTTL)
	}
	if m.MaxBodyBytes < 0 {
		bad("mcp.max_body_bytes", "%d is negative", m.MaxBodyBytes)
	}
	if m.MaxVerifyBytes < 0 {
		bad("mcp.max_verify_bytes", "%d is negative", m.MaxVerifyBytes)
	}
	switch rl := m.RateLimit; {
	case rl.PerSession < 0:
		bad("mcp.rate_limit.per_session", "%v is negative", rl.PerSession)
	case math.IsInf(rl.PerSession, 0) || math.IsNaN(rl.PerSession):
		bad("mcp.rate_limit.per_session", "%v is not a number of calls per second; 0 turns the limit off", rl.PerSession)
	case rl.PerSession == 0 && rl.Burst != 0:
		bad("mcp.rate_limit.burst", "is set but per_session is not; set per_session (calls per second) to limit calls")
	}
	if m.RateLimit.Burst < 0 {
		bad("mcp.rate_limit.burst", "%d is negative", m.RateLimit.Burst)
	}
	switch m.Degrade {
	case "", "fail", "http-only":
	default:
		bad("mcp.degrade", "%q is not fail or http-only", m.Degrade)
	}
	if c.OpenAPI != nil && m.OpenAPI != "" {
		bad("mcp.openapi", "set mcp.openapi or Config.OpenAPI, not both")
	}
	m.validateGuard(bad)
	for name, d := range c.Declared {
		if d.Input != nil && d.Input.Type != "object" {
			bad("Declared["+name+"].Input", "type is %q; a tool's input schema must have type \"object\"", d.Input.Type)
		}
	}
	return errors.Join(errs...)
}

func validHeaderName(h string) bool {
	return h != "" && strings.IndexFunc(h, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	}) < 0
}

// path returns the MCP endpoint's path.
func (m *MCPConfig) path() string {
	if m.Path == "" {
		return DefaultPath
	}
	return m.Path
}

func (m *MCPConfig) rollout() bool { return m.Rollout == nil || *m.Rollout }
func (m *MCPConfig) requireToken() bool {
	if m.RequireToken == nil {
		return m.rollout()
	}
	return *m.RequireToken
}

func (m *MCPConfig) tokenHeader() string {
	if m.TokenHeader == "" {
		return DefaultTokenHeader
	}
	return m.TokenHeader
}

func (m *MCPConfig) forwardHeaders() []string {
	if m.ForwardHeaders == nil {
		return []string{"Authorization"}
	}
	out := make([]string, len(m.ForwardHeaders))
	for i, h := range m.ForwardHeaders {
		out[i] = http.CanonicalHeaderKey(h)
	}
	return out
}

func (m *MCPConfig) maxBodyBytes() int64 {
	if m.MaxBodyBytes == 0 {
		return DefaultMaxBodyBytes
	}
	return m.MaxBodyBytes
}

func (m *MCPConfig) maxVerifyBytes() int64 {
	if m.MaxVerifyBytes == 0 {
		return DefaultMaxVerifyBytes
	}
	return m.MaxVerifyBytes
}

func (c *Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}
