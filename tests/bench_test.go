package tests

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
)

// weatherWork is the work both servers of BenchmarkToolsCall do per call:
// record the city in the caller's session and answer a sentence.
type weatherWork struct {
	mu     sync.Mutex
	cities map[string][]string
}

func (w *weatherWork) do(sid, city string) cityOut {
	w.mu.Lock()
	w.cities[sid] = append(w.cities[sid][:0], city) // bounded: keep the last
	w.mu.Unlock()
	return cityOut{Weather: fmt.Sprintf("The weather in %s is sunny and 72 F.", city)}
}

// BenchmarkToolsCall measures a whole tools/call over loopback HTTP, the
// go-sdk client to a stateless Streamable HTTP server, for an auto-exposed
// route and for the same work written by hand as a go-sdk tool. The two run
// interleaved (auto, hand, auto, ... with -count); compare them with
// benchstat.
func BenchmarkToolsCall(b *testing.B) {
	work := &weatherWork{cities: make(map[string][]string)}

	// The auto-exposed server: a chi route with mcpdoor installed.
	cfg := fixtureConfig(b)
	cfg.MCP.Rollout = autoexpose.Rollout{} // a plain API
	sessions, _ := cfg.UseSessions()
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(func(_ context.Context, r *http.Request, in cityIn) (cityOut, error) {
		return work.do(session.ID(r), in.City), nil
	}))
	if _, err := autoexpose.Install(r, cfg); err != nil {
		b.Fatal(err)
	}
	auto := serve(b, r)

	// The same tool written by hand with the go-sdk.
	s := mcp.NewServer(&mcp.Implementation{Name: "hand", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "get_weather", Description: "The weather in a city."},
		func(_ context.Context, _ *mcp.CallToolRequest, in cityIn) (*mcp.CallToolResult, cityOut, error) {
			return nil, work.do("hand", in.City), nil
		})
	hand := serve(b, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))

	callOnce := func(b *testing.B, cs *mcp.ClientSession) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}})
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
	for _, c := range []struct {
		name string
		srv  *server
		path string
	}{{"auto", auto, "/mcp"}, {"hand", hand, ""}} {
		b.Run(c.name, func(b *testing.B) {
			cs := c.srv.connect(mcpOptions{path: c.path})
			b.ReportAllocs()
			for b.Loop() {
				callOnce(b, cs)
			}
		})
	}
	// interleaved alternates the two call by call, so that the machine's
	// noise hits both alike, and reports their ratio.
	b.Run("interleaved", func(b *testing.B) {
		ca, ch := auto.connect(mcpOptions{}), hand.connect(mcpOptions{path: ""})
		var ta, th time.Duration
		for b.Loop() {
			t0 := time.Now()
			callOnce(b, ca)
			t1 := time.Now()
			callOnce(b, ch)
			ta, th = ta+t1.Sub(t0), th+time.Since(t1)
		}
		b.ReportMetric(float64(ta.Nanoseconds())/float64(b.N), "auto-ns/call")
		b.ReportMetric(float64(th.Nanoseconds())/float64(b.N), "hand-ns/call")
		b.ReportMetric(float64(ta)/float64(th), "auto/hand")
	})
}
