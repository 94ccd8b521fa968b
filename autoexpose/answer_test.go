package autoexpose

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
)

// TestJSONAnswerIsGoSDKs: the door's answer to a request that streams
// nothing is, to the byte (status, headers, framing, body), what the
// go-sdk's own handler writes with StreamableHTTPOptions.JSONResponse, for
// the same server; the golden tests hold the fast path to the door's.
func TestJSONAnswerIsGoSDKs(t *testing.T) {
	p := newGoldenPair(t, "", false)
	// The go-sdk's JSON mode, serving the fast door's server; p.sdk is the
	// door's go-sdk path.
	own := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return p.fastDoor.server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, DisableLocalhostProtection: true}))
	t.Cleanup(own.Close)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	requests := map[string]goldenRequest{
		"initialize": {header: callHeader("", ""), body: initialize},
		"ping":       {header: callHeader("2025-11-25", ""), body: `{"jsonrpc":"2.0","id":2,"method":"ping"}`},
		"tools/list": {header: callHeader("2025-11-25", ""), body: `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`},
	}
	for _, v := range []string{"2025-11-25", mcpcall.ProtocolVersion2026} {
		requests[v+" tools/call"] = goldenRequest{header: callHeader(v, "echo"), body: callBody(v, "4", "echo", `{"text":"a<b"}`, "")}
		requests[v+" a long tools/call"] = goldenRequest{header: callHeader(v, "echo"), body: callBody(v, "5", "echo", `{"text":"`+strings.Repeat("long ", 1000)+`"}`, "")}
		requests[v+" an HTTP error"] = goldenRequest{header: callHeader(v, "teapot"), body: callBody(v, "6", "teapot", `{}`, "")}
	}
	for name, rq := range requests {
		t.Run(name, func(t *testing.T) {
			want := p.send(t, own.URL, rq)
			got := p.send(t, p.sdk, rq)
			if want.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("the go-sdk's JSON mode answered %s: %q", want.Header.Get("Content-Type"), want.Body)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the door's answer differs from the go-sdk's JSON mode (-go-sdk +door):\n%s", diff)
			}
		})
	}
}
