package autoexpose

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/replay"
	"github.com/mcpdoor/mcpdoor/session"
)

// call serves one tools/call: identify the caller (identity.go: the token
// checks, and the session the call runs in), apply the limits (see
// limits.go), validate the arguments, dispatch them to the tool's route in
// the caller's session, and map the response.
func (d *Door) call(ctx context.Context, t *tool, req *mcp.CallToolRequest) *mcp.CallToolResult {
	who, refused := d.identify(t, req)
	if refused != nil {
		return refused
	}
	if limited := d.rateLimited(t, who.sid); limited != nil {
		return limited
	}

	args := []byte(req.Params.Arguments)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}") // MCP clients omit the arguments of a tool that takes none
	}
	if big := d.tooLarge(t, args); big != nil {
		return big
	}
	if ae := t.checkArgs(args); ae != nil {
		body := ae.body()
		return t.fail(
			fmt.Sprintf("HTTP %d from POST %s: %s", http.StatusUnprocessableEntity, t.path, body),
			ErrorInfo{Code: statusCode(http.StatusUnprocessableEntity), Message: string(body), Status: http.StatusUnprocessableEntity, Effect: EffectNotApplied})
	}

	c := &replay.Call{Path: t.path, Body: args, Header: make(http.Header, 1+len(d.forward)), Host: "localhost"}
	c.Header.Set("Content-Type", "application/json")
	forward(c.Header, headerOf(req), d.forward)
	if who.req != nil {
		c.Host, c.RemoteAddr, c.TLS = who.req.Host, who.req.RemoteAddr, who.req.TLS
		ctx = withRolloutID(ctx, rolloutIDFrom(who.req.Context())) // a call made under the rollout prefix
		// The tool's context ends with the SDK's request; make it end with
		// the client's connection too.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(who.req.Context(), cancel)()
	}
	// The call runs in the caller's session, in place of any session the
	// context holds (a session middleware in front of the endpoint put the
	// endpoint request's own there). A session middleware on a replayed
	// route keeps the session its request's context carries; a direct call
	// skips the middleware, and gets what it would have put there.
	ctx = session.NewContext(ctx, who.sid)
	ctx = withMCPCall(ctx, req, t.Name)

	resp := d.dispatch(ctx, t, c)
	if resp == nil {
		return d.timedOut(t)
	}
	return t.result(resp)
}
