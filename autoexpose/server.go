package autoexpose

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newServer builds the go-sdk server: one low-level tool per exposed tool,
// behind the middleware that answers unknown tools.
func (d *Door) newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: d.name, Version: version()}, nil)
	for _, name := range d.names {
		t := d.tools[name]
		s.AddTool(t.mcpTool(), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return d.call(ctx, t, req), nil
		})
	}
	s.AddReceivingMiddleware(d.middleware)
	return s
}

// newHandler serves the Streamable HTTP transport: stateless, or with
// sessions that close after idle_timeout without a request (see policy.go).
func (d *Door) newHandler(m *MCPConfig) http.Handler {
	opts := &mcp.StreamableHTTPOptions{
		Stateless:           !m.stateful(),
		MaxRequestBodyBytes: m.maxBodyBytes(),
		// The guard (origin.go) checks Host, with mcp.allowed_hosts.
		DisableLocalhostProtection: true,
	}
	if m.stateful() {
		opts.SessionTimeout = m.idleTimeout()
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return d.server }, opts)
}

// middleware answers a call to an unknown tool with the JSON-RPC error the
// MCP spec gives (-32602), naming the tools there are, and narrows
// tools/list to what the caller's token allows.
func (d *Door) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
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

func (d *Door) unknownTool(name string) error {
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("unknown tool %q; available tools: %s", name, strings.Join(d.names, ", ")),
	}
}
