package autoexpose

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callDoor installs a door over one direct tool, get_weather, with the
// mcp block m, for calls with a token, or also without one if tokenless.
func callDoor(tb testing.TB, tokenless bool, m MCPConfig) (*Door, *toolset.Tool) {
	tb.Helper()
	m.SessionSecret = []string{"a benchmark secret of at least 32 bytes"}
	m.Rollout.AllowTokenless = tokenless
	r := rolloutRouter(func(r chi.Router) { r.Method("POST", "/get_weather", Handler(getWeather)) })
	d, err := Install(r, enabled(m))
	if err != nil {
		tb.Fatal(err)
	}
	return d, d.tools["get_weather"]
}

// parisCall is a tools/call of callDoor's get_weather for Paris, with no
// request Extra (as over stdio).
func parisCall() *mcp.CallToolRequest {
	return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}
}

// TestCallLimitsOrder: a call over the rate limit is refused before its
// arguments are looked at, the size of the arguments before the schema.
func TestCallLimitsOrder(t *testing.T) {
	d, tl := callDoor(t, true, MCPConfig{RateLimit: RateLimit{PerSession: 0.001, Burst: 1}, MaxBodyBytes: 64})
	text := func(res *mcp.CallToolResult) string { return res.Content[0].(*mcp.TextContent).Text }
	big := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "get_weather", Arguments: json.RawMessage(`{"city":"` + strings.Repeat("x", 100) + `"}`)}}
	if got := text(d.calls.callResult(context.Background(), tl, big)); got != "Arguments to POST /get_weather are 111 bytes, over the 64-byte limit (mcp.max_body_bytes)." {
		t.Errorf("first call: %s", got)
	}
	if got := text(d.calls.callResult(context.Background(), tl, parisCall())); !strings.HasPrefix(got, "Rate limit exceeded for this session; retry in ") {
		t.Errorf("second call: %s", got)
	}
}

// BenchmarkCall measures Door.call (everything between the SDK and the
// route's handler, and the result mapping) for a direct route, without
// limits, with a rate limit that never refuses, and with a call timeout
// (which moves the handler to a goroutine of its own).
func BenchmarkCall(b *testing.B) {
	for _, tc := range []struct {
		name string
		m    MCPConfig
	}{
		{"limit=none", MCPConfig{}},
		{"limit=rate", MCPConfig{RateLimit: RateLimit{PerSession: 1e9, Burst: 1e9}}},
		{"limit=timeout", MCPConfig{CallTimeout: time.Minute}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			d, tl := callDoor(b, true, tc.m)
			req := parisCall()
			ctx := context.Background()
			if res := d.calls.callResult(ctx, tl, req); res.IsError {
				b.Fatalf("call: %v", res.Content[0])
			}
			b.ReportAllocs()
			for b.Loop() {
				d.calls.callResult(ctx, tl, req)
			}
		})
	}
}
