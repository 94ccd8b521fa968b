package tests

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// TestRateLimit: mcp.rate_limit counts each session's calls after the token
// checks and before argument validation; a session over it gets an isError
// result with a retry hint, and other sessions and the HTTP door are not
// affected.
func TestRateLimit(t *testing.T) {
	cfg := fixtureConfig(t)
	cfg.MCP.RateLimit = autoexpose.RateLimit{PerSession: 0.01, Burst: 2} // one call per 100s after the burst
	h, door, _ := newFixture(t, cfg)
	s := inProcess(t, h, door)
	const limited = `{"content":[{"type":"text","text":"Rate limit exceeded for this session; retry in 1m40s."}],` +
		`"structuredContent":{"error":{"code":"rate_limited","effect":"not_applied","message":"the session has made more calls than mcp.rate_limit allows","retry_after_ms":100000,"status":429}},"isError":true}`
	const hello = `{"content":[{"type":"text","text":"hello, world"}]}`

	a, b := s.newClient(), s.newClient()
	csA, csB := a.connectSeeded(mcpOptions{}), b.connectSeeded(mcpOptions{})
	for i, want := range []string{hello, hello, limited, limited} {
		if got := resultJSON(t, call(t, csA, "text", nil)); got != want {
			t.Errorf("session A, call %d:\n got %s\nwant %s", i+1, got, want)
		}
	}
	limitedTyped := `{"_meta":{"mcpdoor/error":{"error":{"code":"rate_limited","message":"the session has made more calls than mcp.rate_limit allows","status":429,"effect":"not_applied","retry_after_ms":100000}}},` +
		`"content":[{"type":"text","text":"Rate limit exceeded for this session; retry in 1m40s."}],"isError":true}`
	if got := resultJSON(t, call(t, csA, "weather", map[string]any{"city": 5})); got != limitedTyped {
		t.Errorf("session A, bad arguments: the rate limit comes first; got %s", got)
	}
	if got := resultJSON(t, call(t, csB, "text", nil)); got != hello {
		t.Errorf("session B: %s", got)
	}
	if r := a.post("/text", `{}`); r.Status != http.StatusOK || string(r.Body) != "hello, world" {
		t.Errorf("session A over HTTP: %d %q", r.Status, r.Body)
	}

	t.Run("token checks come first", func(t *testing.T) {
		_, cs, _ := s.rollout(`{"allowed_tools":["text"]}`)
		call(t, cs, "text", nil)
		call(t, cs, "text", nil)
		res := call(t, cs, "weather", map[string]any{"city": "Paris"})
		if got := res.Content[0].(*mcp.TextContent).Text; got != "Tool 'weather' is not allowed for this session." {
			t.Errorf("a tool outside the allow-list: %s", got)
		}
		if got := resultJSON(t, call(t, cs, "text", nil)); got != limited {
			t.Errorf("third call: %s", got)
		}
	})

	t.Run("tokenless calls share the local session", func(t *testing.T) {
		h := newHostile(t, "  rate_limit: {per_session: 0.01, burst: 1}\n")
		const over = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Rate limit exceeded for this session; retry in 1m40s."}],` +
			`"structuredContent":{"error":{"code":"rate_limited","message":"the session has made more calls than mcp.rate_limit allows","status":429,"effect":"not_applied","retry_after_ms":100000}},"isError":true}}`
		if r := h.rawMCP(t, echoCall, raw{protocol: "2025-11-25"}); string(r.Body) != answerOf(echoAnswer) {
			t.Errorf("first client: %s", r.Body)
		}
		if r := h.newClient().rawMCP(t, echoCall, raw{protocol: "2025-11-25"}); string(r.Body) != answerOf(over) {
			t.Errorf("second client:\n got %s\nwant %s", r.Body, answerOf(over))
		}
	})
}

// TestCallTimeout: at mcp.call_timeout the client gets an isError result,
// the handler's context is cancelled, and a handler that ignores it runs on
// while the server serves other calls; what it writes late goes nowhere.
func TestCallTimeout(t *testing.T) {
	t.Parallel()
	h := newHostile(t, "  call_timeout: 200ms\n")
	timedOut := func(path string) string {
		return answerOf(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"POST ` + path + ` timed out after 200ms."}],` +
			`"structuredContent":{"error":{"code":"timeout","message":"the handler did not answer within 200ms (mcp.call_timeout); it may still be running","status":504,"effect":"unknown"}},"isError":true}}`)
	}

	t.Run("a handler that honours its context", func(t *testing.T) {
		r := h.rawMCP(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{}}}`, raw{protocol: "2025-11-25"})
		if string(r.Body) != timedOut("/wait") {
			t.Errorf("got %s\nwant %s", r.Body, timedOut("/wait"))
		}
		h.waitStarted(t, "/wait")
		if e := h.waitEnded(t); e.err != context.DeadlineExceeded {
			t.Errorf("the handler's context ended with %v, want %v", e.err, context.DeadlineExceeded)
		}
		h.stillServes(t)
	})

	t.Run("progress after the timeout", func(t *testing.T) {
		for _, tc := range []struct{ name, config string }{{"stateless", ""}, {"stateful", "  stateful: true\n"}} {
			t.Run(tc.name, func(t *testing.T) {
				h := newHostile(t, "  call_timeout: 200ms\n"+tc.config)
				var n notes
				cs := h.connect(mcpOptions{protocol: "2025-11-25", client: n.options()})
				params := &mcp.CallToolParams{Name: "late_progress", Arguments: map[string]any{}}
				params.SetProgressToken("p")
				res, err := cs.CallTool(t.Context(), params)
				if err != nil || res.Content[0].(*mcp.TextContent).Text != "POST /late_progress timed out after 200ms." {
					t.Fatalf("CallTool: %v %v", err, res)
				}
				close(h.answered)
				// The SDK's own words vary with the moment ("client is
				// closing" once the stateless session has closed, "write to
				// closed stream" before).
				if err := <-h.late; err == nil || !strings.HasPrefix(err.Error(), "mcpdoor: progress: ") {
					t.Errorf("Progress after the call was answered: %v, want an error", err)
				}
				if p, _ := n.wait(0, 0); len(p) != 0 {
					t.Errorf("the client got progress after its answer: %s", p)
				}
			})
		}
	})

	t.Run("a handler that hangs", func(t *testing.T) {
		r := h.rawMCP(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang","arguments":{}}}`, raw{protocol: "2025-11-25"})
		if string(r.Body) != timedOut("/hang") {
			t.Errorf("got %s\nwant %s", r.Body, timedOut("/hang"))
		}
		h.waitStarted(t, "/hang")
		h.stillServes(t) // while /hang still runs
	})
}

// TestResponseCap: a handler that writes 100 MiB gets the isError result for
// a response over mcp.max_body_bytes; its writes past the limit fail, and
// the server does not allocate anything like 100 MiB for it.
func TestResponseCap(t *testing.T) {
	h := newHostile(t, "")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := h.rawMCP(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"huge","arguments":{}}}`, raw{protocol: "2025-11-25"})
	runtime.ReadMemStats(&after)
	const want = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Response from POST /huge exceeds the 4194304-byte limit (mcp.max_body_bytes)."}],` +
		`"structuredContent":{"error":{"code":"response_too_large","message":"the response exceeds 4194304 bytes","status":200,"effect":"unknown"}},"isError":true}}`
	if string(r.Body) != answerOf(want) {
		t.Errorf("got %s\nwant %s", r.Body, answerOf(want))
	}
	h.mu.Lock()
	written := h.written
	h.mu.Unlock()
	if written != 4<<20 {
		t.Errorf("the handler's writes accepted %d bytes, want %d", written, 4<<20)
	}
	// The recorder keeps 4 MiB, reached by doubling (about 8 MiB allocated
	// in all); the bound is generous (client, server and test share the
	// process) and far below the 100 MiB written.
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %.1f MiB during a call whose handler wrote %d MiB", float64(allocated)/(1<<20), hugeBytes>>20)
	if allocated > 24<<20 {
		t.Errorf("allocated %d MiB during the call, want well under the 100 MiB written", allocated>>20)
	}
	h.stillServes(t)
}

// TestArgumentsTooLarge: arguments over mcp.max_body_bytes, on a transport
// without the HTTP body limit (in memory, as stdio), are refused with an
// isError result that names the limit; the handler never runs.
func TestArgumentsTooLarge(t *testing.T) {
	var server *mcp.Server
	h := newHostile(t, "", func(cfg *autoexpose.Config) { cfg.ExtendServer = func(s *mcp.Server) { server = s } })
	ctx := t.Context()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpdoor-tests", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	args := `{"s":"` + strings.Repeat("x", 5<<20) + `"}`
	res := call(t, cs, "record", rawArgs(args))
	want := fmt.Sprintf(`{"content":[{"type":"text","text":"Arguments to POST /record are %d bytes, over the 4194304-byte limit (mcp.max_body_bytes)."}],`+
		`"structuredContent":{"error":{"code":"request_too_large","effect":"not_applied","message":"the arguments exceed 4194304 bytes","status":413}},"isError":true}`, len(args))
	if got := resultJSON(t, res); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	h.mu.Lock()
	recorded := h.recorded
	h.mu.Unlock()
	if recorded != nil {
		t.Errorf("the handler ran, with %d bytes", len(recorded))
	}
	if got := resultJSON(t, call(t, cs, "record", map[string]any{"still": "serving"})); got != `{"content":[{"type":"text","text":"{\"still\":\"serving\"}"}]}` {
		t.Errorf("the next call: %s", got)
	}
}

// TestBodyLimitGoClient: the go-sdk client, sending a request over the MCP
// endpoint's body limit, reports the error the 413 carries, and its session
// goes on (a plain-text 413 would end it).
func TestBodyLimitGoClient(t *testing.T) {
	t.Parallel() // a refused body costs the server net/http's half-second wait before it closes the connection
	h := newHostile(t, "")
	cs := h.connect(mcpOptions{})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "record", Arguments: map[string]any{"s": strings.Repeat("x", 10<<20)}})
	const want = `calling "tools/call": sending "tools/call": request body exceeds the 4194304-byte limit (mcp.max_body_bytes): rejected by transport: Request Entity Too Large`
	if err == nil || err.Error() != want {
		t.Errorf("CallTool: %v\nwant %s", err, want)
	}
	if got := resultJSON(t, call(t, cs, "record", map[string]any{"still": "serving"})); got != `{"content":[{"type":"text","text":"{\"still\":\"serving\"}"}]}` {
		t.Errorf("the next call on the same session: %s", got)
	}
}
