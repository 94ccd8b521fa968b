package tests

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
)

// BenchmarkSessionPolicy measures a whole tools/call over loopback HTTP,
// the go-sdk client to the same auto-exposed route, under each session
// policy: stateless (the default; the client speaks the stateless
// 2026-07-28 protocol), stateful and exclusive (2025-11-25, with
// Mcp-Session-Id). Each server has one client, connected once. The
// interleaved run alternates the three call by call, so that the machine's
// noise hits them alike, and reports each one's ns/call and their ratios.
func BenchmarkSessionPolicy(b *testing.B) {
	work := &weatherWork{cities: make(map[string][]string)}
	policies := []struct {
		name string
		mcp  autoexpose.MCPConfig
		cs   *mcp.ClientSession
	}{
		{name: "stateless"},
		{name: "stateful", mcp: autoexpose.MCPConfig{Stateful: true}},
		{name: "exclusive", mcp: autoexpose.MCPConfig{Exclusive: true}},
	}
	for i := range policies {
		p := &policies[i]
		cfg := fixtureConfig(b)
		p.mcp.SessionSecret = cfg.MCP.SessionSecret
		cfg.MCP = p.mcp
		sessions, _ := cfg.UseSessions()
		r := chi.NewRouter()
		r.Use(sessions.Middleware)
		r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(func(_ context.Context, r *http.Request, in cityIn) (cityOut, error) {
			return work.do(session.ID(r), in.City), nil
		}))
		door, err := autoexpose.Install(r, cfg)
		if err != nil {
			b.Fatal(err)
		}
		srv := serve(b, r)
		b.Cleanup(func() { door.Close() })
		p.cs = srv.connect(mcpOptions{})
	}
	callOnce := func(b *testing.B, cs *mcp.ClientSession) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}})
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
	for _, p := range policies {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				callOnce(b, p.cs)
			}
		})
	}
	b.Run("interleaved", func(b *testing.B) {
		spent := make([]time.Duration, len(policies))
		for b.Loop() {
			for i, p := range policies {
				t0 := time.Now()
				callOnce(b, p.cs)
				spent[i] += time.Since(t0)
			}
		}
		for i, p := range policies {
			b.ReportMetric(float64(spent[i].Nanoseconds())/float64(b.N), p.name+"-ns/call")
		}
		b.ReportMetric(float64(spent[1])/float64(spent[0]), "stateful/stateless")
		b.ReportMetric(float64(spent[2])/float64(spent[1]), "exclusive/stateful")
	})
}
