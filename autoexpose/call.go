package autoexpose

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/store"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
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
	inflight     edge.Inflight   // the HTTP requests carrying calls
	forward      []string        // mcp.forward_headers, canonical
	maxBody      int64           // mcp.max_body_bytes
	limiter      *rateLimiter    // nil: no mcp.rate_limit
	timeout      time.Duration   // mcp.call_timeout; 0: none
	stateless    bool            // the transport is stateless Streamable HTTP
	slots        *callSlots      // mcp.max_concurrent_calls, for the go-sdk's calls
	states       mcpcall.States  // sign the request states of input-required results
}

// call serves one tools/call, a step a file:
//
//  1. under 2026-07-28, the answers the call carries to its handler's
//     earlier questions: a request state that does not verify refuses the
//     call (internal/mcpcall input.go);
//  2. admit: who calls, in which session; the rollout contract's token
//     checks (admit.go);
//  3. the rate limit of the session, client or server (ratelimit.go);
//  4. the arguments: their size, and the tool's input schema (arguments.go);
//  5. dispatch to the route, directly or replayed through the router,
//     within the call timeout (dispatch.go), with the MCP call in its
//     context (internal/mcpcall);
//  6. the route's answer as an MCP result (result.go), or the questions
//     the handler asked a client of protocol 2026-07-28, or the protocol's
//     error for a call that failed for want of a client capability
//     (internal/mcpcall input.go).
//
// Steps 2 to 4 refuse with an isError result (errors.go); the route runs
// only if all of them pass. The error, a *jsonrpc.Error, is a protocol
// error the client gets in place of a result. mc is the MCP call as the
// transport that carried it made it (mcpcall.New for the go-sdk's,
// fastpath.go for the fast path's), for the handler's Progress, Log,
// Elicit, Sample and Roots; nil for none.
func (c *calls) call(ctx context.Context, t *toolset.Tool, req *mcp.CallToolRequest, mc *mcpcall.Call) (*mcp.CallToolResult, error) {
	if err := mc.OpenAnswers(t.Name, c.states); err != nil {
		return nil, err
	}
	who, refused := c.admit(t, req)
	if refused != nil {
		return refused, nil
	}
	if refused := c.rateLimit(t, who); refused != nil {
		return refused, nil
	}
	in, refused := c.arguments(t, req.Params.Arguments)
	if refused != nil {
		return refused, nil
	}
	resp := c.dispatch(ctx, t, who, req, mc, in)
	if resp == nil {
		c.record(ctx, t, who, req, mc, "timeout")
		return c.timedOut(t), nil
	}
	if res, err := mc.InputRequired(t.Name, c.states); res != nil || err != nil {
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		return res, nil // the handler asked the client; it runs again with the answers
	}
	if err := mc.MissingCapability(t.Name, resp.Status); err != nil {
		c.record(ctx, t, who, req, mc, "error")
		return nil, err
	}
	c.pageWarning(t, resp)
	res := toolResult(t, resp)
	if resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden {
		withUnforwarded(res, c.unforwarded(headerOf(req)))
	}
	status := "ok"
	if res.IsError {
		status = "error"
	}
	c.record(ctx, t, who, req, mc, status)
	return res, nil
}

// toolUseIDKey is the _meta key of Claude Code's own id for a tool call,
// the call_id its trajectory names the call by.
const toolUseIDKey = "claudecode/toolUseId"

// record adds a call the route ran to its rollout session's execution
// ledger (see rollout.Contract.Record), once its result is known: the one
// place both transports' calls pass. A tokenless call is no rollout's, and
// is not recorded. A failure to record is logged (but for a session that
// ended meanwhile); the call's result stands.
func (c *calls) record(ctx context.Context, t *toolset.Tool, who caller, req *mcp.CallToolRequest, mc *mcpcall.Call, status string) {
	if c.contract == nil || !c.contract.Ledgered() || !who.token {
		return
	}
	call := rollout.Call{Tool: t.Name, Arguments: rollout.Canonical(req.Params.Arguments), Status: status}
	if mc != nil && len(mc.RPCID) > 0 {
		call.IDs = append(call.IDs, "rpc:"+string(mc.RPCID))
	}
	if id, ok := req.Params.Meta[toolUseIDKey].(string); ok && id != "" {
		call.IDs = append(call.IDs, id)
	}
	if err := c.contract.Record(context.WithoutCancel(ctx), who.sid, call); err != nil && !errors.Is(err, store.ErrEnded) {
		c.log.Warn(err.Error(), "tool", t.Name, "sid", who.sid)
	}
}
