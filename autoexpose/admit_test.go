package autoexpose

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/edge"
)

// TestRequestEnded: a call that came over HTTP (it carries the request
// reference) after its request ended is refused, and logged, before any
// token check or handler; the client, if still there, reads why.
func TestRequestEnded(t *testing.T) {
	ran := 0
	r := rolloutRouter(func(r chi.Router) {
		r.Post("/count", func(w http.ResponseWriter, r *http.Request) { ran++ })
	})
	var log bytes.Buffer
	cfg := enabled(MCPConfig{SessionSecret: []string{"a test secret of at least 32 bytes long"}})
	cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	d, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Name: "count", Arguments: json.RawMessage(`{}`)},
		Extra:  &mcp.RequestExtra{Header: http.Header{edge.RequestRefHeader: {"ended"}}},
	}
	res, err := d.calls.call(t.Context(), d.tools["count"], req, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	const want = `{"content":[{"type":"text","text":"The HTTP request that carried this tool call ended before the call started, so it was not run. Call the tool again."}],` +
		`"structuredContent":{"error":{"code":"request_ended","message":"the client's HTTP request ended before the call started","status":499,"effect":"not_applied"}},"isError":true}`
	if string(b) != want {
		t.Errorf("result\n  %s\nwant\n  %s", b, want)
	}
	if ran != 0 {
		t.Errorf("the handler ran %d times", ran)
	}
	if !strings.Contains(log.String(), `level=WARN msg="mcpdoor: tool call not run: its HTTP request ended before the call could start (the client closed the connection)" tool=count`) {
		t.Errorf("log:\n%s", log.String())
	}
}
