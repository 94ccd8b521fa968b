package tests

import (
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// TestJSONAnswers: a client that accepts both application/json and
// text/event-stream gets an answer that streams nothing as one
// application/json body, as NeMo Gym answers it, so that a harness can read
// the POST's body as JSON; an answer that streams (progress and log
// notifications before the result) stays an event stream. A client that
// accepts only text/event-stream is refused, as the go-sdk refuses it (the
// transport's spec asks a client to accept both). Stateless, on and off the
// fast path, and stateful alike.
func TestJSONAnswers(t *testing.T) {
	const both = "application/json, text/event-stream"
	const weather = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Paris"}}}`
	const weatherResult = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"weather\":\"The weather in Paris is sunny and 72 F.\"}"}],"structuredContent":{"weather":"The weather in Paris is sunny and 72 F."}}}`
	const steps = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"steps","arguments":{"n":1},"_meta":{"progressToken":"p"}}}`
	// The answer to steps: its progress, the log where the mode sends it
	// (a stateful session sends none until the client sets a level), and
	// its result.
	const stepsFirst = "event: message\ndata: " + `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","message":"step 1 of 1","progress":1,"total":1}}` + "\n\n"
	const stepsLast = "event: message\ndata: " + `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"done\":1}"}],"structuredContent":{"done":1}}}` + "\n\n"
	const ping = `{"jsonrpc":"2.0","id":3,"method":"ping"}`
	for _, mode := range []struct {
		name string
		mcp  autoexpose.MCPConfig
	}{
		{"stateless", autoexpose.MCPConfig{}},
		{"stateless, go-sdk path", autoexpose.MCPConfig{DisableFastPath: true}},
		{"stateful", autoexpose.MCPConfig{Stateful: true}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			cfg := fixtureConfig(t)
			mode.mcp.SessionSecret = cfg.MCP.SessionSecret
			mode.mcp.Rollout.AllowTokenless = true
			cfg.MCP = mode.mcp
			h, door, _ := newFixture(t, cfg)
			t.Cleanup(func() { door.Close() })
			s := serve(t, h)
			var sid string
			if mode.mcp.Stateful {
				r := s.rawMCP(t, initializeBody(0), raw{})
				if r.Status != 200 || r.Header.Get("Content-Type") != "application/json" {
					t.Errorf("initialize: %d %q %s", r.Status, r.Header.Get("Content-Type"), r.Body)
				}
				sid = r.Header.Get("Mcp-Session-Id")
				s.rawMCP(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, raw{sid: sid, protocol: "2025-11-25"})
			}
			for _, c := range []struct {
				name, body, accept string
				status             int
				contentType, want  string
			}{
				{"a tool call", weather, both, 200, "application/json", weatherResult},
				{"a ping", ping, both, 200, "application/json", `{"jsonrpc":"2.0","id":3,"result":{}}`},
				{"a client that takes an event stream only", weather, "text/event-stream",
					400, "text/plain; charset=utf-8", "Accept must contain both 'application/json' and 'text/event-stream'\n"},
			} {
				r := s.rawMCP(t, c.body, raw{sid: sid, protocol: "2025-11-25", header: []string{"Accept", c.accept}})
				if r.Status != c.status || r.Header.Get("Content-Type") != c.contentType || string(r.Body) != c.want {
					t.Errorf("%s: got %d %q\n%s\nwant %d %q\n%s", c.name, r.Status, r.Header.Get("Content-Type"), r.Body, c.status, c.contentType, c.want)
				}
			}
			r := s.rawMCP(t, steps, raw{sid: sid, protocol: "2025-11-25"})
			if r.Status != 200 || r.Header.Get("Content-Type") != "text/event-stream" ||
				!strings.HasPrefix(string(r.Body), stepsFirst) || !strings.HasSuffix(string(r.Body), stepsLast) {
				t.Errorf("a tool call that streams: got %d %q\n%s\nwant 200 text/event-stream\n%s...%s", r.Status, r.Header.Get("Content-Type"), r.Body, stepsFirst, stepsLast)
			}
		})
	}
}
