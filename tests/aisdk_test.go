package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// TestAISDKClient: @ai-sdk/mcp, the Vercel AI SDK's MCP client, runs a
// rollout under every session policy, as an agent does: it seeds over HTTP,
// connects with the seed's token header, lists and calls tools, and its
// calls share the seeded session's state with the HTTP door. It probes with
// a 2026-07-28 server/discover and takes a modern error (-32020 to -32022) as
// final, so a stateful or exclusive door, whose transport serves only the
// versions initialize opens, must answer the probe in a way that lets it fall
// back to initialize.
func TestAISDKClient(t *testing.T) {
	t.Parallel()
	nodeclient.Node(t)
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
			t.Parallel()
			cfg := fixtureConfig(t)
			c.mcp.SessionSecret = cfg.MCP.SessionSecret
			cfg.MCP = c.mcp
			h, door, _ := newFixture(t, cfg)
			s := serve(t, h)
			t.Cleanup(func() { door.Close() })

			out := nodeclient.Run(t, nodeclient.Scenario{
				URL:    s.url + "/mcp",
				Client: nodeclient.AISDK,
				Steps: []nodeclient.Step{
					nodeclient.HTTP(http.MethodPost, "/seed_session", map[string]any{}),
					nodeclient.HTTP(http.MethodPost, "/weather", map[string]any{"city": "Oslo"}),
					nodeclient.ConnectHeadersFrom(0, "mcp.headers"),
					nodeclient.List(),
					nodeclient.Call("weather", map[string]any{"city": "Paris"}),
					nodeclient.Call("history", nil),
				},
			})
			var info struct {
				ServerInfo      struct{ Name string } `json:"serverInfo"`
				ProtocolVersion string                `json:"protocolVersion"`
			}
			out.Decode(t, 2, &info)
			if info.ProtocolVersion != c.protocol || info.ServerInfo.Name != "fixture" {
				t.Errorf("connect: protocol %q, server %q; want %q, fixture", info.ProtocolVersion, info.ServerInfo.Name, c.protocol)
			}
			var list struct{ Tools []struct{ Name string } }
			out.Decode(t, 3, &list)
			var names []string
			for _, tl := range list.Tools {
				names = append(names, tl.Name)
			}
			if diff := cmp.Diff(allTools, names); diff != "" {
				t.Errorf("tools/list (-want +got):\n%s", diff)
			}
			for i, want := range map[int]string{
				4: `{"content":[{"type":"text","text":"{\"weather\":\"The weather in Paris is sunny and 72 F.\"}"}],"structuredContent":{"weather":"The weather in Paris is sunny and 72 F."}}`,
				5: `{"content":[{"type":"text","text":"{\"history\":[\"Oslo\",\"Paris\"]}"}],"structuredContent":{"history":["Oslo","Paris"]}}`,
			} {
				// The result's other fields (_meta, resultType) are the
				// protocol version's, which the connect step checks.
				var res struct {
					Content           json.RawMessage `json:"content"`
					StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
					IsError           bool            `json:"isError,omitempty"`
				}
				out.Decode(t, i, &res)
				b, err := json.Marshal(res)
				if err != nil {
					t.Fatal(err)
				}
				if got := string(b); got != want {
					t.Errorf("step %d:\n%s\nwant\n%s", i, got, want)
				}
			}
		})
	}
}

// TestNodeClientsOpening: how the Node clients open a session with a
// stateful door, as docs/sessions.md tells it: the TypeScript SDK's client
// sends no server/discover, it opens with initialize; @ai-sdk/mcp probes
// with server/discover, gets method not found, and falls back to
// initialize.
func TestNodeClientsOpening(t *testing.T) {
	t.Parallel()
	nodeclient.Node(t)
	for _, c := range []struct {
		client string
		want   []string
	}{
		{"", []string{"initialize", "notifications/initialized"}},
		{nodeclient.AISDK, []string{"server/discover", "initialize", "notifications/initialized"}},
	} {
		t.Run("client="+c.client, func(t *testing.T) {
			t.Parallel()
			cfg := fixtureConfig(t)
			cfg.MCP.Stateful = true
			cfg.MCP.Rollout.AllowTokenless = true
			h, door, _ := newFixture(t, cfg)
			t.Cleanup(func() { door.Close() })
			var mu sync.Mutex
			var methods []string
			s := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && r.URL.Path == "/mcp" {
					body, _ := io.ReadAll(r.Body)
					r.Body = io.NopCloser(bytes.NewReader(body))
					var msg struct{ Method string }
					json.Unmarshal(body, &msg)
					mu.Lock()
					methods = append(methods, msg.Method)
					mu.Unlock()
				}
				h.ServeHTTP(w, r)
			}))
			out := nodeclient.Run(t, nodeclient.Scenario{URL: s.url + "/mcp", Client: c.client, Steps: []nodeclient.Step{nodeclient.Info()}})
			var info struct{ ProtocolVersion string }
			out.Decode(t, 0, &info)
			mu.Lock()
			defer mu.Unlock()
			if len(methods) < len(c.want) || !slices.Equal(methods[:len(c.want)], c.want) || info.ProtocolVersion != "2025-11-25" {
				t.Errorf("the client sent %q and settled on %q; want it to open with %q at 2025-11-25", methods, info.ProtocolVersion, c.want)
			}
		})
	}
}
