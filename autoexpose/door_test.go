package autoexpose

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEndpoint: a Door tells where its MCP endpoint is, and the header of
// its rollout's token, as mcp.path and mcp.rollout.token_header set them;
// a Door that serves no endpoint tells nothing.
func TestEndpoint(t *testing.T) {
	plain := func() chi.Router {
		r := chi.NewRouter()
		r.Post("/t", ok)
		return r
	}
	for _, c := range []struct {
		name           string
		router         chi.Router
		cfg            Config
		path, header   string
		wantNoEndpoint bool
	}{
		{name: "defaults", router: rolloutRouter(func(r chi.Router) { r.Post("/t", ok) }), cfg: enabled(MCPConfig{}),
			path: "/mcp", header: "X-NeMo-Gym-Session-Token"},
		{name: "configured", router: rolloutRouter(func(r chi.Router) { r.Post("/t", ok) }),
			cfg:  enabled(MCPConfig{Path: "/agent/mcp", Rollout: Rollout{TokenHeader: "X-Rollout-Token"}}),
			path: "/agent/mcp", header: "X-Rollout-Token"},
		{name: "no rollout contract", router: plain(), cfg: enabled(MCPConfig{}), path: "/mcp"},
		{name: "disabled", router: plain(), cfg: Config{Name: "test"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			door, err := Install(c.router, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer door.Close()
			if path, header := door.Endpoint(); path != c.path || header != c.header {
				t.Errorf("Endpoint() = %q, %q; want %q, %q", path, header, c.path, c.header)
			}
		})
	}
	if path, header := (*Door)(nil).Endpoint(); path != "" || header != "" {
		t.Errorf("a nil Door's Endpoint() = %q, %q", path, header)
	}
}

// TestDoorResult: Result maps a route's answer as a call's dispatch does:
// what the MCP door answers for what the HTTP door answered.
func TestDoorResult(t *testing.T) {
	r := chi.NewRouter()
	r.Post("/t", ok)
	r.Method(http.MethodPost, "/typed", Handler(func(context.Context, *http.Request, struct{}) (struct {
		N int `json:"n"`
	}, error) {
		return struct {
			N int `json:"n"`
		}{}, nil
	}))
	door, err := Install(r, enabled(MCPConfig{MaxBodyBytes: 16}))
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	jsonType := http.Header{"Content-Type": {"application/json"}}
	for _, c := range []struct {
		name, tool string
		status     int
		header     http.Header
		body       string
		want       string
	}{
		{"a JSON object", "t", 200, jsonType, `{ "a": 1 }`,
			`{"content":[{"type":"text","text":"{\"a\":1}"}],"structuredContent":{"a":1}}`},
		{"text", "t", 200, http.Header{"Content-Type": {"text/plain"}}, "hello",
			`{"content":[{"type":"text","text":"hello"}]}`},
		{"an error status", "t", 404, nil, "no such thing\n",
			`{"content":[{"type":"text","text":"HTTP 404 from POST /t: no such thing"}],"structuredContent":{"error":{"code":"not_found","message":"no such thing","status":404,"effect":"not_applied"}},"isError":true}`},
		{"an error of a tool with an output schema", "typed", 500, nil, "down",
			`{"_meta":{"mcpdoor/error":{"error":{"code":"internal_server_error","message":"down","status":500,"effect":"unknown"}}},"content":[{"type":"text","text":"HTTP 500 from POST /typed: down"}],"isError":true}`},
		{"over mcp.max_body_bytes", "t", 200, jsonType, `{"a":"0123456789abcdef"}`,
			`{"content":[{"type":"text","text":"Response from POST /t exceeds the 16-byte limit (mcp.max_body_bytes)."}],"structuredContent":{"error":{"code":"response_too_large","message":"the response exceeds 16 bytes","status":200,"effect":"unknown"}},"isError":true}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, ok := door.Result(c.tool, c.status, c.header, []byte(c.body))
			if !ok {
				t.Fatalf("Result(%q): no such tool", c.tool)
			}
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != c.want {
				t.Errorf("Result:\n%s\nwant\n%s", b, c.want)
			}
		})
	}
	if _, ok := door.Result("nope", 200, nil, nil); ok {
		t.Error(`Result("nope") found a tool the door does not serve`)
	}
}

// TestExtendServer: Install and Wrap call Config.ExtendServer once, before
// the Door serves, with the go-sdk server behind the endpoint. What it adds
// is served (a prompt), and a middleware it adds sees every tools/call,
// which the go-sdk then answers: the Door has no fast path. A disabled
// Door has no server and does not call it.
func TestExtendServer(t *testing.T) {
	const v = "2025-11-25"
	for _, how := range []string{"Install", "Wrap", "disabled"} {
		t.Run(how, func(t *testing.T) {
			var (
				extended int
				mu       sync.Mutex
				seen     []string // the methods the added middleware saw
			)
			cfg := enabled(MCPConfig{})
			cfg.ExtendServer = func(s *mcp.Server) {
				extended++
				s.AddPrompt(&mcp.Prompt{Name: "greeting"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					return &mcp.GetPromptResult{}, nil
				})
				s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
					return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
						mu.Lock()
						seen = append(seen, method)
						mu.Unlock()
						return next(ctx, method, req)
					}
				})
			}
			var (
				door *Door
				err  error
			)
			switch how {
			case "Install":
				r := chi.NewRouter()
				r.Post("/echo", ok)
				door, err = Install(r, cfg)
			case "Wrap":
				mux := http.NewServeMux()
				mux.HandleFunc("POST /echo", ok)
				cfg.CatchAll = map[string]Declaration{"echo": {}}
				door, err = Wrap(mux, cfg)
			case "disabled":
				cfg.ExposeToolsOverMCP = false
				door, err = Install(chi.NewRouter(), cfg)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer door.Close()
			if how == "disabled" {
				if extended != 0 {
					t.Errorf("a disabled Door called ExtendServer %d times, want 0", extended)
				}
				return
			}
			if extended != 1 {
				t.Fatalf("%s called ExtendServer %d times, want once", how, extended)
			}
			srv := httptest.NewServer(door)
			defer srv.Close()
			post := func(body string, header http.Header) string {
				t.Helper()
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
				req.Header = header
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return string(b)
			}
			const call = `"result":{"content":[{"type":"text","text":"{}"}],"structuredContent":{}}`
			if got := post(callBody(v, "1", "echo", `{}`, ""), callHeader(v, "echo")); !strings.Contains(got, call) {
				t.Errorf("tools/call: %s, want %s", got, call)
			}
			if got := post(`{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`, callHeader(v, "")); !strings.Contains(got, `"prompts":[{"name":"greeting"`) {
				t.Errorf("prompts/list: %s, want the greeting prompt", got)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Contains(seen, "tools/call") {
				t.Errorf("the middleware ExtendServer added saw %v, not the tools/call", seen)
			}
			if n := door.fastCalls.Load(); n != 0 {
				t.Errorf("the fast path served %d calls of a Door with ExtendServer, want 0", n)
			}
		})
	}
}
