// Package sdkserver holds the door's go-sdk server machinery: the bound on
// a JSON-RPC batch in front of its Streamable HTTP handler, and the
// recovery every middleware the door gives the server runs under.
package sdkserver

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/recovery"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
)

// The go-sdk serves each MCP message in a goroutine its jsonrpc2
// connection starts, which nothing recovers: a panic there, in the Door's
// middleware or in anything it calls, would end the process, and net/http's
// recovery of a handler's panic does not reach it. So every middleware the
// Door gives the go-sdk server runs under Recovering, and so does the
// go-sdk's own handling of each method beneath them: a panic becomes the
// JSON-RPC internal error (-32603) of that one request, the details go to
// the log (ERROR), and the server goes on serving. The one goroutine the
// Door starts of its own, besides, recovers alike (see internal/telemetry's
// session watch and internal/call's serveWithin).

// Recovering returns a receiving middleware that turns a panic in next
// into the request's internal error, logged to log (or to the rollout's
// logger of the request's context).
func Recovering(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if v := recover(); v != nil {
					res, err = nil, recovery.Panicked(rollout.Logger(ctx, log), method, v)
				}
			}()
			return next(ctx, method, req)
		}
	}
}

// Recovers returns the middleware m under Recovering(log), as the door
// adds each of its own to the go-sdk server.
func Recovers(log *slog.Logger, m mcp.Middleware) mcp.Middleware {
	recovering := Recovering(log)
	return func(next mcp.MethodHandler) mcp.MethodHandler { return recovering(m(next)) }
}
