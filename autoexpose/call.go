package autoexpose

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/replay"
	"github.com/mcpdoor/mcpdoor/session"
)

// call serves one tools/call: admit the caller, apply the limits (see
// limits.go), validate the arguments, dispatch them to the tool's route in
// the caller's session, and map the response.
func (d *Door) call(ctx context.Context, t *tool, req *mcp.CallToolRequest) *mcp.CallToolResult {
	header := headerOf(req)
	httpReq := d.inflight.lookup(header)
	who, refused := d.admit(t, header, httpReq)
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

	c := &replay.Call{Path: t.path, Body: args, Header: make(http.Header, 2+len(d.forward)), Host: "localhost"}
	c.Header.Set("Content-Type", "application/json")
	forward(c.Header, header, d.forward)
	if httpReq != nil {
		c.Host, c.RemoteAddr, c.TLS = httpReq.Host, httpReq.RemoteAddr, httpReq.TLS
		ctx = withRolloutID(ctx, rolloutIDFrom(httpReq.Context())) // a call made under the rollout prefix
		// The tool's context ends with the SDK's request; make it end with
		// the client's connection too.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(httpReq.Context(), cancel)()
	}
	if cookie, err := d.sessions.Cookie(who.sid); err == nil {
		c.Header.Add("Cookie", cookie.Name+"="+cookie.Value)
	}
	if t.direct && t.session {
		ctx = session.NewContext(ctx, who.sid)
	}
	ctx = withMCPCall(ctx, req, t.Name)

	resp := d.dispatch(ctx, t, c)
	if resp == nil {
		return d.timedOut(t)
	}
	return t.result(resp)
}

// sessionOf returns the session a tokenless call runs in: the one the MCP
// request carries — put in its context by a session middleware in front of
// the endpoint, or named by its session cookie — or else the door's local
// session.
func (d *Door) sessionOf(httpReq *http.Request) string {
	if httpReq != nil {
		if sid, ok := session.FromContext(httpReq.Context()); ok {
			return sid
		}
		if sid, err := d.sessions.Read(httpReq); err == nil {
			return sid
		}
	}
	return d.localSID
}
