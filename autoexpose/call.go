package autoexpose

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
)

// calls holds what every tool call needs, whatever its tool.
type calls struct {
	log *slog.Logger
	// contract is the rollout contract, the admission point of tokens; nil
	// when it is off, and every call is tokenless.
	contract     *rollout.Contract
	sessions     *sessions.Manager
	localSID     string          // the session of tokenless calls that name no other
	byMCPSession *mcpSessionSIDs // stateful doors: each MCP session's tokenless session
	server       *mcp.Server     // whose live sessions byMCPSession keeps
	inflight     inflight        // the HTTP requests carrying calls
	forward      []string        // mcp.forward_headers, canonical
	maxBody      int64           // mcp.max_body_bytes
	limiter      *rateLimiter    // nil: no mcp.rate_limit
	timeout      time.Duration   // mcp.call_timeout; 0: none
	stateless    bool            // the transport is stateless Streamable HTTP
	slots        *callSlots      // mcp.max_concurrent_calls, for the go-sdk's calls
}

// call serves one tools/call, a step a file:
//
//  1. admit: who calls, in which session; the rollout contract's token
//     checks (admit.go);
//  2. the rate limit of the session, client or server (ratelimit.go);
//  3. the arguments: their size, and the tool's input schema (arguments.go);
//  4. dispatch to the route, directly or replayed through the router,
//     within the call timeout (dispatch.go), with the MCP call in its
//     context (progress.go, client.go);
//  5. the route's answer as an MCP result (result.go), or the questions
//     the handler asked a client of protocol 2026-07-28 (input.go).
//
// Each step refuses with an isError result (errors.go); the route runs only
// if all of them pass. mc is the MCP call as the transport that carried it
// made it (newMCPCall for the go-sdk's, fastpath.go for the fast path's),
// for the handler's Progress, Log, Elicit and Sample; nil for none.
func (c *calls) call(ctx context.Context, t *tool, req *mcp.CallToolRequest, mc *mcpCall) *mcp.CallToolResult {
	who, refused := c.admit(t, req)
	if refused != nil {
		return refused
	}
	if refused := c.rateLimit(t, who); refused != nil {
		return refused
	}
	in, refused := c.arguments(t, req.Params.Arguments)
	if refused != nil {
		return refused
	}
	resp := c.dispatch(ctx, t, who, req, mc, in)
	if resp == nil {
		return c.timedOut(t)
	}
	if res := mc.inputRequired(); res != nil {
		return res // the handler asked the client; it runs again with the answers
	}
	c.pageWarning(t, resp)
	res := t.result(resp)
	if resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden {
		withUnforwarded(res, c.unforwarded(headerOf(req)))
	}
	return res
}
