package autoexpose

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/leakcheck"
)

// statefulServer serves, on a real listener, a stateful plain API with one
// tool, /t, with the mcp block yaml (stateful: true added); the door and
// the listener close when the test ends.
func statefulServer(t *testing.T, mcpBlock string) (*Door, *httptest.Server) {
	t.Helper()
	cfg, err := ParseConfig([]byte("name: capped\nexpose_tools_over_mcp: true\nmcp:\n  stateful: true\n  session_secret: \"a test secret of at least thirty-two bytes\"\n" + mcpBlock))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	r := chi.NewRouter()
	r.Post("/t", ok)
	door, err := Install(r, cfg)
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

// initializeBody is a go-sdk client's initialize, with this id.
func initializeBody(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, id)
}

// rawInitialize posts initialize i without a session, with client c, and
// returns the response, its body read.
func rawInitialize(t *testing.T, c *http.Client, url string, i int) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody(i)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestSessionCap: one client without credentials opens sessions on a
// stateful endpoint until mcp.max_sessions (default 1000) are live; every
// further initialize gets 503 with Retry-After and a JSON-RPC error naming
// the key. With no cap, 2,000 initializes held 2,000 sessions, each a
// goroutine and a few KiB, for idle_timeout (600s).
func TestSessionCap(t *testing.T) {
	leakcheck.Check(t)
	door, srv := statefulServer(t, "")
	url := srv.URL + "/mcp"
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}

	const attempts = 2000
	before, goroutines := heapInUse(), runtime.NumGoroutine()
	opened, refused := 0, 0
	var refusal *http.Response
	var refusalBody string
	for i := range attempts {
		resp, body := rawInitialize(t, client, url, i)
		switch {
		case resp.StatusCode == http.StatusOK && resp.Header.Get(edge.SessionIDHeader) != "":
			opened++
		case resp.StatusCode == http.StatusServiceUnavailable:
			refused++
			if refusal == nil {
				refusal, refusalBody = resp, body
			}
		default:
			t.Fatalf("initialize %d: %d %s", i, resp.StatusCode, body)
		}
	}
	grown, more := heapInUse()-before, runtime.NumGoroutine()-goroutines
	live := len(door.calls.liveSessions())
	t.Logf("%d initializes: %d sessions opened, %d refused, %d live; +%d goroutines, +%.1f MiB heap",
		attempts, opened, refused, live, more, float64(grown)/(1<<20))
	if opened != 1000 || live != 1000 {
		t.Errorf("%d sessions opened, %d live, want the cap of 1000 (mcp.max_sessions)", opened, live)
	}
	if refusal != nil {
		const want = `{"jsonrpc":"2.0","id":1000,"error":{"code":-32000,"message":"mcpdoor: this MCP server has 1000 live sessions, its limit (mcp.max_sessions); ` +
			`retry in 30s, when sessions opened and left have ended (mcp.unused_session_timeout), or end a session with DELETE"}}`
		if refusal.Header.Get("Retry-After") != "30" || refusal.Header.Get("Content-Type") != "application/json" || refusalBody != want {
			t.Errorf("the refusal: Retry-After %q, %q %s\nwant Retry-After 30, application/json %s",
				refusal.Header.Get("Retry-After"), refusal.Header.Get("Content-Type"), refusalBody, want)
		}
	}
	if err := door.Close(); err != nil {
		t.Errorf("closing the door: %v", err)
	}
	if n := len(door.calls.liveSessions()); n != 0 {
		t.Errorf("%d sessions live after Close", n)
	}
	tr.CloseIdleConnections()
	srv.Close()
}

// TestSessionCapFrees: at the cap, a new session is refused, the go-sdk
// client's and a raw initialize alike; once a session ends (its client's DELETE),
// a new one opens.
func TestSessionCapFrees(t *testing.T) {
	door, srv := statefulServer(t, "  max_sessions: 2\n")
	url := srv.URL + "/mcp"
	a, err := dialMCP(t, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dialMCP(t, url, nil); err != nil {
		t.Fatal(err)
	}
	// The go-sdk client reads no body of a 503, which it takes for a
	// passing failure; the body is there for clients that do.
	_, err = dialMCP(t, url, nil)
	if want := `calling "initialize": rejected by transport: sending "initialize": Service Unavailable`; err == nil || err.Error() != want {
		t.Fatalf("the third client: %v\nwant %s", err, want)
	}
	resp, body := rawInitialize(t, http.DefaultClient, url, 3)
	const want = `{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"mcpdoor: this MCP server has 2 live sessions, its limit (mcp.max_sessions); ` +
		`retry in 30s, when sessions opened and left have ended (mcp.unused_session_timeout), or end a session with DELETE"}}`
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "30" || body != want {
		t.Errorf("a raw initialize at the cap: %d, Retry-After %q, %s\nwant 503, Retry-After 30, %s", resp.StatusCode, resp.Header.Get("Retry-After"), body, want)
	}
	a.Close() // DELETE
	c, err := dialMCP(t, url, nil)
	if err != nil {
		t.Fatalf("a client after one session ended: %v", err)
	}
	if err := c.Ping(context.Background(), nil); err != nil {
		t.Errorf("its ping: %v", err)
	}
	if n := len(door.calls.liveSessions()); n != 2 {
		t.Errorf("%d live sessions, want 2", n)
	}
}

// TestUnusedSessionTimeout: a session that makes no request after its
// initialize ends after mcp.unused_session_timeout, freeing its place under
// the cap; a session that has made one lives on, to idle_timeout.
func TestUnusedSessionTimeout(t *testing.T) {
	// 500ms, not less: the used session's connect (initialize, then
	// its first use) must come within it on a loaded machine.
	door, srv := statefulServer(t, "  unused_session_timeout: 500ms\n")
	url := srv.URL + "/mcp"
	resp, body := rawInitialize(t, http.DefaultClient, url, 1)
	left := resp.Header.Get(edge.SessionIDHeader)
	if resp.StatusCode != http.StatusOK || left == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	used, err := dialMCP(t, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := used.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for door.live(left) {
		if time.Now().After(deadline) {
			t.Fatalf("the session left after its initialize was still live after 30s (mcp.unused_session_timeout: 500ms)")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(600 * time.Millisecond) // past the used session's first timeout too
	if err := used.Ping(context.Background(), nil); err != nil {
		t.Errorf("the used session's ping: %v", err)
	}
	if !door.live(used.ID()) {
		t.Errorf("the used session ended")
	}
	_, err = used.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}})
	if err != nil {
		t.Errorf("the used session's call: %v", err)
	}
}

// TestSessionCapRace: 60 initializes at the same instant against a cap of
// 10 open at most 10 sessions; every other one gets the 503.
func TestSessionCapRace(t *testing.T) {
	door, srv := statefulServer(t, "  max_sessions: 10\n")
	url := srv.URL + "/mcp"
	const n = 60
	start := make(chan struct{})
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			resp, _ := rawInitialize(t, http.DefaultClient, url, i)
			statuses <- resp.StatusCode
		})
	}
	close(start)
	wg.Wait()
	close(statuses)
	opened := 0
	for s := range statuses {
		switch s {
		case http.StatusOK:
			opened++
		case http.StatusServiceUnavailable:
		default:
			t.Errorf("an initialize got %d", s)
		}
	}
	if live := len(door.calls.liveSessions()); opened > 10 || live > 10 || opened == 0 {
		t.Errorf("%d initializes opened %d sessions, %d live, want at most 10", n, opened, live)
	}
}
