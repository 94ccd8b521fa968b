package autoexpose

import (
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
	"github.com/mcpdoor/mcpdoor/replay"
	"github.com/mcpdoor/mcpdoor/rollout"
	"github.com/mcpdoor/mcpdoor/session"
)

// A builder makes a Door from a config: it reads the router, decides the
// tools, and collects the startup report, the warnings and every refusal,
// so that Install reports all of a config's mistakes at once.
type builder struct {
	cfg      *Config
	log      *slog.Logger
	sessions *session.Manager
	contract *rollout.Contract // nil while the rollout contract is off
	reserved []string          // names that are never tools
	stdio    bool              // building for ServeStdio: every call is tokenless
	report   []ReportRow
	errs     []error
}

// newBuilder checks cfg and makes what every Door of it needs: the session
// manager.
func newBuilder(cfg *Config) (*builder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sessions, err := sessionManager(cfg)
	if err != nil {
		return nil, err
	}
	return &builder{cfg: cfg, log: cfg.logger(), sessions: sessions}, nil
}

// useRollout turns the rollout contract on: its routes' names are reserved,
// and its admission checks every call.
func (b *builder) useRollout() {
	m := &b.cfg.MCP
	rc := m.Rollout
	rc.AllowTokenless = rc.AllowTokenless || b.stdio
	b.contract = rollout.New(rc, rollout.Params{
		Server:       b.cfg.Name,
		Path:         m.path(),
		Sessions:     b.sessions,
		MaxSeedBytes: m.maxBodyBytes(),
		Logger:       b.log,
	})
	b.reserved = append(b.reserved, rollout.Reserved...)
}

// inspect reads router r: its routes and their verdicts, and whether it
// follows the rollout contract.
func (b *builder) inspect(r chi.Router) *detector.Report {
	m := &b.cfg.MCP
	serves := func(path string) bool { return r.Find(chi.NewRouteContext(), http.MethodPost, path) == path }
	on, err := rollout.Decide(m.Rollout, serves(rollout.SeedPath), serves(rollout.VerifyPath))
	if err != nil {
		b.errs = append(b.errs, err)
	}
	if on {
		b.useRollout()
	}
	b.reserved = append(b.reserved, strings.TrimPrefix(m.path(), "/"))
	mode, _ := detector.ParseMode(m.Dispatch)
	rep, err := detector.Inspect(r, &detector.Options{Mode: mode, Transparent: m.TransparentMiddleware, MCPPath: m.path(), Reserved: b.reserved})
	if err != nil {
		b.errs = append(b.errs, err)
		return &detector.Report{}
	}
	if b.cfg.Outer != nil {
		throughOuter(rep)
	}
	if installed(r, m.path()) {
		b.errs = append(b.errs, &detector.RefusedError{
			Reason: "Install was already called on this router: its MCP endpoint is at " + m.path(),
			Fix:    "call Install once per router",
		})
		return rep
	}
	b.errs = append(b.errs, rep.Problems...)
	b.middlewareWarnings(rep)
	return rep
}

// harvest returns the tool routes of rep as tools, and adds the other POST
// routes to the report.
func (b *builder) harvest(rep *detector.Report, doc *openapi.Document) []Tool {
	b.unserved(doc, rep)
	var tools []Tool
	for i := range rep.Routes {
		switch rt := &rep.Routes[i]; rt.Kind {
		case detector.Tool:
			tools = append(tools, harvest(rt, b.cfg.Declared, doc))
		default:
			b.report = append(b.report, ReportRow{Route: rt.Method + " " + rt.Pattern, Verdict: rt.Kind.String(), Reason: strings.Join(rt.Reasons, "; ")})
		}
	}
	return tools
}

// door makes the Door that serves tools: a dispatcher each — direct to its
// route's endpoint in routes, or replayed through target — and the go-sdk
// server. It returns every refusal collected so far, joined, instead.
func (b *builder) door(tools []Tool, target http.Handler, routes chi.Routes) (*Door, error) {
	m := &b.cfg.MCP
	if len(tools) == 0 && len(b.errs) == 0 {
		if routes != nil {
			b.log.Warn("mcpdoor: no tools to serve: the router has no POST /<name> route that can be a tool " +
				"(call Install after registering the routes; see the startup report for the routes and why each is not a tool)")
		} else {
			b.log.Warn("mcpdoor: no tools to serve: declare the wrapped handler's tools in Config.CatchAll, or describe its routes in Config.OpenAPI")
		}
	}
	d := &Door{
		name:  b.cfg.Name,
		path:  m.path(),
		log:   b.log,
		tools: make(map[string]*tool),
		life:  newLifecycle(),
		calls: &calls{
			log:          b.log,
			contract:     b.contract,
			sessions:     b.sessions,
			localSID:     rand.Text(),
			byMCPSession: newMCPSessionSIDs(m),
			forward:      m.forwardHeaders(),
			maxBody:      m.maxBodyBytes(),
			limiter:      newRateLimiter(m.RateLimit),
			timeout:      m.CallTimeout,
		},
	}
	replayer := replay.NewReplay(target, m.maxBodyBytes())
	compiled := newResolver()
	for _, tl := range tools {
		rt := tl.route
		t := &tool{Tool: tl, path: "/" + tl.Name, fast: !bindsHeaders(tl.InputSchema)}
		if tt, ok := rt.Endpoint.(typedTool); ok {
			info := tt.typedInfo()
			info.configure(m.maxBodyBytes(), b.log)
			compiled.know(info.input, info.resolved)
		}
		var err error
		if t.resolved, err = compiled.of(t.InputSchema); err != nil {
			b.errs = append(b.errs, fmt.Errorf("mcpdoor: %s: tool %s: input schema: %w", t.Route, t.Name, err))
			continue
		}
		if rt.Verdict == detector.Direct {
			t.dispatcher = replay.NewDirect(rt.Endpoint, rt.Pattern, routes, m.maxBodyBytes())
		} else {
			t.dispatcher = replayer
		}
		d.tools[t.Name] = t
		d.names = append(d.names, t.Name)
		reasons := t.Reasons
		if t.note != "" {
			reasons = append(slices.Clip(reasons), t.note)
		}
		b.report = append(b.report, ReportRow{Tool: t.Name, Route: t.Route, Verdict: t.Verdict.String(), Reason: strings.Join(reasons, "; "), Schema: t.SchemaSource})
	}
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	slices.Sort(d.names)
	slices.SortStableFunc(b.report, compareRows)
	d.report = b.report
	d.server = d.newServer()
	d.calls.server = d.server
	return d, nil
}

// middlewareWarnings warns of the router's own middlewares, which run in
// front of the MCP endpoint too (a router's Use applies to every route), and
// of entries of mcp.transparent_middleware that no route has.
func (b *builder) middlewareWarnings(rep *detector.Report) {
	var front []string
	for _, name := range rep.RootMiddlewareNames {
		if !detector.Harmless(name) {
			front = append(front, name)
		}
	}
	if len(front) > 0 {
		warn := "mcpdoor: the router's own middlewares (its Use) also run in front of the MCP endpoint, at " + b.cfg.MCP.path() +
			"; one that ends a request early (a timeout, a throttle, a body limit) cuts or refuses MCP requests, and one that checks auth asks MCP clients for it too: " +
			"if that is not meant, move the middleware into r.Group or r.With around the routes it is for"
		if b.cfg.MCP.stateful() && slices.ContainsFunc(front, func(n string) bool { return strings.Contains(n, "middleware.Timeout") }) {
			warn += " (middleware.Timeout ends every stateful session's stream when it fires)"
		}
		b.log.Warn(warn, "middlewares", strings.Join(front, ", "))
	}
	for _, name := range b.cfg.MCP.TransparentMiddleware {
		if !rep.HasMiddleware(name) {
			b.log.Warn("mcpdoor: mcp.transparent_middleware names a middleware no route has; check the name against the startup report's reasons",
				"middleware", name)
		}
	}
}

// installed reports whether r already serves a Door's MCP endpoint at path.
func installed(r chi.Routes, path string) bool {
	found := false
	chi.Walk(r, func(_, pattern string, h http.Handler, _ ...func(http.Handler) http.Handler) error {
		if _, ok := h.(*endpoint); ok && pattern == path {
			found = true
		}
		return nil
	})
	return found
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
