package autoexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/bodies"
	"github.com/mcpdoor/mcpdoor/internal/call"
	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/dispatch"
	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/fastpath"
	"github.com/mcpdoor/mcpdoor/internal/harvest"
	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/telemetry"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
)

// A builder makes a Door from a config: it reads the router, decides the
// tools, and collects the startup report, the warnings and every refusal,
// so that Install reports all of a config's mistakes at once.
type builder struct {
	cfg      *Config
	log      *slog.Logger
	sessions *sessions.Manager
	bodies   *bodies.Policy    // how request bodies are read: mcp.max_body_memory, mcp.body_timeout
	contract *rollout.Contract // nil while the rollout contract is off
	reserved []string          // names that are never tools
	stdio    bool              // building for ServeStdio: every call is tokenless
	wrapping bool              // building for Wrap: no route table to read
	// paths is what REST tools' path values are checked against when that
	// is not the router the tools were read from (Wrap: the wrapped
	// handler's own routes; see harvest.Wrapped.Paths).
	paths  dispatch.Router
	report []detector.Row
	errs   []error
}

// newBuilder checks cfg and makes what every Door of it needs: the session
// manager.
func newBuilder(cfg *Config) (*builder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sessions, err := cfg.sessionManager()
	if err != nil {
		return nil, err
	}
	return &builder{cfg: cfg, log: cfg.logger(), sessions: sessions, bodies: cfg.MCP.bodyPolicy()}, nil
}

// useRollout turns the rollout contract on: its routes' names are reserved,
// and its admission checks every call.
func (b *builder) useRollout() {
	m := &b.cfg.MCP
	rc := m.Rollout.contract()
	rc.AllowTokenless = rc.AllowTokenless || b.stdio
	b.contract = rollout.New(rc, rollout.Params{
		Server:       b.cfg.Name,
		Path:         m.path(),
		Sessions:     b.sessions,
		MaxHeldBytes: m.maxBodyBytes(),
		Bodies:       b.bodies,
		Logger:       b.log,
	})
	if err := b.contract.CheckStore(); err != nil {
		b.errs = append(b.errs, err)
	}
	b.reserved = append(b.reserved, rollout.Reserved...)
}

// decideRollout turns the rollout contract on or off as the config and
// the routes say (serves reports whether the server serves POST path), and
// reserves the names of the contract's routes and of the MCP endpoint.
func (b *builder) decideRollout(serves func(path string) bool) {
	on, err := rollout.Decide(b.cfg.MCP.Rollout.contract(), serves(rollout.SeedPath), serves(rollout.VerifyPath))
	if err != nil {
		b.errs = append(b.errs, err)
	}
	if on {
		b.useRollout()
	}
	b.reserved = append(b.reserved, strings.TrimPrefix(b.cfg.MCP.path(), "/"))
}

// inspect reads router r: its routes and their verdicts, and whether it
// follows the rollout contract. doc is Config.OpenAPI's document, whose
// operationIds name REST tools.
func (b *builder) inspect(r chi.Router, doc *openapi.Document) *detect.Report {
	m := &b.cfg.MCP
	b.decideRollout(func(path string) bool { return wrappedServes(r, nil, path) })
	if err := foreignSessions(r, b.sessions); err != nil {
		b.errs = append(b.errs, err)
	}
	mode, _ := detect.ParseMode(string(m.Dispatch))
	rep, err := detect.Inspect(r, &detect.Options{Mode: mode, Transparent: m.TransparentMiddleware, MCPPath: m.path(), Reserved: b.reserved,
		REST: b.restOptions(doc, harvest.NewGenIndex(nil))})
	if err != nil {
		b.errs = append(b.errs, fmt.Errorf("mcpdoor: %w", err))
		return &detect.Report{}
	}
	if b.cfg.Outer != nil {
		throughOuter(rep)
	}
	b.errs = append(b.errs, rep.Problems...)
	b.middlewareWarnings(rep)
	return rep
}

// toolset decides the exposed tools of harvested and of the catch-all
// dispatcher disp (nil for none), as the config selects them (see
// toolset.Select); it adds what it refuses to b.errs, and the tools it
// keeps off MCP to the report.
func (b *builder) toolset(harvested []harvest.Spec, disp *toolset.Dispatcher, doc *openapi.Document) []harvest.Spec {
	cfg, m := b.cfg, &b.cfg.MCP
	sel := &toolset.Selection{
		Dispatcher:         disp,
		CatchAllNames:      slices.Sorted(maps.Keys(cfg.CatchAll)),
		Declared:           slices.Sorted(maps.Keys(cfg.Declared)),
		Include:            m.Include,
		Exclude:            m.Exclude,
		Annotate:           make(map[string]func(*mcp.ToolAnnotations) *mcp.ToolAnnotations, len(m.Annotations)),
		ExcludedByDocument: func(t harvest.Spec) bool { return harvest.ExcludedByDocument(doc, t) },
		REST:               m.REST != nil,
		MCPPath:            m.path(),
		Reserved:           b.reserved,
		Log:                b.log,
	}
	for name, a := range m.Annotations {
		sel.Annotate[name] = a.apply
	}
	if disp != nil {
		sel.CatchAll = harvest.CatchAll(disp.Route, declarations(cfg.CatchAll))
	}
	kept, report, errs := toolset.Select(harvested, sel)
	b.report = append(b.report, report...)
	b.errs = append(b.errs, errs...)
	return kept
}

// restOptions returns the detector's REST options of the config and the
// OpenAPI document, or nil for the tool-route convention; gen holds the
// generated facts (see harvest.RESTOptions).
func (b *builder) restOptions(doc *openapi.Document, gen *harvest.GenIndex) *detect.RESTOptions {
	r := b.cfg.MCP.REST
	if r == nil {
		return nil
	}
	return harvest.RESTOptions(r.Methods, r.Names, declarations(b.cfg.Declared), doc, gen)
}

// declarations are the config's declarations as the harvest reads them.
func declarations(decls map[string]Declaration) map[string]harvest.Declaration {
	out := make(map[string]harvest.Declaration, len(decls))
	for name, d := range decls {
		out[name] = harvest.Declaration{Description: d.Description, Input: d.Input, Output: d.Output, Annotations: d.Annotations}
	}
	return out
}

// apply returns base with a's fields set over it.
func (a Annotations) apply(base *mcp.ToolAnnotations) *mcp.ToolAnnotations {
	return harvest.Annotate(base, a.Title, a.ReadOnly, a.Destructive, a.Idempotent, a.OpenWorld)
}

// loadOpenAPI reads Config.OpenAPI. It returns nil without one.
func loadOpenAPI(cfg *Config) (*openapi.Document, error) {
	if cfg.OpenAPI == nil {
		return nil, nil
	}
	doc, err := openapi.Load(cfg.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("mcpdoor: Config.OpenAPI: %w", err)
	}
	return doc, nil
}

// harvest returns the tool routes of rep as tools, and adds the other
// routes (POST routes; under mcp.rest, every route) to the report.
func (b *builder) harvest(rep *detect.Report, doc *openapi.Document) []harvest.Spec {
	b.report = append(b.report, harvest.Unserved(doc, rep, b.cfg.MCP.REST != nil, b.log)...)
	gen := harvest.NewGenIndex(b.log)
	defer gen.WarnStale(b.log)
	declared := declarations(b.cfg.Declared)
	var tools []harvest.Spec
	for i := range rep.Routes {
		switch rt := &rep.Routes[i]; {
		case rt.Kind == detect.Tool && b.cfg.MCP.REST != nil:
			tools = append(tools, harvest.RESTRoute(rt, declared, doc, gen))
		case rt.Kind == detect.Tool:
			tools = append(tools, harvest.Route(rt, declared, doc, gen))
		default:
			b.report = append(b.report, detector.Row{Route: rt.Method + " " + rt.Pattern, Verdict: rt.Kind.String(), Reason: strings.Join(rt.Reasons, "; ")})
		}
	}
	return tools
}

// door makes the Door that serves tools: a dispatcher each — direct to its
// route's endpoint in routes, or replayed through target, which is also
// what the Door serves — and the go-sdk server. It returns every refusal
// collected so far, joined, instead.
func (b *builder) door(tools []harvest.Spec, target http.Handler, routes chi.Routes) (*Door, error) {
	m := &b.cfg.MCP
	if len(tools) == 0 && len(b.errs) == 0 {
		b.log.Warn("mcpdoor: no tools to serve: " + b.noTools(routes))
	}
	d := b.newDoor(target)
	tb := &toolset.Builder{
		MaxBody:     m.maxBodyBytes(),
		Log:         b.log,
		Compiled:    harvest.NewResolver(),
		Replayer:    dispatch.NewReplay(target, m.maxBodyBytes()),
		Paths:       routes, // what a REST tool's path is checked against
		Routes:      routes,
		Fast:        func(s *jsonschema.Schema) bool { return !bindsHeaders(s) },
		ImageBudget: call.ImageBudget(m.maxBodyBytes()),
	}
	if b.paths != nil {
		tb.Paths = b.paths
	}
	for _, tl := range tools {
		t, err := tb.Tool(tl)
		if err != nil {
			b.errs = append(b.errs, err)
			continue
		}
		d.tools[t.Name] = t
		d.names = append(d.names, t.Name)
		b.report = append(b.report, t.Row())
	}
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	slices.Sort(d.names)
	if b.contract != nil {
		b.contract.Expose(d.names)
	}
	slices.SortStableFunc(b.report, harvest.CompareRows)
	d.report = b.report
	d.server = d.newServer()
	d.calls.pipe.SetServer(d.server)
	seedPath := ""
	if b.contract != nil {
		seedPath = rollout.SeedPath
	}
	b.sessions.ServeDoor(d.path, seedPath, b.contract != nil)
	return d, nil
}

// newDoor makes the Door of the config, serving target, before its tools.
func (b *builder) newDoor(target http.Handler) *Door {
	m := &b.cfg.MCP
	d := &Door{
		name:     b.cfg.Name,
		path:     m.path(),
		log:      b.log,
		tools:    make(map[string]*toolset.Tool),
		life:     edge.NewLifecycle(),
		misroute: edge.NewMisroute(b.log, m.path(), b.sessions, b.contract),
		serves:   target,
		tel:      b.newTelemetry(),
		bodies:   b.bodies,
		extended: b.cfg.ExtendServer != nil,
		calls: &calls{
			contract:  b.contract,
			sessions:  b.sessions,
			maxBody:   m.maxBodyBytes(),
			stateless: !m.stateful() && !b.stdio,
			slots:     newCallSlots(m.maxConcurrentCalls()),
		},
	}
	d.calls.pipe = call.New(call.Settings{
		Log:       b.log,
		Contract:  b.contract,
		Sessions:  b.sessions,
		Inflight:  &d.calls.inflight,
		Forward:   m.forwardHeaders(),
		MaxBody:   m.maxBodyBytes(),
		RateLimit: call.RateLimit(m.RateLimit),
		Timeout:   m.CallTimeout,
		Stateful:  m.stateful(),
		Exclusive: m.Exclusive,
		States:    mcpcall.NewStates(b.sessions.Keys()),
		Span:      spanOf,
	})
	d.catalog = b.catalog(d.calls.pipe)
	d.front = d.newFront(target)
	return d
}

// newTelemetry returns what the Door traces and measures with.
func (b *builder) newTelemetry() *telemetry.Telemetry {
	return telemetry.New(telemetry.Options{
		TracerProvider: b.cfg.TracerProvider,
		MeterProvider:  b.cfg.MeterProvider,
		Propagators:    b.cfg.Propagators,
		Log:            b.log,
		Version:        version(),
		Stdio:          b.stdio,
		FailureCode:    failureCode,
	})
}

// failureCode is the code of the door's error envelope (see
// toolset.ErrorInfo) an isError result carries, for its span's
// error.type; "" for none.
func failureCode(res *mcp.CallToolResult) string {
	envelope, _ := res.StructuredContent.(map[string]toolset.ErrorInfo)
	if envelope == nil {
		envelope, _ = res.Meta[toolset.ErrorMetaKey].(map[string]toolset.ErrorInfo)
	}
	return envelope["error"].Code
}

// spanOf returns ctx, the context the call mc is dispatched in, with
// its span (see telemetry.WithSpan); ctx itself when there is no MCP call.
func spanOf(ctx context.Context, mc *mcpcall.Call) context.Context {
	if mc == nil {
		return ctx
	}
	return telemetry.WithSpan(ctx, mc.Traced)
}

// noTools says why a Door has no tool to serve, and what to do about it.
// routes is the router the tools were looked for in (for Wrap under
// mcp.rest, the routes it named).
func (b *builder) noTools(routes chi.Routes) string {
	var by []string // what keeps the tools off MCP
	for _, row := range b.report {
		if row.Verdict != "excluded" {
			continue
		}
		key := strings.TrimPrefix(row.Reason, "not in ")
		if key == "x-mcp-exclude" {
			key = "the OpenAPI document's x-mcp-exclude"
		}
		if !slices.Contains(by, key) {
			by = append(by, key)
		}
	}
	switch {
	case len(by) > 0:
		slices.Sort(by)
		verb := "keeps"
		if len(by) > 1 {
			verb = "keep"
		}
		return strings.Join(by, " and ") + " " + verb + " every tool off MCP; the startup report lists them"
	case b.wrapping && b.cfg.MCP.REST != nil:
		return "name the wrapped handler's routes in mcp.rest.names, or describe them in Config.OpenAPI"
	case b.wrapping:
		return "declare the wrapped handler's tools in Config.CatchAll, or describe its routes in Config.OpenAPI"
	case len(routes.Routes()) == 0:
		return "the router has no routes yet; call " + b.entry() + " after registering them"
	}
	return "none of the router's routes is a tool, a POST route at /<name>; the startup report lists each POST route it has and why it is not one"
}

// entry is the name of the call the builder builds for.
func (b *builder) entry() string {
	if b.stdio {
		return "ServeStdio"
	}
	return "Install"
}

// middlewareWarnings warns of the router's own middlewares, which run in
// front of the MCP endpoint too (a router's Use applies to every route), and
// of entries of mcp.transparent_middleware that no route has.
func (b *builder) middlewareWarnings(rep *detect.Report) {
	var front []string
	for _, name := range rep.RootMiddlewareNames {
		if !detect.Harmless(name) {
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
		if slices.ContainsFunc(front, func(n string) bool { return strings.Contains(n, "middleware.(*Compressor)") }) {
			warn += " (middleware.Compress compresses the MCP endpoint's answers for the clients that ask, and its event streams when text/event-stream is among its types)"
		}
		b.log.Warn(warn, "middlewares", strings.Join(front, ", "))
	}
	for _, name := range b.cfg.MCP.TransparentMiddleware {
		if rep.HasMiddleware(name) {
			continue
		}
		attrs := []any{"middleware", name}
		if c := closestMiddleware(rep, name); c != "" {
			attrs = append(attrs, "closest", c)
		}
		b.log.Warn("mcpdoor: mcp.transparent_middleware names a middleware no route has, so the entry does nothing; the startup report's reasons give each middleware by its full name", attrs...)
	}
}

// closestMiddleware returns the middleware of rep that an entry of
// mcp.transparent_middleware most likely means: one whose full name ends in
// it ("authenticate" for "github.com/you/app/api.authenticate"), or else
// one a few typos away; or "".
func closestMiddleware(rep *detect.Report, entry string) string {
	names := slices.Clone(rep.RootMiddlewareNames)
	for i := range rep.Routes {
		names = append(names, rep.Routes[i].MiddlewareNames...)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for _, n := range names {
		if strings.HasSuffix(n, "."+entry) || strings.HasSuffix(n, "/"+entry) {
			return n
		}
	}
	return toolset.Nearest(entry, names)
}

// installedAt returns the path of the MCP endpoint of a Door that r already
// serves, if it serves one: Install was called on it before.
func installedAt(r chi.Routes) (path string, ok bool) {
	chi.Walk(r, func(_, pattern string, h http.Handler, _ ...func(http.Handler) http.Handler) error {
		if _, isEndpoint := h.(*endpoint); isEndpoint && !ok {
			path, ok = pattern, true
			if len(path) > 1 {
				path = strings.TrimSuffix(path, "/")
			}
		}
		return nil
	})
	return path, ok
}

// installedError refuses to build a Door for a router that serves one at
// path already: a second Door would wrap /seed_session and /verify again.
func (b *builder) installedError(path string) error {
	fix := "call Install once per router"
	if b.stdio {
		fix = "call ServeStdio in place of Install, not after it"
	}
	return &detect.RefusedError{
		Reason: "the router already serves an MCP endpoint of mcpdoor, at " + path + " (Install was called on it)",
		Fix:    fix,
	}
}

// degrade reports whether the config asks to run without the MCP endpoint
// when it cannot be built (mcp.degrade: http-only), and then logs why.
func degrade(cfg *Config, err error) bool {
	if cfg.MCP.Degrade != DegradeHTTPOnly {
		return false
	}
	cfg.logger().Error("mcpdoor: serving HTTP only (mcp.degrade: http-only), no MCP endpoint", "err", err)
	return true
}

// withFastPath serves next behind the fast path, when the endpoint has one:
// a stateless endpoint, unless mcp.disable_fast_path or Config.ExtendServer
// (what that adds must see every call). The go-sdk's
// MCPGODEBUG settings change its answers; with any set, every request goes
// to the go-sdk. So it does in a binary built with a go-sdk the fast path
// was not verified against (see fastpath.Fenced), which the Door logs.
func (d *Door) withFastPath(m *MCPConfig, next http.Handler) http.Handler {
	if m.stateful() || m.DisableFastPath || d.extended || os.Getenv("MCPGODEBUG") != "" || fastpath.Fenced(d.log) {
		return next
	}
	return fastpath.New(fastpath.Options{
		Tools:      d.fastTools(),
		Log:        d.log,
		Telemetry:  d.tel,
		Impl:       d.impl,
		ServerInfo: d.serverInfo,
		Served:     &d.fastCalls,
	}, next)
}

// fastTools are the tools the fast path may serve, each calling through
// the Door's pipeline.
func (d *Door) fastTools() map[string]*fastpath.Tool {
	fast := make(map[string]*fastpath.Tool, len(d.tools))
	for name, t := range d.tools {
		if t.Fast {
			fast[name] = &fastpath.Tool{Name: t.Name, SpanName: t.SpanName, Call: func(ctx context.Context, req *mcp.CallToolRequest, mc *mcpcall.Call) (*mcp.CallToolResult, error) {
				return d.calls.call(ctx, t, req, mc)
			}}
		}
	}
	return fast
}

// bindsHeaders reports whether an input schema binds an argument to an
// HTTP header (x-mcp-header, anywhere in it), which the go-sdk checks
// against the request's headers under 2026-07-28.
func bindsHeaders(s *jsonschema.Schema) bool {
	b, err := json.Marshal(s)
	return err != nil || bytes.Contains(b, []byte(`x-mcp-header`))
}
