package autoexpose

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newServer builds the go-sdk server: one low-level tool per exposed tool,
// and the catalog resource, behind the middleware that answers unknown
// tools.
func (d *Door) newServer() *mcp.Server {
	d.impl = &mcp.Implementation{Name: d.name, Version: version()}
	d.serverInfo, _ = json.Marshal(mcp.Meta{mcp.MetaKeyServerInfo: d.impl}) // cannot fail: strings
	s := mcp.NewServer(d.impl, nil)
	for _, name := range d.names {
		t := d.tools[name]
		s.AddTool(t.mcpTool(), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return d.calls.callMCP(ctx, t, req)
		})
	}
	if d.catalog != nil {
		d.addCatalog(s)
	}
	s.AddReceivingMiddleware(d.middleware)
	return s
}

// transport serves the Streamable HTTP transport: stateless, or with
// sessions that close after idle_timeout without a request (see endpoint.go).
func (d *Door) transport(m *MCPConfig) http.Handler {
	opts := &mcp.StreamableHTTPOptions{
		Stateless:           !m.stateful(),
		MaxRequestBodyBytes: m.maxBodyBytes(),
		// The guard (guard.go) checks Host, with mcp.allowed_hosts.
		DisableLocalhostProtection: true,
	}
	if m.stateful() {
		opts.SessionTimeout = m.idleTimeout()
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return d.server }, opts)
}

// middleware answers a call to an unknown tool with the JSON-RPC error the
// MCP spec gives (-32602), naming the tools there are, counts the requests
// an exclusive session is handling (see slot), narrows tools/list
// to what the caller's token allows, and refuses a server/discover for a
// protocol version the transport cannot serve (see discover).
func (d *Door) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if d.slot != nil {
			// The exclusive session is not taken over while it runs a call.
			if ss := req.GetSession(); ss != nil {
				defer d.slot.serving(ss.ID())()
			}
		}
		switch method {
		case "server/discover":
			return discover(ctx, next, method, req)
		case "tools/call":
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				if _, known := d.tools[p.Name]; !known {
					return nil, d.unknownTool(p.Name)
				}
			}
		case "tools/list":
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				return d.listFor(headerOf(req), list), nil
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// discover answers a server/discover whose protocol version the session's
// transport does not serve with the spec's UnsupportedProtocolVersionError,
// listing the versions it does serve, where the go-sdk answers success.
//
// A stateful Streamable HTTP transport serves only the versions negotiated
// by initialize (up to 2025-11-25), and refuses every later request of the
// 2026-07-28 protocol; a client that took a successful discover as final
// (mcp-go's does) would then fail on every request. With the error, clients
// fall back to initialize, as the spec asks. The versions are those the
// go-sdk's own discover result lists, which it has already narrowed to what
// the transport serves.
func discover(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	found, ok := res.(*mcp.DiscoverResult)
	if err != nil || !ok {
		return res, err
	}
	asked, _ := req.(interface{ ProtocolVersion() string })
	if asked == nil || asked.ProtocolVersion() == "" || slices.Contains(found.SupportedVersions, asked.ProtocolVersion()) {
		return res, nil
	}
	data, err := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: found.SupportedVersions, Requested: asked.ProtocolVersion()})
	if err != nil {
		return nil, err
	}
	return nil, &jsonrpc.Error{
		Code:    mcp.CodeUnsupportedProtocolVersion,
		Message: fmt.Sprintf("protocol version %q is not supported by this server", asked.ProtocolVersion()),
		Data:    data,
	}
}

func (d *Door) unknownTool(name string) error {
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("unknown tool %q; available tools: %s", name, strings.Join(d.names, ", ")),
	}
}

// listFor narrows a tools/list result to what the caller's session token
// allows (see rollout.Contract.Visible): no token, or an invalid one, sees
// every tool.
func (d *Door) listFor(header http.Header, res *mcp.ListToolsResult) *mcp.ListToolsResult {
	if d.calls.contract == nil {
		return res
	}
	visible := d.calls.contract.Visible(header)
	if visible == nil {
		return res
	}
	narrowed := *res
	narrowed.Tools = make([]*mcp.Tool, 0, len(res.Tools))
	for _, t := range res.Tools {
		if visible(t.Name) {
			narrowed.Tools = append(narrowed.Tools, t)
		}
	}
	return &narrowed
}
