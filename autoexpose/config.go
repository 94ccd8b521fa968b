package autoexpose

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpdoor/mcpdoor/internal/bodies"
	"github.com/mcpdoor/mcpdoor/internal/call"
	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/header"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/verifywrap"
)

// Config is one server's mcpdoor configuration: the YAML block (see
// ParseConfig), plus fields that only Go can express. Every field is
// optional but Name, and its zero value is its default: the zero Config
// leaves the router untouched (expose_tools_over_mcp is false).
//
// Config can be embedded inline in a server's own config struct:
//
//	type ServerConfig struct {
//		autoexpose.Config `yaml:",inline"`
//		Port int `yaml:"port"`
//	}
type Config struct {
	// Name is the server name: the MCP server's name, and the <name> in the
	// mcp__<name>__<tool> names that /verify normalizes. Required when
	// ExposeToolsOverMCP is true.
	Name string `yaml:"name"`
	// ExposeToolsOverMCP is the opt-in. False changes nothing, byte for byte.
	ExposeToolsOverMCP bool `yaml:"expose_tools_over_mcp"`
	// MCP holds every other setting.
	MCP MCPConfig `yaml:"mcp"`

	// Declared describes route tools in code, by tool name, where a route's
	// handler says nothing of its tool (a plain http.HandlerFunc): a
	// description, schemas, annotations. Every name must be a tool the
	// router serves; docs/tools.md says what wins when several sources
	// describe one tool.
	Declared map[string]Declaration `yaml:"-"`
	// CatchAll declares, by name, the tools that the router's catch-all
	// dispatcher serves: its one POST /{param} route, called as POST
	// /<name> with the parameter set to the tool's name. With Wrap, the
	// wrapped handler is the dispatcher and serves each as POST /<name>.
	// A name must not be one the router serves as a route of its own.
	CatchAll map[string]Declaration `yaml:"-"`
	// OpenAPI is an OpenAPI 3.0 or 3.1 document, or a Swagger 2.0 one (what
	// swaggo writes), describing the router's routes, JSON or YAML: the
	// bytes a server already embeds or serves (huma's /openapi.yaml,
	// oapi-codegen's GetSwagger marshaled, swaggo's swagger.json). An
	// operation describes the route of its method and full path: the
	// document's basePath (2.0) or its first server's url path (3.x, "/api"
	// or "https://host/api"), then the operation's path; chi regexps aside,
	// and a trailing slash making another route (a sub-router's "/" route
	// is served with and without). A tool route POST /<name> whose
	// operation it describes takes from it its input schema (the JSON
	// request body's, $refs resolved), output schema (the 200 response's
	// JSON schema, else the 201's, when it is an object's), description
	// (summary and description) and annotations (x-mcp-read-only,
	// x-mcp-destructive, x-mcp-idempotent, x-mcp-open-world, x-mcp-title);
	// an operation marked x-mcp-exclude: true keeps its route off MCP.
	// Under mcp.rest, an operation also gives the tool's name (operationId)
	// and its path and query parameters, and the routes the document does
	// not describe, or describes as a form or a page, are left off (see
	// the package documentation, "REST routes"). An operation no route
	// serves is warned about, naming the routes the router has there.
	// $refs must point into the document. A malformed document fails
	// Install.
	OpenAPI []byte `yaml:"-"`
	// Outer is a middleware around the router (or, for Wrap, around the
	// wrapped handler): what was http.ListenAndServe(addr, outer(r))
	// becomes Outer: outer, and the server serves the Door, which serves
	// outer around everything it serves, its MCP endpoint included, after
	// stripping NeMo Gym's prefix (see Door.ServeHTTP). Every tool call then
	// replays through it (with the forwarded headers, see
	// mcp.forward_headers), so a check it makes — auth, an allow-list —
	// holds over MCP as over HTTP; a direct call would skip it, so no tool
	// goes direct, and mcp.dispatch direct or strict cannot go with it. The
	// Door calls Outer once, and serves and replays through what it
	// returned. Without Outer, mcpdoor sees the router only: its routes and
	// their middlewares.
	Outer func(http.Handler) http.Handler `yaml:"-"`
	// ExtendServer, when set, is called once with the go-sdk server behind
	// the endpoint, at the end of Install, Wrap or ServeStdio and before
	// the Door serves: to add prompts, resources or a middleware beside the
	// door's tools, or to keep the server (its Sessions, an in-memory
	// Connect). What it adds sees every request, for the endpoint hands
	// every request to the server: a Door with ExtendServer has no fast
	// path (see MCPConfig.DisableFastPath). A middleware it adds runs
	// outside the door's own. Not called for a disabled or degraded Door,
	// which has no server.
	ExtendServer func(*mcp.Server) `yaml:"-"`
	// Logger receives the startup report, warnings and runtime errors
	// (handler panics). Default slog.Default().
	Logger *slog.Logger `yaml:"-"`
	// Store holds the sessions of the server and their state (session.Load,
	// session.Save, session.Update): the middleware of UseSessions and the
	// Door share it. Default nil: in this process's memory, at most
	// mcp.max_stored_sessions of them, so that each replica holds the
	// sessions it made, and refuses every call of another's rollouts as
	// misrouted (HTTP 421). Give every replica the same store
	// (session/redisstore) and any replica serves any call.
	Store session.Store `yaml:"-"`
	// OnSessionEnd, when set, is called with a session's id when it ends,
	// once per session: once /verify has answered 2xx in it (however many
	// /verify posts of the rollout answer at once), at session.End, or
	// once it has been unused for mcp.session_idle_ttl (in the in-memory
	// store; a store in Redis lets Redis expire it, without the call). The
	// session has ended for good by then: a call of it still running can
	// save nothing more, and its next request is refused as misrouted
	// (421): free what the server keeps for it. It runs on the goroutine
	// that ended the session, and must not block for long.
	OnSessionEnd func(ctx context.Context, sid string) `yaml:"-"`

	// TracerProvider, MeterProvider and Propagators are what the Door
	// traces, measures and reads trace context with (docs/observability.md):
	// a span and a duration for every MCP request, in OpenTelemetry's
	// semantic conventions for MCP. Nil: OpenTelemetry's globals
	// (otel.GetTracerProvider and the others), which are no-ops until the
	// program sets them.
	TracerProvider trace.TracerProvider `yaml:"-"`
	// MeterProvider: see TracerProvider.
	MeterProvider metric.MeterProvider `yaml:"-"`
	// Propagators: see TracerProvider.
	Propagators propagation.TextMapPropagator `yaml:"-"`

	// sessions is the one owner of the server's sessions, made once
	// (Config.sessionManager): the manager whose middleware the router
	// uses (UseSessions hands out its handle), which the door makes and
	// reads sessions with. A tool call runs in the session its token
	// names, the way that middleware would have put it there. Nil until
	// UseSessions or Install makes it.
	sessions *sessions.Manager
}

// MCPConfig is the mcp block of a server's config. Every field is optional,
// and its zero value is its default.
type MCPConfig struct {
	// Path is where the MCP endpoint is mounted (also at Path + "/").
	// Default "/mcp".
	Path string `yaml:"path"`
	// Include narrows the MCP tool list to these tools; a name matches a
	// tool in full or by its suffix after "__". Default: every tool. Each
	// name must match a tool. HTTP routes are never affected.
	Include []string `yaml:"include"`
	// Exclude keeps these tools off MCP (matched like Include); their routes
	// keep working over HTTP. Each name must match a tool.
	Exclude []string `yaml:"exclude"`
	// Dispatch is how tool calls reach their routes: DispatchAuto (the
	// default, ""), DispatchDirect, DispatchReplay or DispatchStrict.
	Dispatch Dispatch `yaml:"dispatch"`
	// TransparentMiddleware lists middleware function names (as the startup
	// report prints them) that a direct call may skip.
	TransparentMiddleware []string `yaml:"transparent_middleware"`
	// ForwardHeaders are copied from the MCP request to every dispatched
	// request. Default [Authorization, User-Agent]: the client's
	// credentials, and its name, which a route may record (a session's
	// label, an audit log) as it does over HTTP. An explicit empty list
	// forwards none; a list replaces the default, so name both to keep
	// them.
	ForwardHeaders []string `yaml:"forward_headers"`
	// SessionSecret signs session cookies and tokens: one secret, or a list
	// whose first entry signs and whose every entry verifies (rotation).
	// Each at least 32 bytes. In YAML, a string or a list of strings.
	SessionSecret []string `yaml:"session_secret"`
	// SessionSecretEnv names an environment variable holding the secret(s),
	// comma-separated. When neither is set, a random per-process secret is
	// made and the startup log says so.
	SessionSecretEnv string `yaml:"session_secret_env"`
	// Stateful serves sessions with Mcp-Session-Id, up to MaxSessions at
	// once. Default false: stateless, where any replica with the same
	// secret serves any call.
	Stateful bool `yaml:"stateful"`
	// Exclusive allows at most one live MCP session (implies Stateful), for
	// an environment that holds one agent's state: while it is live, a
	// client of another rollout that opens a session gets HTTP 409 with a
	// JSON-RPC error (code -32000) saying when to retry, and a client of the
	// same rollout (the same token, or session cookie) takes the session
	// over unless one of its calls is running. Where tool calls need a
	// token (Rollout.AllowTokenless unset), opening the session needs a
	// valid one (else HTTP 403); where they do not, a valid token takes the
	// session over from one opened without. The session ends, and frees
	// the server, on its client's DELETE, after IdleTimeout, or with
	// Door.Close.
	Exclusive bool `yaml:"exclusive"`
	// IdleTimeout ends a stateful session that has had no request for this
	// long (a call in flight is not idleness). Default 600s.
	IdleTimeout time.Duration `yaml:"idle_timeout"`
	// SessionIdleTTL ends a session once it has gone unused for this long
	// (each request that names it uses it): the store drops it and, in
	// memory, calls Config.OnSessionEnd for it. Default 1h: between two
	// calls of a rollout the agent waits for its model, minutes at worst
	// on a busy inference server, and an hour leaves room beyond that,
	// while it bounds what an abandoned session holds. It is always
	// finite; set it above the longest wait between two calls of one
	// rollout.
	SessionIdleTTL time.Duration `yaml:"session_idle_ttl"`
	// MaxStoredSessions caps the sessions the in-memory store holds at
	// once: past it, a seed gets 503 with Retry-After, and a handler's
	// first save in a new session an error, until one ends. Default
	// 10000. An error beside Config.Store, which a Redis store's maxmemory
	// bounds.
	MaxStoredSessions int `yaml:"max_stored_sessions"`
	// AllowedOrigins are the browser Origins accepted on the MCP endpoint
	// besides the server's own, as scheme://host[:port] ("null" for opaque
	// origins). A request with any other Origin gets 403.
	AllowedOrigins []string `yaml:"allowed_origins"`
	// AllowedHosts are the Host names (or name:port) accepted on a loopback
	// listener besides localhost and loopback IPs; any other Host gets 403
	// there (DNS rebinding protection). Listeners on other addresses accept
	// any Host.
	AllowedHosts []string `yaml:"allowed_hosts"`
	// RateLimit limits tool calls per session (or per client address, or
	// for the whole server: RateLimit.By). Default off.
	RateLimit RateLimit `yaml:"rate_limit"`
	// CallTimeout bounds one tool call. Default 0: none.
	CallTimeout time.Duration `yaml:"call_timeout"`
	// MaxBodyBytes caps an MCP request body, a call's arguments, the
	// response captured from a dispatched handler, and a /seed_session
	// body. Default 4 MiB.
	MaxBodyBytes int64 `yaml:"max_body_bytes"`
	// MaxBodyMemory bounds the memory that all the request bodies the door
	// reads whole (MCP requests, /seed_session and /verify bodies) hold at
	// once, while they are read and while they are served: a request whose
	// body would take more than is left gets HTTP 503 with Retry-After,
	// before any of it is read when its Content-Length says so. Default
	// 2 GiB. Reading a body of n bytes may take 1.5 n, so the budget must
	// hold one body of each limit (MaxBodyBytes, Rollout.MaxSeedBytes,
	// Rollout.MaxVerifyBytes), or Install fails.
	MaxBodyMemory int64 `yaml:"max_body_memory"`
	// BodyTimeout is how long a request body the door reads whole may take
	// to come: one that has not come whole by then is cut, with HTTP 408.
	// Default 60s. A server whose http.Server.ReadTimeout is shorter keeps
	// that.
	BodyTimeout time.Duration `yaml:"body_timeout"`
	// DisableFastPath hands every request to the go-sdk's Streamable HTTP
	// handler. By default a stateless endpoint serves a POST that carries one
	// tools/call request for one of its tools itself, on a fast path that
	// answers with the same bytes the go-sdk would, at a fraction of the
	// go-sdk's cost per request; every other request goes to the go-sdk.
	// Set it to compare the two. A stateful endpoint has no fast path, so
	// setting it there is an error.
	DisableFastPath bool `yaml:"disable_fast_path"`
	// Degrade is what Install does when the tools cannot be served:
	// DegradeFail (the default, ""), or DegradeHTTPOnly.
	Degrade Degrade `yaml:"degrade"`
	// Catalog serves the catalog resource (docs/catalog.md). Default false:
	// the server offers no resources, so a client that turns resources into
	// tools for its model (Claude Code) offers the model the server's tools
	// and nothing else.
	Catalog bool `yaml:"catalog"`
	// Annotations set tools' MCP annotations by tool name, over what any
	// other source says: {get_weather: {read_only: true}}. Each name must be
	// a tool.
	Annotations map[string]Annotations `yaml:"annotations"`
	// Rollout configures NeMo Gym's rollout contract, which is on when the
	// router serves POST /seed_session and POST /verify (docs/rollout.md).
	Rollout Rollout `yaml:"rollout"`
	// REST, when set, reads the router the REST way: routes of any method
	// and depth are tools, their path parameters, query parameters and JSON
	// body one input object (docs/rest.md). In YAML, the mcp.rest block
	// turns it on, even empty. Nil
	// keeps the tool-route convention: POST /<name> routes are tools.
	REST *REST `yaml:"rest"`

	// MaxSessions caps the live sessions of a stateful endpoint: a POST
	// that would open one more gets HTTP 503, with Retry-After and a
	// JSON-RPC error naming the key. Each session costs a goroutine and a
	// few KiB for as long as it lives (IdleTimeout). Default 1000. An
	// exclusive endpoint has one, and a stateless endpoint none, so setting
	// it there is an error.
	MaxSessions int `yaml:"max_sessions"`
	// UnusedSessionTimeout ends a stateful session that has made no request
	// since its initialize for this long, so that sessions opened and left
	// do not hold MaxSessions for IdleTimeout. Default 30s. Setting it on
	// a stateless endpoint, which keeps no session, is an error.
	UnusedSessionTimeout time.Duration `yaml:"unused_session_timeout"`
	// MaxBatch caps the messages of one JSON-RPC batch (a POST whose body
	// is a JSON array, which protocol 2025-03-26 allows): a larger one gets
	// HTTP 413 and a JSON-RPC error (-32600) naming the key, before any of
	// it is decoded. Default 64.
	MaxBatch int `yaml:"max_batch"`
	// MaxConcurrentCalls caps the tool calls that run at once in one MCP
	// session (on a stateless endpoint, one HTTP request): the others wait
	// for a slot, as long as their request lasts. Default 16.
	MaxConcurrentCalls int `yaml:"max_concurrent_calls"`
}

// REST is the mcp.rest block: which routes of a REST-shaped router are
// tools, and their names.
type REST struct {
	// Methods are the methods whose routes are tools: any of POST, PUT,
	// PATCH, DELETE and GET. Default [POST, PUT, PATCH, DELETE]: GET routes
	// are tools only when GET is listed, or one by one in Names, so that
	// /metrics or /debug pages do not turn into tools by accident.
	Methods []string `yaml:"methods"`
	// Names names routes' tools, by "METHOD /pattern" as the startup report
	// lists routes ("POST /api/notes/{id}/archive": archive_note); a
	// pattern may leave out chi regexps and a trailing slash. Naming a
	// route makes it a tool, whatever its method. A name here wins over the
	// OpenAPI operationId and the default rule (docs/rest.md, "Tool
	// names"). A key that names no route is an Install error.
	Names map[string]string `yaml:"names"`
}

// RateLimit is the rate of MCP tool calls: one token bucket for each
// session, each client address, or the whole server (By).
type RateLimit struct {
	// PerSession is the sustained rate of each bucket, in calls per second;
	// 0 is off.
	PerSession float64 `yaml:"per_session"`
	// Burst is the number of calls allowed at once. Default: PerSession
	// rounded up. Setting it without PerSession is an error.
	Burst int `yaml:"burst"`
	// By is what has a bucket of its own. Default RateBySession. Setting
	// it without PerSession is an error.
	//
	// A session is cheap to get: a tokenless caller gets a new one with
	// each fresh cookie, and on a rollout server anyone who may post to
	// /seed_session gets a new token, and a new bucket, with each post. A
	// session limit paces one honest agent; it does not hold back a caller
	// that wants more. RateByClient holds one address to the rate, however
	// many sessions it opens; RateByServer holds everyone to it together.
	By string `yaml:"by"`
}

// What mcp.rate_limit.by keys the buckets by.
const (
	// RateBySession: one bucket per session (the one each call runs in,
	// see Sessions): the default.
	RateBySession = call.BySession
	// RateByClient: one bucket per client address, the IP of the MCP
	// request's RemoteAddr (an IPv6 address's /64, which one host often
	// holds whole). Behind a proxy, that is the proxy's address, shared by
	// every client behind it; a middleware in front of the endpoint that
	// rewrites RemoteAddr (chi's RealIP) makes it what the
	// X-Forwarded-For or X-Real-IP header says, which a client can forge
	// unless the proxy sets it. Calls over stdio share one bucket.
	RateByClient = call.ByClient
	// RateByServer: one bucket for every call the server serves.
	RateByServer = call.ByServer
)

// Dispatch is how tool calls reach their routes (mcp.dispatch).
type Dispatch string

// The values of mcp.dispatch.
const (
	// DispatchAuto calls a route's handler directly, with a fabricated
	// request, when every middleware on the route is known to be
	// transparent, and replays the call through the router otherwise. The
	// default.
	DispatchAuto Dispatch = "auto"
	// DispatchDirect calls every route directly: the operator vouches that
	// no middleware needs to run.
	DispatchDirect Dispatch = "direct"
	// DispatchReplay replays every call through the router.
	DispatchReplay Dispatch = "replay"
	// DispatchStrict refuses, at Install, any route that cannot go direct.
	DispatchStrict Dispatch = "strict"
)

// Degrade is what Install does when the tools cannot be served
// (mcp.degrade).
type Degrade string

// The values of mcp.degrade.
const (
	// DegradeFail: Install returns the error. The default.
	DegradeFail Degrade = "fail"
	// DegradeHTTPOnly: the server runs without the MCP endpoint, serving
	// its routes over HTTP alone, and the log says why (Door.Degraded).
	DegradeHTTPOnly Degrade = "http-only"
)

// A Declaration describes a tool in code: what its handler does not carry.
type Declaration struct {
	Description string
	// Input is the tool's input schema; it must have type "object". Use
	// SchemaFor to derive one from a Go type. For a route of
	// Config.Declared whose body is a JSON array (a bulk route), it may be
	// the array's schema: the tool's one argument "body" is that array.
	Input *jsonschema.Schema
	// Output is the tool's output schema, advertised when it has type
	// "object".
	Output *jsonschema.Schema
	// Annotations are the tool's MCP annotations.
	Annotations *mcp.ToolAnnotations
}

// Annotations are the MCP tool annotations the YAML sets for one tool
// (mcp.annotations). Unset fields keep what the code says.
type Annotations struct {
	Title       string `yaml:"title"`
	ReadOnly    *bool  `yaml:"read_only"`
	Destructive *bool  `yaml:"destructive"`
	Idempotent  *bool  `yaml:"idempotent"`
	OpenWorld   *bool  `yaml:"open_world"`
}

// Defaults of the mcp block.
const (
	defaultPath         = "/mcp"
	defaultIdleTimeout  = 600 * time.Second
	defaultMaxBodyBytes = 4 << 20
	// Room to read one /verify body of the default limit (1 GiB, which
	// may take 1.5 GiB to read) and the MCP requests beside it.
	defaultMaxBodyMemory = 2 << 30
	// A minute: 18 MB/s for the largest /verify body of the defaults, 70
	// KB/s for the largest MCP request.
	defaultBodyTimeout = 60 * time.Second
	// A thousand sessions hold a few MiB and a thousand goroutines: well
	// within one process, and more than one server's agents keep open.
	defaultMaxSessions          = 1000
	defaultUnusedSessionTimeout = 30 * time.Second
	// Clients batch a handful of messages at most (the go-sdk's and Gym's
	// never batch).
	defaultMaxBatch           = 64
	defaultMaxConcurrentCalls = 16
)

var serverNameRule = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Validate reports every invalid setting of an enabled config, each naming
// its key. A disabled config is always valid: it changes nothing.
func (c *Config) Validate() error {
	if !c.ExposeToolsOverMCP {
		return nil
	}
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("mcpdoor: config: %s: "+format, append([]any{key}, args...)...))
	}
	m := &c.MCP
	c.validateName(bad)
	m.validateEndpoint(c.Outer != nil, bad)
	m.validateLimits(bad)
	m.validateSessions(bad)
	m.RateLimit.validate(bad)
	m.validateServing(bad)
	edge.ValidateGuard(m.AllowedOrigins, m.AllowedHosts, bad)
	c.validateDeclarations(bad)
	if m.REST != nil {
		m.REST.validate(bad)
	}
	rc := m.Rollout.contract()
	if err := rc.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// A badFunc reports a config key's mistake: its text is format and args.
type badFunc = func(key, format string, args ...any)

// validateName checks the server name.
func (c *Config) validateName(bad badFunc) {
	switch {
	case c.Name == "":
		bad("name", "is required when expose_tools_over_mcp is true (it names the MCP server and the mcp__<name>__ prefix)")
	case !serverNameRule.MatchString(c.Name):
		bad("name", "%q does not match %s", c.Name, serverNameRule)
	}
}

// validateEndpoint checks what the endpoint is and how it calls routes:
// its path, dispatch (outer: Config.Outer is set), the forwarded headers
// and the session secret.
func (m *MCPConfig) validateEndpoint(outer bool, bad badFunc) {
	if m.Path != "" && (!strings.HasPrefix(m.Path, "/") || m.Path == "/" || strings.HasSuffix(m.Path, "/")) {
		bad("mcp.path", "%q must start with / and not end with /", m.Path)
	}
	if mode, err := detect.ParseMode(string(m.Dispatch)); err != nil {
		bad("mcp.dispatch", "%v", err)
	} else if outer && (mode == detect.ForceDirect || mode == detect.Strict) {
		bad("mcp.dispatch", "%s cannot go with Config.Outer, through which every call replays; use auto or replay", mode)
	}
	for _, h := range m.ForwardHeaders {
		if !header.ValidName(h) {
			bad("mcp.forward_headers", "%q is not a header name", h)
		}
	}
	if len(m.SessionSecret) > 0 && m.SessionSecretEnv != "" {
		bad("mcp.session_secret", "set session_secret or session_secret_env, not both")
	}
}

// validateLimits checks the durations, sizes and counts, in the order of
// the config's keys.
func (m *MCPConfig) validateLimits(bad badFunc) {
	for _, d := range []struct {
		key string
		d   time.Duration
	}{
		{"mcp.idle_timeout", m.IdleTimeout},
		{"mcp.call_timeout", m.CallTimeout},
		{"mcp.unused_session_timeout", m.UnusedSessionTimeout},
		{"mcp.session_idle_ttl", m.SessionIdleTTL},
		{"mcp.body_timeout", m.BodyTimeout},
	} {
		if d.d < 0 {
			bad(d.key, "%v is negative", d.d)
		} else if d.d > 0 && d.d < time.Millisecond {
			bad(d.key, "%v is under a millisecond; write a unit, such as 600s", d.d)
		}
	}
	if m.MaxBodyBytes < 0 {
		bad("mcp.max_body_bytes", "%d is negative", m.MaxBodyBytes)
	}
	if m.MaxBodyMemory < 0 {
		bad("mcp.max_body_memory", "%d is negative", m.MaxBodyMemory)
	} else {
		m.validateBodyMemory(bad)
	}
	for _, n := range []struct {
		key string
		n   int
	}{
		{"mcp.max_sessions", m.MaxSessions},
		{"mcp.max_batch", m.MaxBatch},
		{"mcp.max_concurrent_calls", m.MaxConcurrentCalls},
		{"mcp.max_stored_sessions", m.MaxStoredSessions},
	} {
		if n.n < 0 {
			bad(n.key, "%d is negative; leave it out for the default", n.n)
		}
	}
}

// validateSessions checks the keys that hold for one session policy only.
func (m *MCPConfig) validateSessions(bad badFunc) {
	if m.Exclusive && m.MaxSessions != 0 {
		bad("mcp.max_sessions", "does nothing on an exclusive endpoint, which admits one session; remove it")
	}
	if !m.stateful() {
		if m.MaxSessions != 0 {
			bad("mcp.max_sessions", "does nothing on a stateless endpoint, which keeps no session; remove it, or set mcp.stateful")
		}
		if m.UnusedSessionTimeout != 0 {
			bad("mcp.unused_session_timeout", "does nothing on a stateless endpoint, which keeps no session; remove it, or set mcp.stateful")
		}
	}
}

// validateServing checks how the endpoint serves: mcp.degrade and
// mcp.disable_fast_path.
func (m *MCPConfig) validateServing(bad badFunc) {
	switch m.Degrade {
	case "", DegradeFail, DegradeHTTPOnly:
	default:
		bad("mcp.degrade", "%q is not fail or http-only", m.Degrade)
	}
	if m.DisableFastPath && m.stateful() {
		bad("mcp.disable_fast_path", "does nothing on a stateful endpoint (mcp.stateful or mcp.exclusive), which has no fast path; remove it")
	}
}

// validate checks mcp.rate_limit.
func (rl *RateLimit) validate(bad badFunc) {
	switch {
	case rl.PerSession < 0:
		bad("mcp.rate_limit.per_session", "%v is negative", rl.PerSession)
	case math.IsInf(rl.PerSession, 0) || math.IsNaN(rl.PerSession):
		bad("mcp.rate_limit.per_session", "%v is not a number of calls per second; 0 turns the limit off", rl.PerSession)
	case rl.PerSession == 0 && rl.Burst != 0:
		bad("mcp.rate_limit.burst", "is set but per_session is not; set per_session (calls per second) to limit calls")
	}
	if rl.Burst < 0 {
		bad("mcp.rate_limit.burst", "%d is negative", rl.Burst)
	}
	switch by := rl.By; {
	case by != "" && by != RateBySession && by != RateByClient && by != RateByServer:
		bad("mcp.rate_limit.by", "%q is not session, client or server", by)
	case by != "" && rl.PerSession == 0:
		bad("mcp.rate_limit.by", "is set but per_session is not; set per_session (calls per second) to limit calls")
	}
}

// validateDeclarations checks the input schemas of Config.Declared and
// Config.CatchAll, by sorted name.
func (c *Config) validateDeclarations(bad badFunc) {
	for _, name := range slices.Sorted(maps.Keys(c.Declared)) {
		if in := c.Declared[name].Input; in != nil && in.Type != "object" && in.Type != "array" {
			bad("Config.Declared["+name+"].Input", "type is %q; a tool's input schema must have type \"object\", or \"array\" for a route whose body is a JSON array", in.Type)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.CatchAll)) {
		if in := c.CatchAll[name].Input; in != nil && in.Type != "object" {
			bad("Config.CatchAll["+name+"].Input", "type is %q; a tool's input schema must have type \"object\"", in.Type)
		}
	}
}

// validateBodyMemory reports, through bad, a body limit that the body
// budget could not hold one body of, even with no other body being read.
func (m *MCPConfig) validateBodyMemory(bad func(key, format string, args ...any)) {
	budget := m.maxBodyMemory()
	for _, l := range []struct {
		key   string
		limit int64
	}{
		{"mcp.max_body_bytes", m.maxBodyBytes()},
		{"mcp.rollout.max_seed_bytes", orDefault(m.Rollout.MaxSeedBytes, rollout.DefaultMaxSeedBytes)},
		{"mcp.rollout.max_verify_bytes", orDefault(m.Rollout.MaxVerifyBytes, verifywrap.DefaultMaxBodyBytes)},
	} {
		if l.limit < 0 {
			continue // reported on its own
		}
		if peak := bodies.Peak(l.limit); peak > budget {
			bad("mcp.max_body_memory", "%d bytes cannot hold one body of %s (%d bytes), which may take %d bytes to read; raise mcp.max_body_memory to at least %d, or lower %s",
				budget, l.key, l.limit, peak, peak, l.key)
		}
	}
}

// validate reports the block's invalid methods and keys through bad.
func (r *REST) validate(bad func(key, format string, args ...any)) {
	methods := detect.RESTMethods()
	for _, m := range r.Methods {
		if !slices.Contains(methods, strings.ToUpper(m)) {
			bad("mcp.rest.methods", "%q is not one of %s", m, strings.Join(methods, ", "))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(r.Names)) {
		method, pattern, ok := strings.Cut(strings.TrimSpace(key), " ")
		switch pattern = strings.TrimSpace(pattern); {
		case !ok || !strings.HasPrefix(pattern, "/"):
			bad("mcp.rest.names", "%q is not a method, a space and a route pattern, such as \"GET /notes/{id}\"", key)
		case !slices.Contains(methods, strings.ToUpper(method)):
			bad("mcp.rest.names", "%q: %s is not one of %s", key, method, strings.Join(methods, ", "))
		}
	}
}

// path returns the MCP endpoint's path.
func (m *MCPConfig) path() string {
	if m.Path == "" {
		return defaultPath
	}
	return m.Path
}

func (m *MCPConfig) forwardHeaders() []string {
	if m.ForwardHeaders == nil {
		return []string{"Authorization", "User-Agent"}
	}
	out := make([]string, len(m.ForwardHeaders))
	for i, h := range m.ForwardHeaders {
		out[i] = http.CanonicalHeaderKey(h)
	}
	return out
}

func (m *MCPConfig) maxBodyBytes() int64 {
	if m.MaxBodyBytes == 0 {
		return defaultMaxBodyBytes
	}
	return m.MaxBodyBytes
}

// maxBodyMemory returns the budget of the request bodies held at once.
func (m *MCPConfig) maxBodyMemory() int64 { return orDefault(m.MaxBodyMemory, defaultMaxBodyMemory) }

// bodyTimeout returns how long a request body may take to come whole.
func (m *MCPConfig) bodyTimeout() time.Duration { return orDefault(m.BodyTimeout, defaultBodyTimeout) }

// bodyPolicy returns how the door reads request bodies whole: within one
// budget of mcp.max_body_memory, each within mcp.body_timeout.
func (m *MCPConfig) bodyPolicy() *bodies.Policy {
	return &bodies.Policy{
		Budget:      bodies.NewBudget(m.maxBodyMemory()),
		BudgetName:  "mcp.max_body_memory",
		Timeout:     m.bodyTimeout(),
		TimeoutName: "mcp.body_timeout",
	}
}

// maxSessions returns the cap on live sessions.
func (m *MCPConfig) maxSessions() int { return orDefault(m.MaxSessions, defaultMaxSessions) }

// unusedSessionTimeout returns how long a session may wait for its first
// request after initialize.
func (m *MCPConfig) unusedSessionTimeout() time.Duration {
	return orDefault(m.UnusedSessionTimeout, defaultUnusedSessionTimeout)
}

// maxBatch returns the cap on the messages of a JSON-RPC batch.
func (m *MCPConfig) maxBatch() int { return orDefault(m.MaxBatch, defaultMaxBatch) }

// maxConcurrentCalls returns the cap on one session's calls at once.
func (m *MCPConfig) maxConcurrentCalls() int {
	return orDefault(m.MaxConcurrentCalls, defaultMaxConcurrentCalls)
}

// orDefault returns v, or def for the zero value.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// stateful reports whether the endpoint serves sessions.
func (m *MCPConfig) stateful() bool { return m.Stateful || m.Exclusive }

// idleTimeout returns how long a stateful session may stay idle.
func (m *MCPConfig) idleTimeout() time.Duration {
	if m.IdleTimeout == 0 {
		return defaultIdleTimeout
	}
	return m.IdleTimeout
}

func (c *Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}
