package autoexpose

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
)

// TestExclusiveBody: the 409's body for each kind of request id, and the
// idle timeout as the config writes it, for a client of another rollout
// (here: another rollout's token, while the holder has its own).
func TestExclusiveBody(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
	door, err := Install(r, enabled(MCPConfig{Exclusive: true, IdleTimeout: 1500 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	tok, other := mint(t, door, "rollout-a", nil), mint(t, door, "rollout-b", nil)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if w := serveReq(r, "POST", "/mcp", initialize, rollout.DefaultTokenHeader, tok); w.Code != 200 {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	const msg = "this MCP server is exclusive and another session is live; retry once that session ends " +
		"(its client sends DELETE with its Mcp-Session-Id) or has been idle for 1.5s (mcp.idle_timeout). " +
		"The same rollout (the same X-NeMo-Gym-Session-Token, or the same session cookie) may reconnect at any time: " +
		"it takes the session over unless one of its calls is running"
	for _, c := range []struct{ body, id string }{
		{`{"jsonrpc":"2.0","id":42,"method":"initialize"}`, "42"},
		{`{"jsonrpc":"2.0","id":-1.5e3,"method":"initialize"}`, "-1.5e3"},
		{`{"jsonrpc":"2.0","id":"a\"b","method":"ping"}`, `"a\"b"`},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, "null"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, "null"},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`, "null"},
		{`not json`, "null"},
	} {
		t.Run(c.body, func(t *testing.T) {
			w := serveReq(r, "POST", "/mcp", c.body, rollout.DefaultTokenHeader, other)
			want := `{"jsonrpc":"2.0","id":` + c.id + `,"error":{"code":-32000,"message":"` + msg + `"}}`
			if w.Code != http.StatusConflict || w.Header().Get("Content-Type") != "application/json" || w.Body.String() != want {
				t.Errorf("got %d %q %s\nwant 409 application/json %s", w.Code, w.Header().Get("Content-Type"), w.Body, want)
			}
		})
	}
}

// TestIdentity: who a POST that may open a session comes from.
func TestIdentity(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
	door, err := Install(r, enabled(MCPConfig{Exclusive: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	tok := mint(t, door, "rollout-a", nil)
	cookie, _ := door.calls.sessions.Cookie("cookie-session")
	for _, c := range []struct {
		name      string
		token     string
		cookie    *http.Cookie
		want      string
		wantToken bool
	}{
		{"token", tok, nil, "rollout-a", true},
		{"token and cookie", tok, cookie, "rollout-a", true},
		{"cookie", "", cookie, "cookie-session", false},
		{"neither", "", nil, door.calls.pipe.LocalSID(), false},
		{"invalid token", "garbage", nil, "", false},
		{"invalid token and cookie", "garbage", cookie, "", false},
		{"forged cookie", "", &http.Cookie{Name: cookie.Name, Value: "forged"}, door.calls.pipe.LocalSID(), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/mcp", nil)
			if c.token != "" {
				req.Header.Set(rollout.DefaultTokenHeader, c.token)
			}
			if c.cookie != nil {
				req.AddCookie(c.cookie)
			}
			if got, token := door.calls.identity(req); got != c.want || token != c.wantToken {
				t.Errorf("identity %q (a valid token: %v), want %q (%v)", got, token, c.want, c.wantToken)
			}
		})
	}
}

// TestExclusiveFailedInitialize: an initialize that fails does not keep the
// slot.
func TestExclusiveFailedInitialize(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
	door, err := Install(r, enabled(MCPConfig{Exclusive: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	tok := mint(t, door, "rollout-a", nil)
	const both = "application/json, text/event-stream"
	for _, c := range []struct {
		name, accept, body string
		status             int
		want               string
	}{
		{"bad params", both, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":"x"}`, 200,
			`{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"handling 'initialize': unmarshaling \"\\\"x\\\"\" into a *mcp.initializeParamsV2: json: cannot unmarshal \"\\\"x\\\"\" into Go value of type mcp.initializeParamsV2"}}`},
		{"bad Accept", "application/json", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, 400,
			"Accept must contain both 'application/json' and 'text/event-stream'\n"},
		{"no params", both, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, 400,
			"invalid request: missing required \"params\"\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := serveReq(r, "POST", "/mcp", c.body, "Accept", c.accept, rollout.DefaultTokenHeader, tok)
			if w.Code != c.status || w.Body.String() != c.want {
				t.Errorf("got %d %q\nwant %d %q", w.Code, w.Body, c.status, c.want)
			}
			if sid := w.Header().Get(edge.SessionIDHeader); sid != "" && door.live(sid) {
				t.Errorf("the failed initialize's session %s is live", sid)
			}
		})
	}
	w := serveReq(r, "POST", "/mcp", `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, rollout.DefaultTokenHeader, tok)
	if w.Code != http.StatusOK || w.Header().Get(edge.SessionIDHeader) == "" {
		t.Errorf("initialize after the failed ones: %d %s", w.Code, w.Body)
	}
}

// TestExclusiveNotificationIsNoCall: the holder's session is taken over
// while it handles a notification, but not while it handles a request.
// A notification's POST is answered 202 before the notification is handled,
// so its client cannot wait for that to end, and nothing it waits for is
// cut off; a request is a call its client waits for.
func TestExclusiveNotificationIsNoCall(t *testing.T) {
	for _, c := range []struct {
		method string
		req    mcp.Request
		want   int
	}{
		{"notifications/initialized", &mcp.InitializedRequest{Params: &mcp.InitializedParams{}}, http.StatusOK},
		{"ping", &mcp.ServerRequest[*mcp.PingParams]{Params: &mcp.PingParams{}}, http.StatusConflict},
	} {
		t.Run(c.method, func(t *testing.T) {
			r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
			door, err := Install(r, enabled(MCPConfig{Exclusive: true}))
			if err != nil {
				t.Fatal(err)
			}
			defer door.Close()
			tok := mint(t, door, "rollout-a", nil)
			const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
			w := serveReq(r, "POST", "/mcp", initialize, rollout.DefaultTokenHeader, tok)
			sid := w.Header().Get(edge.SessionIDHeader)
			if w.Code != http.StatusOK || sid == "" {
				t.Fatalf("initialize: %d %s", w.Code, w.Body)
			}
			for ss := range door.server.Sessions() {
				if ss.ID() == sid {
					switch req := c.req.(type) {
					case *mcp.InitializedRequest:
						req.Session = ss
					case *mcp.ServerRequest[*mcp.PingParams]:
						req.Session = ss
					}
				}
			}
			// The holder's session handles c.method until release.
			entered, release, handled := make(chan struct{}), make(chan struct{}), make(chan struct{})
			go func() {
				defer close(handled)
				door.middleware(func(context.Context, string, mcp.Request) (mcp.Result, error) {
					close(entered)
					<-release
					return nil, nil
				})(context.Background(), c.method, c.req)
			}()
			<-entered
			w = serveReq(r, "POST", "/mcp", strings.Replace(initialize, `"id":1`, `"id":2`, 1), rollout.DefaultTokenHeader, tok)
			close(release)
			<-handled
			if w.Code != c.want {
				t.Errorf("the same rollout's initialize while the session handles %s: %d %s, want %d", c.method, w.Code, w.Body, c.want)
			}
		})
	}
}
