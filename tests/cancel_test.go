package tests

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const waitCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}`

// TestCancellation: a client that goes away or cancels its call cancels the
// handler's context. The handler must see it within 100 ms; the test
// asserts that it sees it at all (within a generous 10 s, since the machine
// may be loaded) and logs how long it took.
func TestCancellation(t *testing.T) {
	for _, config := range []string{"", "  call_timeout: 30s\n"} {
		t.Run("connection dropped/"+strings.TrimSpace(config), func(t *testing.T) {
			h := newHostile(t, config)
			ctx, cancel := context.WithCancel(t.Context())
			errc := make(chan error, 1)
			go func() {
				var err error
				h.rawMCP(t, waitCall, raw{protocol: "2025-11-25", ctx: ctx, err: &err})
				errc <- err
			}()
			h.waitStarted(t, "/wait")
			at := time.Now()
			cancel() // the client closes the connection
			e := h.waitEnded(t)
			t.Logf("the handler saw its context end %v after the client disconnected", e.at.Sub(at))
			if e.err != context.Canceled {
				t.Errorf("the handler's context ended with %v, want %v", e.err, context.Canceled)
			}
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Errorf("the client's request: %v", err)
			}
			h.stillServes(t)
		})
	}

	for _, config := range []string{"", "  call_timeout: 30s\n"} {
		t.Run("notifications/cancelled, stateful/"+strings.TrimSpace(config), func(t *testing.T) {
			h := newHostile(t, "  stateful: true\n"+config)
			init := h.rawMCP(t, initializeBody(1), raw{protocol: "2025-11-25"})
			sid := init.Header.Get("Mcp-Session-Id")
			if init.Status != http.StatusOK || sid == "" {
				t.Fatalf("initialize: %d %s", init.Status, init.Body)
			}
			defer h.rawMCP(t, "", raw{method: http.MethodDelete, sid: sid})
			if r := h.rawMCP(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, raw{protocol: "2025-11-25", sid: sid}); r.Status != http.StatusAccepted {
				t.Fatalf("notifications/initialized: %d %s", r.Status, r.Body)
			}
			answer := make(chan httpResponse, 1)
			go func() {
				var err error // the answer tells
				answer <- h.rawMCP(t, waitCall, raw{protocol: "2025-11-25", sid: sid, err: &err})
			}()
			h.waitStarted(t, "/wait")
			at := time.Now()
			r := h.rawMCP(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the user gave up"}}`, raw{protocol: "2025-11-25", sid: sid})
			if r.Status != http.StatusAccepted {
				t.Fatalf("notifications/cancelled: %d %s", r.Status, r.Body)
			}
			e := h.waitEnded(t)
			t.Logf("the handler saw its context end %v after notifications/cancelled", e.at.Sub(at))
			if e.err != context.Canceled {
				t.Errorf("the handler's context ended with %v, want %v", e.err, context.Canceled)
			}
			// The handler's answer to its cancellation still reaches the
			// cancelled call's stream.
			const cancelled = `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"HTTP 503 from POST /wait: context canceled"}],` +
				`"structuredContent":{"error":{"code":"service_unavailable","message":"context canceled","status":503,"effect":"unknown"}},"isError":true}}`
			select {
			case r := <-answer:
				if r.Status != http.StatusOK || string(r.Body) != answerOf(cancelled) {
					t.Errorf("the cancelled call's POST got %d %q, want 200 %q", r.Status, r.Body, answerOf(cancelled))
				}
			case <-time.After(10 * time.Second):
				t.Error("the cancelled call's POST got no answer")
			}
			if r := h.rawMCP(t, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"record","arguments":{"still":"serving"}}}`, raw{protocol: "2025-11-25", sid: sid}); string(r.Body) != answerOf(`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"{\"still\":\"serving\"}"}]}}`) {
				t.Errorf("the next call in the session: %d %s", r.Status, r.Body)
			}
		})
	}

	for _, tc := range []struct {
		name, config, protocol string
	}{
		{"go-sdk client cancels, stateful 2025-11-25", "  stateful: true\n", "2025-11-25"},
		{"go-sdk client cancels, stateless 2025-11-25", "", "2025-11-25"},
		{"go-sdk client cancels, 2026-07-28", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostile(t, tc.config)
			cs := h.connect(mcpOptions{protocol: tc.protocol})
			ctx, cancel := context.WithCancel(t.Context())
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
				errc <- err
			}()
			h.waitStarted(t, "/wait")
			at := time.Now()
			cancel()
			e := h.waitEnded(t)
			t.Logf("the handler saw its context end %v after the client cancelled", e.at.Sub(at))
			if e.err != context.Canceled {
				t.Errorf("the handler's context ended with %v, want %v", e.err, context.Canceled)
			}
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Errorf("CallTool: %v, want %v", err, context.Canceled)
			}
			if got := resultJSON(t, call(t, cs, "record", map[string]any{"still": "serving"})); got != `{"content":[{"type":"text","text":"{\"still\":\"serving\"}"}]}` {
				t.Errorf("the next call on the same session: %s", got)
			}
		})
	}
}
