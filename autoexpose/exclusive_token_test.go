package autoexpose

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
)

// withHeader sends header on every request.
type withHeader struct{ header http.Header }

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.header {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// dialMCP connects a go-sdk client to the MCP endpoint at url, with header
// on every request; the session closes when the test ends.
func dialMCP(t *testing.T, url string, header http.Header) (*mcp.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:             url,
		HTTPClient:           &http.Client{Transport: withHeader{header}, Timeout: 30 * time.Second},
		DisableStandaloneSSE: true,
	}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// exclusiveServer serves, on a real listener, an exclusive rollout server
// with one tool, /t, whose tokenless calls tokenless allows.
func exclusiveServer(t *testing.T, tokenless bool) (*Door, *httptest.Server) {
	t.Helper()
	r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
	m := MCPConfig{Exclusive: true, SessionSecret: []string{"a test secret of at least thirty-two bytes"}}
	m.Rollout.AllowTokenless = tokenless
	door, err := Install(r, enabled(m))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(r)
	t.Cleanup(func() {
		door.Close()
		srv.Close()
	})
	return door, srv
}

// postMCP sends body to the MCP endpoint at url without a session, with
// the token header set to tok unless it is "", and returns the status, the
// Content-Type and the body.
func postMCP(t *testing.T, url, body, tok string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if tok != "" {
		req.Header.Set(rollout.DefaultTokenHeader, tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// TestExclusiveNeedsToken: on an exclusive server whose tool calls need a
// token, a client without a valid token cannot open the one session (it
// could call no tool in it, and would lock the rollout's own client out):
// its POSTs without a session get 403 and a JSON-RPC error that names the
// header to send. The rollout's client, with its token, gets the session.
func TestExclusiveNeedsToken(t *testing.T) {
	door, srv := exclusiveServer(t, false)
	url := srv.URL + "/mcp"
	const missing = "mcpdoor: this MCP server is exclusive and serves one rollout at a time; opening a session needs " +
		"the rollout's session token: send it in the X-NeMo-Gym-Session-Token header, as the mcp.headers of the " +
		"/seed_session response give it"
	const invalid = "mcpdoor: this MCP server is exclusive and serves one rollout at a time; opening a session needs " +
		"the rollout's session token, and the X-NeMo-Gym-Session-Token sent is not valid for this server " +
		"(expired, or minted by another server): seed the rollout again with /seed_session"

	squatter, err := dialMCP(t, url, nil)
	if err == nil {
		t.Errorf("a tokenless client opened the exclusive session of a server whose calls need a token")
		if err := squatter.Ping(context.Background(), nil); err != nil {
			t.Fatalf("the tokenless client's ping: %v", err)
		}
	} else if want := `calling "initialize": sending "initialize": ` + missing + ": rejected by transport: Forbidden"; err.Error() != want {
		t.Errorf("the tokenless client's error:\n%v\nwant\n%s", err, want)
	}

	agent, err := dialMCP(t, url, http.Header{rollout.DefaultTokenHeader: {mint(t, door, "rollout-a", nil)}})
	if err != nil {
		t.Fatalf("the rollout's client, with its token: %v", err)
	}
	res, err := agent.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("the rollout's call: %v %v", res, err)
	}

	// Every POST without a session is refused so, whether or not the slot
	// is held.
	agent.Close()
	for _, c := range []struct{ name, body, tok, id, message string }{
		{"initialize", `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}`, "", "7", missing},
		{"ping", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, "", `"p"`, missing},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "", "null", missing},
		{"invalid token", `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{}}`, "garbage", "8", invalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, ct, body := postMCP(t, url, c.body, c.tok)
			want := `{"jsonrpc":"2.0","id":` + c.id + `,"error":{"code":-32000,"message":"` + c.message + `"}}`
			if status != http.StatusForbidden || ct != "application/json" || body != want {
				t.Errorf("got %d %q %s\nwant 403 application/json %s", status, ct, body, want)
			}
		})
	}
}

// TestExclusiveTokenTakesOver: where tokenless calls are allowed, a
// tokenless client may open the session, but a client with a valid token
// takes it over (the rollout's own client is not locked out by one that
// proves nothing); a tokenless client cannot take it back.
func TestExclusiveTokenTakesOver(t *testing.T) {
	door, srv := exclusiveServer(t, true)
	url := srv.URL + "/mcp"
	squatter, err := dialMCP(t, url, nil)
	if err != nil {
		t.Fatalf("the tokenless client: %v", err)
	}
	if err := squatter.Ping(context.Background(), nil); err != nil {
		t.Fatalf("the tokenless client's ping: %v", err)
	}

	agent, err := dialMCP(t, url, http.Header{rollout.DefaultTokenHeader: {mint(t, door, "rollout-a", nil)}})
	if err != nil {
		t.Fatalf("the rollout's client, with its token: %v", err)
	}
	if live := door.calls.liveSessions(); len(live) != 1 || !live[agent.ID()] {
		t.Errorf("live sessions %v, want the rollout client's %s alone", live, agent.ID())
	}
	if err := squatter.Ping(context.Background(), nil); !errors.Is(err, mcp.ErrSessionMissing) {
		t.Errorf("the tokenless client's ping after the takeover: %v, want %v", err, mcp.ErrSessionMissing)
	}
	_, err = dialMCP(t, url, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != edge.ExclusiveCode || !strings.HasPrefix(rpcErr.Message, "this MCP server is exclusive and another session is live") {
		t.Errorf("a tokenless client while the rollout's session is live: %v, want the 409", err)
	}
}
