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
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// busyTool counts the calls of its route, /busy, that run at once: each
// runs until hold is closed.
type busyTool struct {
	hold                 chan struct{}
	calls, running, peak atomic.Int64
}

func (b *busyTool) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.calls.Add(1)
	n := b.running.Add(1)
	defer b.running.Add(-1)
	for p := b.peak.Load(); n > p && !b.peak.CompareAndSwap(p, n); p = b.peak.Load() {
	}
	select {
	case <-b.hold:
	case <-r.Context().Done():
	}
	io.WriteString(w, `{"ok":true}`)
}

// atOnce runs send, which makes n calls of the busy tool, and returns how
// many of them ran at once: it lets them run once as many as will have
// started (all n, or no more for 300ms after the first), then lets every
// call finish.
func (b *busyTool) atOnce(n int, send func()) int64 {
	done := make(chan struct{})
	go func() {
		defer close(done)
		send()
	}()
	for last, still := int64(0), 0; b.running.Load() < int64(n) && still < 30; {
		time.Sleep(10 * time.Millisecond)
		switch now := b.running.Load(); {
		case now == last && now > 0:
			still++
		case now != last:
			last, still = now, 0
		}
		select {
		case <-done:
			return b.peak.Load() // every call has returned, without the hold
		default:
		}
	}
	peak := b.running.Load()
	close(b.hold)
	<-done
	return peak
}

// busyServer serves a plain API with the busy tool, with the mcp block
// yaml, on a real listener.
func busyServer(t *testing.T, mcpBlock string) (*busyTool, *httptest.Server) {
	t.Helper()
	cfg, err := ParseConfig([]byte("name: busy\nexpose_tools_over_mcp: true\nmcp:\n  session_secret: \"a test secret of at least thirty-two bytes\"\n" + mcpBlock))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	b := &busyTool{hold: make(chan struct{})}
	r := chi.NewRouter()
	r.Method(http.MethodPost, "/busy", b)
	door, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(r)
	t.Cleanup(func() {
		door.Close()
		srv.Close()
	})
	return b, srv
}

// batchOf is a JSON-RPC batch of n tools/call requests of tool.
func batchOf(n int, tool string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":{}}}`, i, tool)
	}
	b.WriteByte(']')
	return b.String()
}

// postBatch posts body to the MCP endpoint at url under protocol
// 2025-03-26, which allows batches, and returns the status, Content-Type
// and body.
func postBatch(t *testing.T, url, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// peaks samples the process's goroutines and live heap while f runs, and
// returns the most of each seen, less what there was before.
func peaks(f func()) (goroutines int, heap int64) {
	before, baseG := heapInUse(), runtime.NumGoroutine()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			heap = max(heap, int64(m.HeapAlloc)-before)
			goroutines = max(goroutines, runtime.NumGoroutine()-baseG)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	return goroutines, heap
}

// TestBatchLimit: a POST that carries a JSON-RPC batch of more messages
// than mcp.max_batch (default 64) gets 413 and a JSON-RPC error naming the
// key, before the go-sdk decodes it or runs any of its calls: one batch
// of 40,000 calls ran every one of them, thousands at once. A batch within
// the limit is served.
func TestBatchLimit(t *testing.T) {
	busy, srv := busyServer(t, "")
	close(busy.hold)
	url := srv.URL + "/mcp"
	const huge = 40000
	body := batchOf(huge, "busy")
	var status int
	var ct, got string
	goroutines, heap := peaks(func() { status, ct, got = postBatch(t, url, body) })
	t.Logf("a batch of %d calls (%.1f MiB): %d handlers ran, at most %d at once; +%d goroutines, +%.1f MiB heap at the most",
		huge, float64(len(body))/(1<<20), busy.calls.Load(), busy.peak.Load(), goroutines, float64(heap)/(1<<20))
	const want = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"mcpdoor: a JSON-RPC batch of 40000 messages is over the limit of 64 (mcp.max_batch); send at most 64 messages in one request"}}`
	if status != http.StatusRequestEntityTooLarge || ct != "application/json" || got != want {
		t.Errorf("the batch of %d calls: %d %q %.300s\nwant 413 application/json %s", huge, status, ct, got, want)
	}
	if n := busy.calls.Load(); n != 0 {
		t.Errorf("%d of the refused batch's calls ran, want none", n)
	}

	status, _, got = postBatch(t, url, batchOf(3, "busy"))
	if status != http.StatusOK || strings.Count(got, `"result":`) != 3 {
		t.Errorf("a batch of 3 calls: %d %s", status, got)
	}
}

// TestCallsInFlight: the tool calls of one HTTP request, or of one MCP
// session, run at most mcp.max_concurrent_calls (default 16) at once; the
// others wait for a slot, and every call is answered.
func TestCallsInFlight(t *testing.T) {
	const bound = 16
	t.Run("a stateless batch", func(t *testing.T) {
		busy, srv := busyServer(t, "")
		const n = 64
		var status int
		var got string
		peak := busy.atOnce(n, func() { status, _, got = postBatch(t, srv.URL+"/mcp", batchOf(n, "busy")) })
		t.Logf("a batch of %d calls: %d ran at once", n, peak)
		if status != http.StatusOK || strings.Count(got, `"result":`) != n {
			t.Fatalf("the batch: %d %.300s", status, got)
		}
		if peak > bound {
			t.Errorf("%d calls of one batch ran at once, want at most %d", peak, bound)
		}
	})
	t.Run("a stateful session", func(t *testing.T) {
		busy, srv := busyServer(t, "  stateful: true\n")
		cs, err := dialMCP(t, srv.URL+"/mcp", nil)
		if err != nil {
			t.Fatal(err)
		}
		const n = 64
		errs := make(chan error, n)
		peak := busy.atOnce(n, func() {
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "busy", Arguments: map[string]any{}})
					if err == nil && res.IsError {
						err = fmt.Errorf("isError: %v", res.Content)
					}
					errs <- err
				})
			}
			wg.Wait()
		})
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("a call: %v", err)
			}
		}
		t.Logf("%d concurrent calls in one session: %d ran at once", n, peak)
		if peak > bound {
			t.Errorf("%d calls of one session ran at once, want at most %d", peak, bound)
		}
	})
	t.Run("a batch of 2000", func(t *testing.T) {
		busy, srv := busyServer(t, "  max_batch: 2000\n")
		const n = 2000
		var status int
		var got string
		var peak int64
		goroutines, heap := peaks(func() {
			peak = busy.atOnce(n, func() { status, _, got = postBatch(t, srv.URL+"/mcp", batchOf(n, "busy")) })
		})
		t.Logf("a batch of %d calls: %d ran at once; +%d goroutines, +%.1f MiB heap at the most", n, peak, goroutines, float64(heap)/(1<<20))
		if status != http.StatusOK || strings.Count(got, `"result":`) != n {
			t.Fatalf("the batch: %d %.300s", status, got)
		}
		if peak > bound {
			t.Errorf("%d calls of one batch ran at once, want at most %d", peak, bound)
		}
	})
}
