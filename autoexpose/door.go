package autoexpose

import (
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/bodies"
	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/telemetry"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
)

// A Door is an installed MCP endpoint: the tools it serves, the startup
// report, and the go-sdk server behind it. Install, Wrap and ServeStdio
// make one. It is also what a server serves, outermost, in place of its
// router (see ServeHTTP); the Door of a disabled config serves the router
// unchanged. A Door is safe for concurrent use.
type Door struct {
	name   string
	path   string
	log    *slog.Logger
	report []detector.Row
	tools  map[string]*toolset.Tool
	names  []string // exposed tool names, sorted
	server *mcp.Server
	impl   *mcp.Implementation // how server names itself
	// serverInfo is the _meta of a 2026-07-28 result: impl under
	// io.modelcontextprotocol/serverInfo, encoded.
	serverInfo []byte
	calls      *calls
	tel        *telemetry.Telemetry
	bodies     *bodies.Policy  // how request bodies are read (see edge.ReadBodies)
	handler    http.Handler    // the MCP endpoint; nil for a Door that serves no MCP
	life       *edge.Lifecycle // nil for a Door that serves no MCP
	slot       *edge.Slot      // the exclusive session's; nil unless mcp.exclusive
	catalog    *catalogDoc     // without its tools; nil unless mcp.catalog
	degraded   error
	// serves is what the Door serves, and tool calls replay through:
	// Config.Outer around the router (Install) or the wrapMux (Wrap), or
	// that alone.
	serves http.Handler

	// extended is set when Config.ExtendServer adds to the go-sdk server:
	// the endpoint then has no fast path, and asks the server what it
	// declares (see undeclared).
	extended bool
	// fastCalls counts the tool calls the fast path has served.
	fastCalls atomic.Uint64
	// streamed is set once serveIO has served a stream: a Door serves one.
	streamed atomic.Bool
	// misroute reads the session a request names, and refuses one this
	// replica does not hold; nil for a Door that serves no MCP.
	misroute *edge.Misroute
	// front is what ServeHTTP serves (see newFront); nil for a Door that
	// serves no MCP.
	front http.Handler
	// reverify answers GET /reverify_mode, ahead of the server's
	// middlewares (no cookie, no session); nil while the rollout contract is
	// off, or when the server serves the route itself.
	reverify http.HandlerFunc
}

// ServeHTTP serves what the server serves: a server serves the Door
// outermost, in place of its router — http.ListenAndServe(addr, door).
//
// Where the rollout contract is on, the Door first strips NeMo Gym's
// prefix: /ng-rollout/<id>/<path> is served as /<path>, with the id in
// RolloutID and the URL path, raw path and RequestURI without the prefix
// (a second prefix is not stripped: NeMo Gym strips one). So every check
// the server makes — the router's Use, Group, Mount and With, Config.Outer
// — sees the bare path, and holds on the prefixed one; a check in front of
// the Door would see the prefix, and a gate on /admin would let
// /ng-rollout/<id>/admin through.
//
// The Door then serves the request through Config.Outer, when set, around
// what it serves inside: for a Door made by Install, the router, which
// serves the MCP endpoint among its routes; for one made by Wrap, its MCP
// endpoint at its path (and path + "/"), /seed_session and /verify with the
// contract's wraps, and every other request through the wrapped handler.
// So a check Outer makes holds on every request, the MCP endpoint's
// included. A disabled or degraded Door serves Outer around the router (or
// the wrapped handler) alone, prefix included. The zero Door answers 404.
//
// Before any of that, a Door that serves MCP reads the session the request
// names, once: by a valid token on the MCP endpoint, by a valid session
// cookie elsewhere, /seed_session aside. On a rollout server it refuses a
// request of a rollout's session its store does not hold (Config.Store),
// or of one that has ended, with 421 Misdirected Request, and on the MCP
// endpoint a JSON-RPC error of code -32003, with the same message on both
// doors: "mcpdoor: session <sid> is not held by this replica (misrouted,
// or its state was lost): ...". So a replica never runs a call against a
// session it does not hold, and a harness counts the misrouted calls. A
// store that fails gets 503 and a generic text; the log says why.
func (d *Door) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case d.front != nil:
		d.front.ServeHTTP(w, r)
	case d.serves != nil: // a disabled or degraded Door
		d.serves.ServeHTTP(w, r)
	default: // the zero Door
		http.NotFound(w, r)
	}
}

// newFront returns what ServeHTTP serves for a Door that serves MCP: one
// chain of the Door's steps, in the order a request meets them, in front
// of serves.
func (d *Door) newFront(serves http.Handler) http.Handler {
	var unprefix, reverify edge.Step // nil while the rollout contract is off
	if d.calls.contract != nil {
		// NeMo Gym's prefix: /ng-rollout/<id>/<path> is served as /<path>,
		// with the id in RolloutID; refuses nothing.
		unprefix = func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if unprefixed, ok := rollout.StripPrefix(r); ok {
					r = unprefixed
				}
				next.ServeHTTP(w, r)
			})
		}
		// GET /reverify_mode, answered here, ahead of the server's
		// middlewares (no cookie, no session), where the server does not
		// serve it itself.
		reverify = func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if d.reverify != nil && r.URL.Path == rollout.ReverifyPath && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
					d.reverify(w, r)
					return
				}
				next.ServeHTTP(w, r)
			})
		}
	}
	return edge.Chain(
		unprefix,
		reverify,
		// The session the request names, read once: 421 for one this
		// replica does not hold (on the MCP endpoint a JSON-RPC error,
		// -32003), 503 when the session store fails.
		d.misroute.Wrap,
	).Handler(serves)
}

// Close shuts the MCP endpoint: from then on it answers every request with
// 503 Service Unavailable. Close ends the contexts of the tool calls in
// flight (a handler that honours its context returns), waits for the
// requests that were opening a session, then ends every live MCP session,
// waiting for the calls still running in it to return. Close does not touch
// the router or the HTTP door's routes.
//
// Close is safe to call more than once and concurrently (every call returns
// once the Door is closed, with the first call's result), and on the Door of
// a disabled or degraded config, where it does nothing. Its error joins the
// sessions' own close errors.
//
// To close the Door with the HTTP server, register it:
//
//	srv.RegisterOnShutdown(func() { door.Close() })
//
// so that srv.Shutdown does not wait for session streams to end by
// themselves.
func (d *Door) Close() error {
	if d.life == nil {
		return nil
	}
	return d.life.Close(func() error {
		var errs []error
		for ss := range d.server.Sessions() {
			if err := ss.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	})
}

// extend hands the go-sdk server to Config.ExtendServer, when set: once,
// after the door has added its own tools and middleware, before serving.
func (d *Door) extend(cfg *Config) {
	if cfg.ExtendServer != nil {
		cfg.ExtendServer(d.server)
	}
}

// Endpoint returns what a client needs to reach the MCP endpoint over HTTP:
// its path (mcp.path, default /mcp; it is also served at path + "/"), and,
// when the rollout contract is on, the header in which tool calls carry the
// session token (mcp.rollout.token_header), else "". A Door that serves no
// endpoint (expose_tools_over_mcp false, or mcp.degrade: http-only dropped
// it) returns "", "".
func (d *Door) Endpoint() (path, tokenHeader string) {
	if !d.serving() {
		return "", ""
	}
	if c := d.calls.contract; c != nil {
		tokenHeader = c.TokenHeader()
	}
	return d.path, tokenHeader
}

// serving reports whether the Door serves MCP (a nil Door does not).
func (d *Door) serving() bool { return d != nil && d.handler != nil }

// Degraded returns why the MCP endpoint is not served under mcp.degrade:
// http-only, or nil.
func (d *Door) Degraded() error { return d.degraded }

// announce logs the startup report and what the Door serves: at its path,
// or over stdio.
func (d *Door) announce(overStdio bool) {
	for _, row := range d.report {
		attrs := []any{"tool", row.Tool, "route", row.Route, "verdict", row.Verdict, "reason", row.Reason, "schema", row.Schema}
		if row.Arguments != "" {
			attrs = append(attrs, "arguments", row.Arguments)
		}
		d.log.Info("mcpdoor: route", attrs...)
	}
	if overStdio {
		d.log.Info("mcpdoor: serving MCP over stdio", "server", d.name, "tools", len(d.names))
		return
	}
	d.log.Info("mcpdoor: serving MCP", "server", d.name, "path", d.path, "tools", len(d.names))
}

// version is the main module's version, for the MCP server's
// implementation info.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "devel"
}

// Report returns the startup report: one row per tool and per other POST
// route (under mcp.rest, per route), tools by name first. Write it as a
// table with detector.WriteTable(w, door.Report()).
func (d *Door) Report() []detector.Row { return slices.Clone(d.report) }
