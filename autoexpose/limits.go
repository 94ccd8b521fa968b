package autoexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/replay"
)

// The limits a tool call meets, in the order it meets them (CONTRACT.md,
// "tools/list and tools/call"): first the size of the MCP request's body
// (mcp.max_body_bytes; limitBody); after the token checks, the session's rate
// limit (mcp.rate_limit); before argument validation, the size of the
// arguments (mcp.max_body_bytes); around dispatch, the call timeout
// (mcp.call_timeout); after it, the size of the response (mcp.max_body_bytes,
// enforced by package replay's recorder).

// limitBody answers an MCP request whose body is over mcp.max_body_bytes
// with HTTP 413 and a JSON-RPC error that names the limit, in place of the
// SDK's plain-text 413: a client reads it as the failure of that one call
// (the go-sdk client keeps its session, where a plain-text 413 ends it).
// The error carries the request's id when the body gives it early (the
// go-sdk client writes it first), and null otherwise.
//
// It reads at most the limit, as the SDK would. A body without a
// Content-Length (chunked) is read here, within the limit, and handed on.
func (d *Door) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || (r.ContentLength >= 0 && r.ContentLength <= d.maxBody) {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, d.maxBody))
		var mbe *http.MaxBytesError
		switch {
		case err == nil:
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			next.ServeHTTP(w, r)
		case errors.As(err, &mbe):
			writeRPCError(w, http.StatusRequestEntityTooLarge, leadingID(body), jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("request body exceeds the %d-byte limit (mcp.max_body_bytes)", d.maxBody))
		default:
			http.Error(w, "failed to read body", http.StatusBadRequest) // as the SDK says it
		}
	})
}

// leadingID returns the "id" of the JSON-RPC request that body starts, when
// it comes within the first few kilobytes, or nil (writeRPCError then
// answers null, as it does for an id that is not a string or a number).
func leadingID(body []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(body[:min(len(body), 16<<10)]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key == "id" {
			return v
		}
	}
	return nil
}

// rateLimited returns the isError result refusing a call from session sid
// over its rate limit, or nil when the call may go on.
func (d *Door) rateLimited(t *tool, sid string) *mcp.CallToolResult {
	if d.limiter == nil {
		return nil
	}
	ok, wait := d.limiter.allow(sid)
	if ok {
		return nil
	}
	wait = retryHint(wait)
	return t.fail(fmt.Sprintf("Rate limit exceeded for this session; retry in %s.", wait),
		ErrorInfo{
			Code:         "rate_limited",
			Message:      "the session has made more calls than mcp.rate_limit allows",
			Status:       http.StatusTooManyRequests,
			Effect:       EffectNotApplied,
			RetryAfterMs: wait.Milliseconds(),
		})
}

// tooLarge returns the isError result refusing arguments over
// mcp.max_body_bytes, or nil. Over HTTP the MCP request's own body limit
// (the same number) answers first, with 413; this holds for transports
// without one, and for requests that carry little besides the arguments.
func (d *Door) tooLarge(t *tool, args []byte) *mcp.CallToolResult {
	if int64(len(args)) <= d.maxBody {
		return nil
	}
	return t.fail(
		fmt.Sprintf("Arguments to POST %s are %d bytes, over the %d-byte limit (mcp.max_body_bytes).", t.path, len(args), d.maxBody),
		ErrorInfo{
			Code:    "request_too_large",
			Message: fmt.Sprintf("the arguments exceed %d bytes", d.maxBody),
			Status:  http.StatusRequestEntityTooLarge,
			Effect:  EffectNotApplied,
		})
}

// dispatch serves c with t's dispatcher, within mcp.call_timeout when one is
// set. It returns nil when the call timed out: when the handler had not
// returned by the deadline.
//
// At the deadline the handler's context is cancelled and dispatch returns at
// once, whether or not the handler has. A handler that ignores its context
// goes on running on its own goroutine until it returns; nothing reads what
// it writes (its recorder belongs to that goroutine alone, so there is no
// race between its late writes and the result), and a late panic is still
// logged.
func (d *Door) dispatch(ctx context.Context, t *tool, c *replay.Call) *replay.Response {
	if d.callTimeout <= 0 {
		return d.serve(ctx, t, c)
	}
	deadline := time.Now().Add(d.callTimeout)
	ctx, cancel := context.WithDeadlineCause(ctx, deadline, errCallTimeout)
	defer cancel()
	type outcome struct {
		resp *replay.Response
		late bool // the handler returned after the deadline
	}
	done := make(chan outcome, 1) // the goroutine never blocks on it
	go func() {
		resp := d.serve(ctx, t, c)
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
	d.logger(ctx).Warn("mcpdoor: tool call timed out; its handler may still be running", "tool", t.Name, "route", t.Route, "timeout", d.callTimeout)
	return nil
}

// errCallTimeout is the cause of a dispatched handler's context ending at
// mcp.call_timeout; its Err is context.DeadlineExceeded.
var errCallTimeout = errors.New("autoexpose: mcp.call_timeout reached")

// serve runs one dispatch and logs a handler's panic.
func (d *Door) serve(ctx context.Context, t *tool, c *replay.Call) *replay.Response {
	resp := t.dispatcher.Dispatch(ctx, c)
	if resp.Panic != nil {
		d.logger(ctx).Error("mcpdoor: handler panicked", "tool", t.Name, "route", t.Route, "panic", resp.Panic, "stack", string(resp.Stack))
	}
	return resp
}

// timedOut is the isError result of a call that hit mcp.call_timeout.
func (d *Door) timedOut(t *tool) *mcp.CallToolResult {
	effect := EffectUnknown
	if t.readOnly() {
		effect = EffectNotApplied
	}
	return t.fail(fmt.Sprintf("POST %s timed out after %s.", t.path, d.callTimeout),
		ErrorInfo{
			Code:    "timeout",
			Message: fmt.Sprintf("the handler did not answer within %s (mcp.call_timeout); it may still be running", d.callTimeout),
			Status:  http.StatusGatewayTimeout,
			Effect:  effect,
		})
}
