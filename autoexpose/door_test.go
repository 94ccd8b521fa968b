package autoexpose

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
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
