package autoexpose_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// protocolHeaders are the MCP-Protocol-Version headers FuzzEndpoint sends a
// body with: none (an initialize, or a client that omits it), the
// session-based protocol, and the stateless one.
var protocolHeaders = []string{"", "2025-11-25", "2026-07-28"}

// FuzzEndpoint POSTs raw bytes to the MCP endpoint, in process, as each
// protocol version. Whatever the body:
//   - nothing panics;
//   - the answer is never a 5xx (the SDK's "failed connection" 500 would be
//     the documented exception: it has not been seen);
//   - the door then answers a good tools/call exactly as before.
func FuzzEndpoint(f *testing.F) {
	cfg, err := autoexpose.ParseConfig([]byte(`
name: fuzz
expose_tools_over_mcp: true
mcp:
  session_secret: "a fuzzing secret of at least 32 bytes"
`))
	if err != nil {
		f.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	r := chi.NewRouter()
	r.Post("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(b)
	})
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		f.Fatal(err)
	}
	post := func(version string, body []byte) *httptest.ResponseRecorder {
		// subscriptions/listen waits for its context to end: bound it.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if version != "" {
			req.Header.Set("MCP-Protocol-Version", version)
		}
		w := httptest.NewRecorder()
		door.ServeHTTP(w, req)
		return w
	}
	const (
		good   = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"still":"serving"}}}`
		answer = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"still\":\"serving\"}"}]}}`
	)
	f.Fuzz(func(t *testing.T, version uint8, body []byte) {
		v := protocolHeaders[int(version)%len(protocolHeaders)]
		if w := post(v, body); w.Code >= 500 {
			t.Fatalf("MCP-Protocol-Version %q, body %q: %d %q", v, body, w.Code, w.Body)
		}
		if w := post("2025-11-25", []byte(good)); w.Code != http.StatusOK || w.Body.String() != answer {
			t.Fatalf("after body %q, a good call got %d %q", body, w.Code, w.Body)
		}
	})
}
