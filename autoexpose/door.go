package autoexpose

import (
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Door is an installed MCP endpoint: the tools it serves, the startup
// report, and the go-sdk server behind it. Install, Wrap and ServeStdio
// make one; the Door of a disabled config serves nothing. A Door is safe
// for concurrent use.
type Door struct {
	name   string
	path   string
	log    *slog.Logger
	report []ReportRow
	tools  map[string]*tool
	names  []string // exposed tool names, sorted
	server *mcp.Server
	impl   *mcp.Implementation // how server names itself
	// serverInfo is the _meta of a 2026-07-28 result: impl under
	// io.modelcontextprotocol/serverInfo, encoded.
	serverInfo []byte
	calls      *calls
	handler    http.Handler // the MCP endpoint; nil for a Door that serves nothing
	life       *lifecycle   // nil for a Door that serves nothing
	slot       *slot        // the exclusive session's; nil unless mcp.exclusive
	catalog    *Catalog     // without its tools; nil under mcp.disable_catalog
	degraded   error
	wrapped    *wrapped // for a Door made by Wrap

	// serverTaken is set once Server has handed the go-sdk server out; the
	// fast path then leaves every request to it (see Server).
	serverTaken atomic.Bool
	// fastCalls counts the tool calls the fast path has served.
	fastCalls atomic.Uint64
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
//
// What is added to the server — a middleware, a tool that takes the name of
// one of the door's — must see every request, so from the first call of
// Server on, the endpoint hands every request to the server: the fast path
// (see MCPConfig.DisableFastPath) is off.
func (d *Door) Server() *mcp.Server {
	d.serverTaken.Store(true)
	return d.server
}

// Enabled reports whether the Door serves MCP (a nil Door does not).
func (d *Door) Enabled() bool { return d != nil && d.handler != nil }

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
