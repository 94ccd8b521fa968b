package autoexpose

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/fastpath"
	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sdkserver"
	"github.com/mcpdoor/mcpdoor/internal/telemetry"
)

// newServer builds the go-sdk server: one low-level tool per exposed tool,
// and the catalog resource, declaring what it serves (capabilities.go),
// behind the middleware that answers unknown tools.
func (d *Door) newServer() *mcp.Server {
	d.impl = &mcp.Implementation{Name: d.name, Version: version()}
	d.serverInfo, _ = json.Marshal(mcp.Meta{mcp.MetaKeyServerInfo: d.impl}) // cannot fail: strings
	s := mcp.NewServer(d.impl, d.serverOptions())
	for _, name := range d.names {
		t := d.tools[name]
		s.AddTool(t.MCPTool(), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return d.calls.callMCP(ctx, t, req)
		})
	}
	if d.catalog != nil {
		d.addCatalog(s)
	}
	// Beneath the Door's middleware, the go-sdk's handling of each method
	// (the tools' handlers included) recovers, so that a panic there is
	// traced as the request's error (see internal/sdkserver recover.go).
	s.AddReceivingMiddleware(sdkserver.Recovering(d.log))
	s.AddReceivingMiddleware(d.recovers(d.middleware))
	s.AddReceivingMiddleware(d.recovers(d.tel.Middleware(d.served()))) // outside the middleware: its refusals are traced too
	return s
}

// recovers is the middleware m under sdkserver.Recovering, as the Door
// adds each of its own to the go-sdk server.
func (d *Door) recovers(m mcp.Middleware) mcp.Middleware { return sdkserver.Recovers(d.log, m) }

// served is what the go-sdk server's tracing needs of d.
func (d *Door) served() telemetry.Served {
	return telemetry.Served{
		Known: func(tool string) bool {
			_, ok := d.tools[tool]
			return ok
		},
		Request:  d.calls.inflight.Lookup,
		ID:       d.calls.inflight.ID,
		Stateful: !d.calls.stateless,
	}
}

// transport serves the Streamable HTTP transport: stateless, or with
// sessions that close after idle_timeout without a request (see endpoint.go).
func (d *Door) transport(m *MCPConfig) http.Handler {
	opts := &mcp.StreamableHTTPOptions{
		Stateless:           !m.stateful(),
		MaxRequestBodyBytes: m.maxBodyBytes(),
		// The guard (edge.Guard) checks Host, with mcp.allowed_hosts.
		DisableLocalhostProtection: true,
	}
	if m.stateful() {
		opts.SessionTimeout = m.idleTimeout()
	}
	return fastpath.JSONAnswers(d.log, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return d.server }, opts))
}

// middleware answers a call to an unknown tool with the JSON-RPC error the
// MCP spec gives (-32602), naming the tools the caller may call, counts the
// requests an exclusive session is handling (see edge.Slot), narrows tools/list
// to what the caller's token allows (refusing it for a token that does not
// verify), refuses a server/discover for a protocol version the
// transport cannot serve (see discover), and the methods of capabilities
// the server does not declare (see Door.undeclared). The fast path serves
// neither tools/list nor unknown tools: this is the one place that narrows
// them.
func (d *Door) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if err := d.undeclared(ctx, next, method, req); err != nil {
			return nil, err
		}
		if d.slot != nil && !strings.HasPrefix(method, "notifications/") {
			// The exclusive session is not taken over while it runs a call.
			// A notification is none: its POST was answered 202 before it
			// is handled, so no client waits for it, and counting it would
			// refuse a reconnect that follows it closely.
			if ss := req.GetSession(); ss != nil {
				defer d.slot.Serving(ss.ID())()
				if method == "tools/call" {
					d.slot.ToolCalled(ss.ID())
				}
			}
		}
		switch method {
		case "server/discover":
			return discover(ctx, next, method, req)
		case "tools/call":
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				if _, known := d.tools[p.Name]; !known {
					return nil, d.unknownTool(p.Name, mcpcall.Header(req))
				}
			}
		case "tools/list":
			visible, refused := d.visible(mcpcall.Header(req))
			if refused != nil {
				return nil, refused
			}
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && list != nil && err == nil && visible != nil {
				return narrow(list, visible), nil
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// discover answers a server/discover whose protocol version the session's
// transport does not serve with method not found (-32601), where the go-sdk
// answers success.
//
// A stateful Streamable HTTP transport serves only the versions negotiated
// by initialize (up to 2025-11-25), and refuses every later request of the
// 2026-07-28 protocol; a client that took a successful discover as final
// (mcp-go's does) would then fail on every request. The answer must let
// every client fall back to initialize: the 2026-07-28 protocol's
// backward-compatibility rules have a client fall back after an error that
// is not one of its own (-32020 to -32022), and @ai-sdk/mcp takes its
// UnsupportedProtocolVersionError (-32022) as final, where method not found
// is what a server that predates discover answers. The versions served are
// those the go-sdk's own discover result lists, which it has already
// narrowed to what the transport serves; the go-sdk writes its own text for
// a -32601 (`method not found: "server/discover"`), and HTTP 404 at that
// version.
func discover(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	found, ok := res.(*mcp.DiscoverResult)
	if err != nil || !ok || found == nil {
		return res, err
	}
	asked, _ := req.(interface{ ProtocolVersion() string })
	if asked == nil || asked.ProtocolVersion() == "" || slices.Contains(found.SupportedVersions, asked.ProtocolVersion()) {
		return res, nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}
}

// unknownTool is the JSON-RPC error of a call to an unknown tool, naming
// the tools the caller may call: those its token lists, every tool without
// a token, none for a token that does not verify.
func (d *Door) unknownTool(name string, header http.Header) error {
	msg := fmt.Sprintf("unknown tool %q", name)
	visible, refused := d.visible(header)
	if refused == nil {
		var names []string
		for _, n := range d.names {
			if visible == nil || visible(n) {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			msg += "; available tools: " + strings.Join(names, ", ")
		}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// codeInvalidToken is the JSON-RPC error code of a listing (tools/list, the
// catalog) sent with a token that does not verify.
const codeInvalidToken = -32001

// visible returns which tools a listing sent with header may show (see
// rollout.Contract.Visible): a nil func for every tool (also when the
// rollout contract is off), or else the JSON-RPC error that refuses the
// listing of a token that was sent but does not verify, which sees no
// tool: code -32001, the text a tool call with it gets, and its
// rollout code and reason as data.
func (d *Door) visible(header http.Header) (func(string) bool, *jsonrpc.Error) {
	if d.calls.contract == nil {
		return nil, nil
	}
	visible, err := d.calls.contract.Visible(header)
	var r *rollout.Refusal
	if !errors.As(err, &r) {
		return visible, nil
	}
	data, _ := json.Marshal(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{r.Code, r.Message}) // strings: cannot fail
	return nil, &jsonrpc.Error{Code: codeInvalidToken, Message: r.Text, Data: data}
}

// narrow returns the tools/list result res with only the tools visible
// reports.
func narrow(res *mcp.ListToolsResult, visible func(string) bool) *mcp.ListToolsResult {
	narrowed := *res
	narrowed.Tools = make([]*mcp.Tool, 0, len(res.Tools))
	for _, t := range res.Tools {
		if visible(t.Name) {
			narrowed.Tools = append(narrowed.Tools, t)
		}
	}
	return &narrowed
}
