// Package call serves one MCP tools/call, the same whichever transport
// carried it: [Pipeline.Call] runs the call's steps in order, from the
// answers an input-required call carries to the result the client gets,
// and records the call in its rollout's ledger. Each step is a file:
// admit.go, ratelimit.go, arguments.go (with restcall.go for a REST
// tool), dispatch.go, result.go (with content.go, image.go, pages.go),
// unforwarded.go.
package call

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/dispatch"
	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/store"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
)

// Settings are what every call of a door needs, whatever its tool, as the
// door's configuration gives them.
type Settings struct {
	Log *slog.Logger
	// Contract is the rollout contract, the admission point of tokens; nil
	// when it is off, and every call is tokenless.
	Contract *rollout.Contract
	Sessions *sessions.Manager
	// Inflight holds the HTTP requests that carry calls (the endpoint's).
	Inflight  *edge.Inflight
	Forward   []string      // mcp.forward_headers, canonical
	MaxBody   int64         // mcp.max_body_bytes
	RateLimit RateLimit     // mcp.rate_limit
	Timeout   time.Duration // mcp.call_timeout; 0: none
	// Stateful and Exclusive are the door's session policy (mcp.stateful,
	// mcp.exclusive), which decides the session of a tokenless call.
	Stateful, Exclusive bool
	// States sign the request states of input-required results.
	States mcpcall.States
	// Span returns ctx, the context a call is dispatched in, with the span
	// of mc and its baggage, where ctx does not carry them already.
	Span func(ctx context.Context, mc *mcpcall.Call) context.Context
}

// A Pipeline serves the tool calls of one door. It is safe for concurrent
// use.
type Pipeline struct {
	Settings
	localSID     string          // the session of tokenless calls that name no other
	byMCPSession *mcpSessionSIDs // stateful doors: each MCP session's tokenless session
	server       *mcp.Server     // whose live sessions byMCPSession keeps
	limiter      *rateLimiter    // nil: no mcp.rate_limit
}

// New returns the pipeline of a door with settings s.
func New(s Settings) *Pipeline {
	return &Pipeline{
		Settings:     s,
		localSID:     rand.Text(),
		byMCPSession: newMCPSessionSIDs(s.Stateful, s.Exclusive),
		limiter:      newRateLimiter(s.RateLimit),
	}
}

// SetServer sets the go-sdk server whose live MCP sessions the pipeline keeps
// the tokenless sessions of; before the first call.
func (p *Pipeline) SetServer(server *mcp.Server) { p.server = server }

// Call serves one tools/call of tool t: req is the call, mc the MCP call as
// the transport that carried it made it (mcpcall.New for the go-sdk's; the
// fast path's own), for the handler's Progress, Log, Elicit, Sample and
// Roots; nil for none. Its steps, in order:
//
//  1. answers: under 2026-07-28, the answers the call carries to its
//     handler's earlier questions; a request state that does not verify
//     refuses the call (internal/mcpcall);
//  2. admit: who calls, in which session; the rollout contract's token
//     checks (admit.go);
//  3. rateLimit: the rate limit of the session, client or server
//     (ratelimit.go);
//  4. arguments: their size, and the tool's input schema (arguments.go,
//     restcall.go);
//  5. dispatch: to the route, directly or replayed through the router,
//     within the call timeout, with the MCP call in its context
//     (dispatch.go);
//  6. answer: the route's answer as an MCP result (result.go), or the
//     questions the handler asked a client of protocol 2026-07-28, or the
//     protocol's error for a call that failed for want of a client
//     capability;
//  7. record: the call in its rollout's execution ledger.
//
// Steps 2 to 4 refuse with an isError result; the route runs only if all
// of them pass. The error, a *jsonrpc.Error, is a protocol error the
// client gets in place of a result.
func (p *Pipeline) Call(ctx context.Context, t *toolset.Tool, req *mcp.CallToolRequest, mc *mcpcall.Call) (*mcp.CallToolResult, error) {
	if err := mc.OpenAnswers(t.Name, p.States); err != nil {
		return nil, err
	}
	who, refused := p.admit(t, req)
	if refused != nil {
		return refused, nil
	}
	if refused := p.rateLimit(t, who); refused != nil {
		return refused, nil
	}
	in, refused := p.arguments(t, req.Params.Arguments)
	if refused != nil {
		return refused, nil
	}
	resp := p.dispatch(ctx, t, who, req, mc, in)
	res, status, err := p.answer(t, req, mc, resp)
	p.record(ctx, t, who, req, mc, status)
	return res, err
}

// answer returns what a call whose route answered resp gets (resp is nil
// when the route did not answer within mcp.call_timeout), and the status
// its ledger records: "ok", "error" or "timeout"; "" for a call not to
// record, whose handler asked the client a question and runs again with
// the answer.
func (p *Pipeline) answer(t *toolset.Tool, req *mcp.CallToolRequest, mc *mcpcall.Call, resp *dispatch.Response) (res *mcp.CallToolResult, status string, err error) {
	if resp == nil {
		return p.timedOut(t), "timeout", nil
	}
	if res, err := mc.InputRequired(t.Name, p.States); res != nil || err != nil {
		if err != nil {
			return nil, "", &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		return res, "", nil
	}
	if err := mc.MissingCapability(t.Name, resp.Status); err != nil {
		return nil, "error", err
	}
	p.pageWarning(t, resp)
	res = Result(t, resp)
	if resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden {
		withUnforwarded(res, p.unforwarded(mcpcall.Header(req)))
	}
	if res.IsError {
		return res, "error", nil
	}
	return res, "ok", nil
}

// toolUseIDKey is the _meta key of Claude Code's own id for a tool call,
// the call_id its trajectory names the call by.
const toolUseIDKey = "claudecode/toolUseId"

// record adds a call the route ran to its rollout session's execution
// ledger (see rollout.Contract.Record), once its result is known (status,
// "" for none): the one place both transports' calls pass. A tokenless
// call is no rollout's, and is not recorded. A failure to record is logged
// (but for a session that ended meanwhile); the call's result stands.
func (p *Pipeline) record(ctx context.Context, t *toolset.Tool, who caller, req *mcp.CallToolRequest, mc *mcpcall.Call, status string) {
	if status == "" || p.Contract == nil || !p.Contract.Ledgered() || !who.token {
		return
	}
	call := rollout.Call{Tool: t.Name, Arguments: rollout.Canonical(req.Params.Arguments), Status: status}
	if mc != nil && len(mc.RPCID) > 0 {
		call.IDs = append(call.IDs, "rpc:"+string(mc.RPCID))
	}
	if id, ok := req.Params.Meta[toolUseIDKey].(string); ok && id != "" {
		call.IDs = append(call.IDs, id)
	}
	if err := p.Contract.Record(context.WithoutCancel(ctx), who.sid, call); err != nil && !errors.Is(err, store.ErrEnded) {
		p.Log.Warn(err.Error(), "tool", t.Name, "sid", who.sid)
	}
}
