package autoexpose

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// The go-sdk client's own tools/call request of an echo tool, under each
// protocol version, as it sends it after connecting (recorded from it).
var echoCalls = map[string]struct {
	header http.Header
	body   string
}{
	"2025-11-25": {
		header: http.Header{
			"Accept":               {"application/json, text/event-stream"},
			"Content-Type":         {"application/json"},
			"Mcp-Protocol-Version": {"2025-11-25"},
		},
		body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"TEXT"}}}`,
	},
	"2026-07-28": {
		header: http.Header{
			"Accept":               {"application/json, text/event-stream"},
			"Content-Type":         {"application/json"},
			"Mcp-Method":           {"tools/call"},
			"Mcp-Name":             {"echo"},
			"Mcp-Protocol-Version": {"2026-07-28"},
		},
		body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},` +
			`"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo","arguments":{"text":"TEXT"}}}`,
	},
}

type echoText struct {
	Text string `json:"text"`
}

// echoRouter is a plain API's router with the echo tool, a typed handler,
// installed with yaml's mcp block.
func echoRouter(tb testing.TB, mcpBlock string) (chi.Router, *Door) {
	tb.Helper()
	cfg, err := ParseConfig([]byte("name: echo_server\nexpose_tools_over_mcp: true\nmcp:\n  session_secret: \"a test secret of at least thirty-two bytes\"\n" + mcpBlock))
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	r := chi.NewRouter()
	r.Method(http.MethodPost, "/echo", Handler(func(_ context.Context, _ *http.Request, in echoText) (echoText, error) {
		return in, nil
	}))
	d, err := Install(r, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return r, d
}

// discard is a ResponseWriter that keeps nothing, so that it allocates
// nothing of its own.
type discard struct {
	header http.Header
	status int
}

func (d *discard) Header() http.Header         { return d.header }
func (d *discard) WriteHeader(code int)        { d.status = code }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) Flush()                      {}

// allocPerCall returns the bytes the router allocates, on average, to
// serve n echo calls of text under protocol version v.
func allocPerCall(t *testing.T, r http.Handler, v, text string, n int) float64 {
	t.Helper()
	c := echoCalls[v]
	body := []byte(strings.Replace(c.body, "TEXT", text, 1))
	reqs := make([]*http.Request, n)
	ws := make([]*discard, n)
	for i := range reqs {
		reqs[i] = httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		reqs[i].Header = c.header.Clone()
		ws[i] = &discard{header: make(http.Header)}
	}
	// One call first, so that what is made once (pools, caches) is made.
	w := &discard{header: make(http.Header)}
	warm := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
	warm.Header = c.header.Clone()
	r.ServeHTTP(w, warm)
	if w.status != 0 && w.status != http.StatusOK {
		t.Fatalf("%s: status %d", v, w.status)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i, req := range reqs {
		r.ServeHTTP(ws[i], req)
	}
	runtime.ReadMemStats(&after)
	for _, w := range ws {
		if w.status != 0 && w.status != http.StatusOK {
			t.Fatalf("%s: status %d", v, w.status)
		}
	}
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// TestCallAllocations: a stateless tools/call of a small echo tool costs the
// server at most 12 KiB of allocation in process (16 KiB over the wire, with
// what net/http allocates for a request), and one with a 1 MiB text echoed
// back at most 16 MiB (the lean JSON-RPC handler's 11–13 MiB, times 1.5,
// less net/http's share): the go-sdk's own stateless path allocates about
// 300 KiB and 62 MiB.
func TestCallAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation figures under the race detector mean little")
	}
	if testing.Short() {
		t.Skip("measures allocation over many calls")
	}
	r, _ := echoRouter(t, "")
	big := strings.Repeat("x", 1<<20)
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		got := allocPerCall(t, r, v, "hello", 200)
		t.Logf("%s: %.1f KiB per small call", v, got/1024)
		if got > 12<<10 {
			t.Errorf("%s: a small echo call allocates %.1f KiB, want at most 12 KiB", v, got/1024)
		}
		if got := allocPerCall(t, r, v, big, 4); got > 16<<20 {
			t.Errorf("%s: a 1 MiB echo call allocates %.1f MiB, want at most 16 MiB", v, got/(1<<20))
		}
	}
}

// BenchmarkEndpoint serves echo calls through the router, in process, with
// the fast path and without, small and with a 1 MiB text, under each
// protocol version. Its names are benchstat keys; side by side:
//
//	go test -run '^$' -bench BenchmarkEndpoint -count 10 > bench.txt
//	benchstat -col /path bench.txt
func BenchmarkEndpoint(b *testing.B) {
	for _, path := range []struct{ name, block string }{{"fast", ""}, {"sdk", "  disable_fast_path: true\n"}} {
		r, _ := echoRouter(b, path.block)
		for _, size := range []struct {
			name string
			text string
		}{{"small", "hello"}, {"1MiB", strings.Repeat("x", 1<<20)}} {
			for _, v := range []string{"2025-11-25", "2026-07-28"} {
				c := echoCalls[v]
				body := []byte(strings.Replace(c.body, "TEXT", size.text, 1))
				b.Run("path="+path.name+"/size="+size.name+"/v="+v, func(b *testing.B) {
					b.ReportAllocs()
					w := &discard{header: make(http.Header)}
					for b.Loop() {
						req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
						req.Header = c.header.Clone()
						clear(w.header)
						r.ServeHTTP(w, req)
					}
				})
			}
		}
	}
}
