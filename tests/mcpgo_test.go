package tests

import (
	"context"
	"encoding/json"
	"runtime/debug"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// TestMCPGoClient: mcp-go's default Streamable HTTP client, given only the
// rollout's token header, works under every session policy. It probes with
// server/discover first: a stateless door speaks the 2026-07-28 protocol
// with it; a stateful or exclusive door answers the probe with method not
// found, so the client falls back to initialize
// (2025-11-25) instead of settling on a version the transport refuses. The
// HTTP call and the MCP calls of the rollout share its state.
func TestMCPGoClient(t *testing.T) {
	for _, c := range []struct {
		name     string
		mcp      autoexpose.MCPConfig
		protocol string
	}{
		{"stateless", autoexpose.MCPConfig{}, "2026-07-28"},
		{"stateful", autoexpose.MCPConfig{Stateful: true}, "2025-11-25"},
		{"exclusive", autoexpose.MCPConfig{Exclusive: true}, "2025-11-25"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := fixtureConfig(t)
			c.mcp.SessionSecret = cfg.MCP.SessionSecret
			cfg.MCP = c.mcp
			h, door, _ := newFixture(t, cfg)
			s := serve(t, h)
			t.Cleanup(func() { door.Close() })

			agent := s.newClient()
			_, meta := agent.seedSession(`{}`)
			tok := meta.Headers[tokenHeader]
			if tok == "" {
				t.Fatalf("seed metadata: %+v", meta)
			}
			if r := agent.post("/weather", `{"city":"Oslo"}`); r.Status != 200 {
				t.Fatalf("POST /weather: %d %s", r.Status, r.Body)
			}

			client, err := mcpgoclient.NewStreamableHttpClient(s.url+meta.URLPath,
				mcpgotransport.WithHTTPHeaders(map[string]string{tokenHeader: tok}))
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := client.Start(ctx); err != nil {
				t.Fatal(err)
			}
			init, err := client.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
				ClientInfo: mcpgo.Implementation{Name: "mcp-go", Version: "1"},
			}})
			if err != nil {
				t.Fatalf("initialize: %v", err)
			}
			if init.ProtocolVersion != c.protocol || init.ServerInfo.Name != "fixture" {
				t.Errorf("initialize: protocol %q, server %q; want %q, fixture", init.ProtocolVersion, init.ServerInfo.Name, c.protocol)
			}

			list, err := client.ListTools(ctx, mcpgo.ListToolsRequest{})
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			var names []string
			for _, tl := range list.Tools {
				names = append(names, tl.Name)
			}
			if diff := cmp.Diff(allTools, names); diff != "" {
				t.Errorf("tools/list (-want +got):\n%s", diff)
			}

			for _, call := range []struct {
				name string
				args map[string]any
				want string
			}{
				{"weather", map[string]any{"city": "Paris"},
					`{"content":[{"type":"text","text":"{\"weather\":\"The weather in Paris is sunny and 72 F.\"}"}],"structuredContent":{"weather":"The weather in Paris is sunny and 72 F."}}`},
				{"history", map[string]any{},
					`{"content":[{"type":"text","text":"{\"history\":[\"Oslo\",\"Paris\"]}"}],"structuredContent":{"history":["Oslo","Paris"]}}`},
			} {
				res, err := client.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: call.name, Arguments: call.args}})
				if err != nil {
					t.Fatalf("tools/call %s: %v", call.name, err)
				}
				if got := mcpgoResult(t, res); got != call.want {
					t.Errorf("tools/call %s:\n%s\nwant\n%s", call.name, got, call.want)
				}
			}
		})
	}
}

// mcpgoResult renders an mcp-go call result as the JSON of its content,
// structuredContent and isError, in that order.
func mcpgoResult(t *testing.T, res *mcpgo.CallToolResult) string {
	t.Helper()
	out := struct {
		Content           []mcpgo.Content `json:"content"`
		StructuredContent any             `json:"structuredContent,omitempty"`
		IsError           bool            `json:"isError,omitempty"`
	}{res.Content, res.StructuredContent, res.IsError}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDiscoverUnsupportedVersion: the exact answer to a 2026-07-28
// server/discover. A stateless door serves that version; a stateful or
// exclusive one answers method not found (-32601, HTTP 404 at that
// version), as a server that predates discover does, and keeps no session
// for it.
func TestDiscoverUnsupportedVersion(t *testing.T) {
	const body = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}}}`
	const refused = `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: \"server/discover\""}}`
	served := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` +
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fixture","version":"` + mainVersion() + `"}},"ttlMs":0,"cacheScope":"public",` +
		`"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],` +
		`"capabilities":{"logging":{},"tools":{}}}}`
	for _, c := range []struct {
		name        string
		mcp         autoexpose.MCPConfig
		status      int
		contentType string
		want        string
	}{
		{"stateless", autoexpose.MCPConfig{}, 200, "application/json", served},
		{"stateful", autoexpose.MCPConfig{Stateful: true}, 404, "application/json", refused},
		{"exclusive", autoexpose.MCPConfig{Exclusive: true}, 404, "application/json", refused},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newPolicyServer(t, c.mcp)
			r := s.rawMCP(t, body, raw{protocol: "2026-07-28", header: []string{"Mcp-Method", "server/discover"}})
			if r.Status != c.status || r.Header.Get("Content-Type") != c.contentType || string(r.Body) != c.want {
				t.Errorf("got %d %q %s\nwant %d %q %s", r.Status, r.Header.Get("Content-Type"), r.Body, c.status, c.contentType, c.want)
			}
			for ss := range s.mcpServer.Sessions() {
				t.Errorf("session %s is live after the discover", ss.ID())
			}
		})
	}
}

// mainVersion is the version a door reports as its server's: the main
// module's ("(devel)" in a test binary).
func mainVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "devel"
}
