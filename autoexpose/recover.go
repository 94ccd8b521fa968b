package autoexpose

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/recovery"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
)

// The go-sdk serves each MCP message in a goroutine its jsonrpc2
// connection starts, which nothing recovers: a panic there, in the Door's
// middleware or in anything it calls, would end the process, and net/http's
// recovery of a handler's panic does not reach it. So every middleware the
// Door gives the go-sdk server runs under recovering, and so does the
// go-sdk's own handling of each method beneath them: a panic becomes the
// JSON-RPC internal error (-32603) of that one request, the details go to
// the log (ERROR), and the server goes on serving. The one goroutine the
// Door starts of its own, besides, recovers alike (see internal/telemetry's
// session watch and calls.serveWithin).

// recovering is a receiving middleware that turns a panic in next into the
// request's internal error.
func (d *Door) recovering(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				res, err = nil, recovery.Panicked(rollout.Logger(ctx, d.log), method, v)
			}
		}()
		return next(ctx, method, req)
	}
}

// recovers is the middleware m under recovering, as the Door adds each of
// its own to the go-sdk server.
func (d *Door) recovers(m mcp.Middleware) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler { return d.recovering(m(next)) }
}
