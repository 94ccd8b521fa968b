package autoexpose

import (
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/replay"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/token"
	"github.com/mcpdoor/mcpdoor/verifywrap"
)

// A Door is an installed MCP endpoint: the tools it serves, the startup
// report, and the go-sdk server behind it. The zero Door (what Install
// returns for a disabled config) serves nothing.
type Door struct {
	name         string
	path         string
	log          *slog.Logger
	report       []ReportRow
	tools        map[string]*tool
	names        []string // exposed tool names, sorted
	server       *mcp.Server
	handler      http.Handler
	sessions     *session.Manager
	codec        *token.Codec
	tokenHeader  string
	requireToken bool
	allowedTools func([]byte) ([]string, error)
	localSID     string          // the session of tokenless calls that name no other
	byMCPSession *mcpSessionSIDs // stateful doors: each MCP session's tokenless session
	forward      []string
	maxBody      int64
	maxVerify    int64        // mcp.max_verify_bytes
	limiter      *rateLimiter // nil: no mcp.rate_limit
	callTimeout  time.Duration
	inflight     inflight
	life         *lifecycle // nil for a Door that serves nothing
	slot         *slot      // the exclusive session's; nil unless mcp.exclusive
	degraded     error
	// For a Door made by Wrap: the wrapped handler, and its /seed_session
	// and /verify with their wraps.
	inner         http.Handler
	seedHandler   http.Handler
	verifyHandler http.Handler
	rollout       map[string]*detector.Route // /seed_session and /verify
}

// Install serves r's POST tool routes over MCP at cfg's path (/mcp and /mcp/,
// no redirect), with zero handler changes. Call it after every route is
// registered and before serving.
//
// With expose_tools_over_mcp false it changes nothing and returns a Door
// that serves nothing. Otherwise it harvests the tools (see package
// detector), and refuses to start, returning an error that names each route
// and its fix, when a route cannot be served as a tool, the server already
// serves the MCP path, or (for a rollout server) /seed_session or /verify is
// missing. With mcp.degrade: http-only, such an error is logged instead and
// the router is left untouched.
//
// The startup report is logged once and available from Door.Report. The
// endpoint's session policy and protection follow the config (see
// MCPConfig.Stateful, Exclusive, AllowedOrigins, AllowedHosts); Door.Close
// ends its sessions when the server shuts down.
func Install(r chi.Router, cfg Config) (*Door, error) {
	if !cfg.ExposeToolsOverMCP {
		return &Door{}, nil
	}
	d, err := build(r, cfg)
	if err != nil {
		if degrade(&cfg, err) {
			return &Door{degraded: err}, nil
		}
		return nil, err
	}
	d.handler = d.endpoint(&cfg.MCP)
	if cfg.MCP.rollout() {
		d.wrapRollout(r)
	}
	r.Handle(d.path, d.handler)
	r.Handle(d.path+"/", d.handler)
	if cfg.MCP.rollout() {
		r.Handle(rolloutRoute, &prefixRouter{mux: r})
	}
	d.announce()
	return d, nil
}

// degrade reports whether the config asks to run without the MCP endpoint
// when it cannot be built (mcp.degrade: http-only), and then logs why.
func degrade(cfg *Config, err error) bool {
	if cfg.MCP.Degrade != "http-only" {
		return false
	}
	cfg.logger().Error("mcpdoor: serving HTTP only (mcp.degrade: http-only), no MCP endpoint", "err", err)
	return true
}

// announce logs the startup report and what the Door serves.
func (d *Door) announce() {
	d.logRoutes()
	d.log.Info("mcpdoor: serving MCP", "server", d.name, "path", d.path, "tools", len(d.names))
}

// verify wraps a /verify handler: it sees this server's mcp__<name>__<tool>
// names as bare tool names, and its response echoes the emitted ones. Its
// log lines name the request's rollout, if it came under the prefix.
func (d *Door) verify(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log := d.logger(r.Context())
		logf := func(format string, args ...any) { log.Warn("mcpdoor: " + fmt.Sprintf(format, args...)) }
		verifywrap.Wrap(h, d.name, &verifywrap.Options{MaxBodyBytes: d.maxVerify, LimitName: "mcp.max_verify_bytes", Logf: logf}).ServeHTTP(w, r)
	})
}

// wrapRollout re-registers /seed_session and /verify with their wraps: the
// session token in the seed response, and normalized names for /verify. A
// route keeps every middleware it had: the router's own still run in front
// of it, and the rest are re-applied with With.
func (d *Door) wrapRollout(r chi.Router) {
	for _, w := range []struct {
		pattern string
		wrap    func(http.Handler) http.Handler
	}{
		{"/seed_session", d.seed},
		{"/verify", d.verify},
	} {
		rt := d.rollout[w.pattern]
		own := rt.Middlewares[len(r.Middlewares()):]
		r.With(own...).Method(http.MethodPost, w.pattern, w.wrap(rt.Endpoint))
	}
}

// build makes the Door for r without changing r: the tools, their
// dispatchers and the go-sdk server, which Install serves over HTTP and
// ServeStdio over stdio.
func build(r chi.Router, cfg Config) (*Door, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &cfg.MCP
	mode, _ := detector.ParseMode(m.Dispatch)
	rep, err := detector.Inspect(r, &detector.Options{Mode: mode, Transparent: m.TransparentMiddleware, MCPPath: m.path()})
	if err != nil {
		return nil, err
	}
	if cfg.Outer != nil {
		throughOuter(rep)
	}
	errs := slices.Clone(rep.Problems)
	if m.rollout() {
		errs = append(errs, rolloutRoutes(rep)...)
	}
	d := newDoor(&cfg)
	for _, p := range []string{"/seed_session", "/verify"} {
		if rt := rep.Route(p); rt != nil {
			d.rollout[p] = rt
		}
	}
	doc, err := loadOpenAPI(&cfg)
	if err != nil {
		errs = append(errs, err)
	}
	d.unserved(doc, rep)
	var harvested []Tool
	for i := range rep.Routes {
		switch rt := &rep.Routes[i]; rt.Kind {
		case detector.Tool:
			harvested = append(harvested, harvest(rt, cfg.Declared, doc))
		default:
			d.report = append(d.report, ReportRow{Route: rt.Method + " " + rt.Pattern, Verdict: rt.Kind.String(), Reason: strings.Join(rt.Reasons, "; ")})
		}
	}
	var catchall *CatchAll
	if rt := rep.CatchAll(); rt != nil {
		catchall = &CatchAll{route: rt, router: r}
	}
	tools, refusals := d.toolset(harvested, catchall, &cfg, doc)
	errs = append(errs, refusals...)
	errs = append(errs, d.prepare(tools, replayTarget(&cfg, r), r)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := d.finish(&cfg); err != nil {
		return nil, err
	}
	return d, nil
}

// newDoor returns a Door with cfg's settings and no tools yet.
func newDoor(cfg *Config) *Door {
	m := &cfg.MCP
	return &Door{
		name:         cfg.Name,
		path:         m.path(),
		log:          cfg.logger(),
		tools:        make(map[string]*tool),
		tokenHeader:  m.tokenHeader(),
		requireToken: m.requireToken(),
		allowedTools: cfg.AllowedTools,
		localSID:     rand.Text(),
		byMCPSession: newMCPSessionSIDs(m),
		forward:      m.forwardHeaders(),
		maxBody:      m.maxBodyBytes(),
		maxVerify:    m.maxVerifyBytes(),
		limiter:      newRateLimiter(m.RateLimit),
		callTimeout:  m.CallTimeout,
		rollout:      make(map[string]*detector.Route),
		life:         newLifecycle(),
	}
}

// prepare makes the tools servable: resolved input schemas, and a
// dispatcher each — direct to its route's endpoint in routes, or replayed
// through target.
func (d *Door) prepare(tools []Tool, target http.Handler, routes chi.Routes) []error {
	var errs []error
	replayer := replay.NewReplay(target, d.maxBody)
	resolved := newResolver()
	for _, tl := range tools {
		rt := tl.route
		t := &tool{
			Tool:   tl,
			path:   "/" + tl.Name,
			direct: rt.Verdict == detector.Direct,
		}
		if tt, ok := rt.Endpoint.(typedTool); ok {
			info := tt.typedInfo()
			resolved.know(info.input, info.resolved)
			// A typed handler validates its own input against the same
			// schema, with the same 422: a direct call needs no second check.
			t.selfChecking = t.direct && info.input == t.InputSchema
		}
		var err error
		if t.resolved, err = resolved.of(t.InputSchema); err != nil {
			errs = append(errs, fmt.Errorf("mcpdoor: %s: tool %s: input schema: %w", t.Route, t.Name, err))
			continue
		}
		if t.direct {
			t.dispatcher = replay.NewDirect(rt.Endpoint, rt.Pattern, routes, d.maxBody)
		} else {
			t.dispatcher = replayer
		}
		d.add(t)
	}
	return errs
}

// finish gives a Door with its tools the rest: the session manager and
// token codec, and the MCP server. (Install and Wrap then make its HTTP
// endpoint; ServeStdio serves it on stdin and stdout.)
func (d *Door) finish(cfg *Config) error {
	slices.Sort(d.names)
	slices.SortStableFunc(d.report, compareRows)
	var err error
	if d.sessions, err = sessionManager(cfg); err != nil {
		return err
	}
	d.codec = token.NewCodec(cfg.Name, d.sessions.Keys(), cfg.MCP.TokenTTL)
	d.server = d.newServer()
	return nil
}

// rolloutRoutes refuses a rollout server without the routes of the rollout
// contract.
func rolloutRoutes(rep *detector.Report) []error {
	var errs []error
	for _, need := range []struct{ pattern, why string }{
		{"/seed_session", "its response carries the MCP session token to the agent"},
		{"/verify", "its tool-call names are normalized for scoring"},
	} {
		if rep.Route(need.pattern) == nil {
			errs = append(errs, &detector.RefusedError{
				Reason: fmt.Sprintf("a rollout server needs a POST %s route (%s)", need.pattern, need.why),
				Fix:    "add the route, or set mcp.rollout: false for a plain API without /seed_session and /verify",
			})
		}
	}
	return errs
}

// add registers t as an exposed tool.
func (d *Door) add(t *tool) {
	d.tools[t.Name] = t
	d.names = append(d.names, t.Name) // sorted by finish
	reasons := t.Reasons
	if t.note != "" {
		reasons = append(slices.Clip(reasons), t.note)
	}
	d.report = append(d.report, ReportRow{Tool: t.Name, Route: t.Route, Verdict: t.Verdict.String(), Reason: strings.Join(reasons, "; "), Schema: t.SchemaSource})
}

// Tools returns the exposed tools, by name.
func (d *Door) Tools() []Tool {
	out := make([]Tool, len(d.names))
	for i, n := range d.names {
		out[i] = d.tools[n].Tool
	}
	return out
}

// Handler returns the MCP endpoint's handler (nil for a disabled Door), to
// serve it somewhere else as well.
func (d *Door) Handler() http.Handler { return d.handler }

// Server returns the go-sdk server behind the endpoint (nil for a disabled
// Door), to add prompts or resources beside the tools.
func (d *Door) Server() *mcp.Server { return d.server }

// Enabled reports whether the Door serves MCP (a nil Door does not).
func (d *Door) Enabled() bool { return d != nil && d.handler != nil }

// Degraded returns why the MCP endpoint is not served under mcp.degrade:
// http-only, or nil.
func (d *Door) Degraded() error { return d.degraded }

func (d *Door) logRoutes() {
	for _, row := range d.report {
		d.log.Info("mcpdoor: route", "tool", row.Tool, "route", row.Route, "verdict", row.Verdict, "reason", row.Reason, "schema", row.Schema)
	}
}

// version is the main module's version, for the MCP server's
// implementation info.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "devel"
}
