package call

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/argcheck"
	"github.com/mcpdoor/mcpdoor/internal/dispatch"
	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
)

// dispatch sends a call's arguments to the tool's route, as the request
// body (for a REST tool, the request arguments made), and returns what the
// route answered; nil when it did not answer within mcp.call_timeout.
//
// The request is what the HTTP door would get from the same client: POST
// /<tool> (a REST tool's method and path), Content-Type application/json
// with a body, the forwarded headers (mcp.forward_headers), and the Host,
// RemoteAddr and TLS of the MCP request. Its context carries the caller's
// session (in place of any the MCP request's context held), the caller's
// rollout id (its token's, else that of the /ng-rollout/ prefix it came
// under), the MCP call mc (for Progress, Log, Elicit and Sample) and the
// call's span (internal/telemetry), and it ends when the client cancels the call or goes away, or the door
// closes.
func (p *Pipeline) dispatch(ctx context.Context, t *toolset.Tool, who caller, req *mcp.CallToolRequest, mc *mcpcall.Call, in input) *dispatch.Response {
	rc := in.call
	if rc == nil {
		rc = &dispatch.Call{Path: t.Path}
	}
	// The dispatcher adds Content-Type application/json to a body.
	rc.Body, rc.Header, rc.Host = in.body, forward(mcpcall.Header(req), p.Forward), "localhost"
	if who.req != nil {
		rc.Host, rc.RemoteAddr, rc.TLS = who.req.Host, who.req.RemoteAddr, who.req.TLS
		// The fast path calls with the request's own context, which has all
		// this already.
		if ctx != who.req.Context() {
			// The tool's context ends with the SDK's request; make it end
			// with the client's connection too.
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(who.req.Context(), cancel)()
		}
	}
	// Over the prefix's id, which the fast path's context carries.
	ctx = rollout.NewContext(ctx, who.rollout)
	// A session middleware on a replayed route keeps the session its
	// request's context carries; a direct call skips the middleware, and
	// gets what it would have put there. It is the session the Door read
	// for the MCP request, when it is the call's.
	from := ctx
	if who.req != nil {
		from = who.req.Context()
	}
	ctx = p.Sessions.ForCall(ctx, from, who.sid, who.token)
	ctx = mcpcall.With(ctx, mc)
	if p.Span != nil {
		ctx = p.Span(ctx, mc)
	}
	if t.Checked != nil {
		ctx = argcheck.WithChecked(ctx, t.Checked, in.body)
	}
	if p.Timeout <= 0 {
		return p.serve(ctx, t, rc)
	}
	return p.serveWithin(ctx, t, rc)
}

// serveWithin serves rc within mcp.call_timeout. It returns nil when the
// call timed out: when the handler had not returned by the deadline.
//
// At the deadline the handler's context is cancelled and serveWithin
// returns at once, whether or not the handler has. A handler that ignores
// its context goes on running on its own goroutine until it returns;
// nothing reads what it writes (its recorder belongs to that goroutine
// alone, so there is no race between its late writes and the result), and a
// late panic is still logged.
func (p *Pipeline) serveWithin(ctx context.Context, t *toolset.Tool, rc *dispatch.Call) *dispatch.Response {
	deadline := time.Now().Add(p.Timeout)
	ctx, cancel := context.WithDeadlineCause(ctx, deadline, errCallTimeout)
	defer cancel()
	type outcome struct {
		resp *dispatch.Response
		late bool // the handler returned after the deadline
	}
	done := make(chan outcome, 1) // the goroutine never blocks on it
	go func() {
		resp := p.serve(ctx, t, rc)
		done <- outcome{resp, context.Cause(ctx) == errCallTimeout}
	}()
	select {
	case o := <-done:
		if !o.late {
			return o.resp
		}
	case <-ctx.Done():
		// Returning only once ctx has ended makes sure the handler sees the
		// deadline (context.DeadlineExceeded), not our cancel.
		if context.Cause(ctx) == errCallTimeout {
			select {
			case o := <-done: // an answer that made it in time
				if !o.late {
					return o.resp
				}
			default:
			}
			break
		}
		// The client went away first. The handler, told so, still gets
		// until the deadline to answer, as it would without a timeout.
		timer := time.NewTimer(time.Until(deadline))
		defer timer.Stop()
		select {
		case o := <-done:
			return o.resp
		case <-timer.C:
		}
	}
	rollout.Logger(ctx, p.Log).Warn("mcpdoor: tool call timed out; its handler may still be running", "tool", t.Name, "route", t.Route, "timeout", p.Timeout)
	return nil
}

// errCallTimeout is the cause of a dispatched handler's context ending at
// mcp.call_timeout; its Err is context.DeadlineExceeded.
var errCallTimeout = errors.New("mcpdoor: mcp.call_timeout reached")

// serve runs one dispatch and logs a handler's panic, or one of the
// dispatch's own: serveWithin runs it on a goroutine of its own, which
// nothing else recovers.
func (p *Pipeline) serve(ctx context.Context, t *toolset.Tool, rc *dispatch.Call) (resp *dispatch.Response) {
	defer func() {
		if v := recover(); v != nil {
			resp = dispatch.Panicked(v)
		}
		if resp.Panic != nil {
			rollout.Logger(ctx, p.Log).Error("mcpdoor: handler panicked", "tool", t.Name, "route", t.Route, "panic", resp.Panic, "stack", string(resp.Stack))
		}
	}()
	return t.Dispatcher.Dispatch(ctx, rc)
}

// timedOut is the isError result of a call that hit mcp.call_timeout.
func (p *Pipeline) timedOut(t *toolset.Tool) *mcp.CallToolResult {
	effect := toolset.EffectUnknown
	if t.ReadOnly() {
		effect = toolset.EffectNotApplied
	}
	return t.Fail(fmt.Sprintf("%s timed out after %s.", t.Request, p.Timeout),
		toolset.ErrorInfo{
			Code:    toolset.CodeTimeout,
			Message: fmt.Sprintf("the handler did not answer within %s (mcp.call_timeout); it may still be running", p.Timeout),
			Status:  http.StatusGatewayTimeout,
			Effect:  effect,
		})
}

// forward returns the configured headers of the MCP request, as the
// header of the dispatched request; nil when it has none of them.
func forward(from http.Header, names []string) http.Header {
	var h http.Header
	for _, name := range names {
		if v := from.Values(name); len(v) > 0 {
			if h == nil {
				h = make(http.Header, 1+len(names)) // room for the dispatcher's Content-Type
			}
			h[name] = v
		}
	}
	return h
}
