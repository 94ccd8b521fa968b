package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// longEnv names the environment variable that, set to 1, runs the load
// tests at full size: scripts/test.sh (and so CI) sets it. By default they
// run small, so that `go test ./...` stays quick and still goes through the
// same code: every door, client and check, with fewer rollouts and calls.
//
//	MCPDOOR_LONG=1 go test ./tests -run 'TestLoad|TestConcurrentRollouts'
const longEnv = "MCPDOOR_LONG"

// long reports whether longEnv asks for the full-size load tests.
func long() bool {
	v := strings.TrimSpace(os.Getenv(longEnv))
	return v == "1" || strings.EqualFold(v, "true")
}

// TestLoad: many rollouts at once, each making many MCP calls, on a
// stateless and on a stateful door: no call fails, each rollout's session
// holds exactly its own calls in order, and once the clients and the
// server are closed, no goroutine is left and the heap comes back to where
// it was.
//
// With MCPDOOR_LONG=1 it runs 64 rollouts × 200 calls, or 16 × 50 under the
// race detector (which slows each call tenfold); by default, and with
// -short, 8 × 10.
func TestLoad(t *testing.T) {
	clients, calls := 8, 10
	switch {
	case testing.Short() || !long():
	case raceEnabled:
		clients, calls = 16, 50
	default:
		clients, calls = 64, 200
	}
	for _, stateful := range []bool{false, true} {
		name := "stateless"
		if stateful {
			name = "stateful"
		}
		t.Run(name, func(t *testing.T) { load(t, stateful, clients, calls) })
	}
}

func load(t *testing.T, stateful bool, clients, calls int) {
	var heapBefore runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&heapBefore)
	baseline, before := runtime.NumGoroutine(), goleak.IgnoreCurrent()

	cfg := fixtureConfig(t)
	cfg.MCP.Stateful = stateful
	h, _, _ := newFixture(t, cfg)
	srv := httptest.NewServer(h)
	transport := &http.Transport{MaxIdleConnsPerHost: 2 * clients}
	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		sessions[i] = loadClient(t, srv.URL, transport)
	}

	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i, cs := range sessions {
		wg.Go(func() { errs <- loadRollout(cs, i, calls) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
			if failed <= 5 {
				t.Error(err)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d rollouts failed", failed, clients)
	}
	total := clients * (calls + 1)
	t.Logf("%d clients × %d calls (+1 history check each): %d calls in %v, %.0f calls/s, peak: %d goroutines",
		clients, calls, total, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds(), runtime.NumGoroutine())

	for _, cs := range sessions {
		cs.Close()
	}
	transport.CloseIdleConnections()
	srv.Close()

	// Every goroutine the load started ends. There is no signal for that:
	// goleak looks again for half a second before it reports one, and a
	// loaded machine gets up to 10s.
	err := goleak.Find(before)
	for deadline := time.Now().Add(10 * time.Second); err != nil && time.Now().Before(deadline); {
		err = goleak.Find(before)
	}
	if err != nil {
		t.Errorf("after the load: %v", err)
	}
	goroutines := runtime.NumGoroutine()
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("heap in use: %.1f MiB before, %.1f MiB after; goroutines: %d before, %d after",
		float64(heapBefore.HeapInuse)/(1<<20), float64(after.HeapInuse)/(1<<20), baseline, goroutines)
	// Generous: the server's state (the fixture's record of every call)
	// lives until the test ends, and the runtime keeps some spans.
	if after.HeapInuse > 2*heapBefore.HeapInuse+16<<20 {
		t.Errorf("heap in use %d MiB after the load, %d MiB before", after.HeapInuse>>20, heapBefore.HeapInuse>>20)
	}
}

// loadClient seeds a rollout with its own cookie session and connects to
// the MCP endpoint with the rollout's token.
func loadClient(t *testing.T, base string, transport http.RoundTripper) *mcp.ClientSession {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Transport: transport, Timeout: 60 * time.Second}
	resp, err := hc.Post(base+"/seed_session", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	var seed struct {
		MCP struct {
			Headers map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	err = json.NewDecoder(resp.Body).Decode(&seed)
	resp.Body.Close()
	if err != nil || len(seed.MCP.Headers) == 0 {
		t.Fatalf("seed: %d %v", resp.StatusCode, err)
	}
	header := http.Header{}
	for k, v := range seed.MCP.Headers {
		header.Set(k, v)
	}
	hc.Transport = &headerTransport{base: transport, header: header}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// loadRollout makes the calls of rollout i and checks what its session
// holds. It returns an error rather than failing: it runs on its own
// goroutine.
func loadRollout(cs *mcp.ClientSession, i, calls int) error {
	ctx := context.Background()
	want := make([]string, calls)
	for j := range calls {
		want[j] = fmt.Sprintf("r%d-c%d", i, j)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"city": want[j]}})
		if err != nil {
			return fmt.Errorf("rollout %d, call %d: %w", i, j, err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || text != `{"weather":"The weather in `+want[j]+` is sunny and 72 F."}` {
			return fmt.Errorf("rollout %d, call %d: %s", i, j, text)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "history"})
	if err != nil {
		return fmt.Errorf("rollout %d, history: %w", i, err)
	}
	var got struct{ History []string }
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &got)
	if diff := cmp.Diff(want, got.History); diff != "" {
		return fmt.Errorf("rollout %d: the calls its session holds, want its %d in order (-want +got):\n%s", i, calls, diff)
	}
	return nil
}
