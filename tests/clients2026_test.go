package tests

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// The clients of protocol 2026-07-28, as real Node processes on 127.0.0.1:
// the TypeScript SDK's v2 client (@modelcontextprotocol/client) and the
// OpenAI Agents SDK's MCP client (@openai/agents), which negotiate the
// protocol (server/discover, then initialize where a door does not serve
// 2026-07-28).

// clientDoors are the session policies a rollout server can serve, and the
// protocol a negotiating client settles on with each: a stateful or
// exclusive door serves the versions initialize opens, up to 2025-11-25.
var clientDoors = []struct {
	name     string
	mcp      autoexpose.MCPConfig
	protocol string
}{
	{"stateless", autoexpose.MCPConfig{}, "2026-07-28"},
	{"stateless, no fast path", autoexpose.MCPConfig{DisableFastPath: true}, "2026-07-28"},
	{"stateful", autoexpose.MCPConfig{Stateful: true}, "2025-11-25"},
	{"exclusive", autoexpose.MCPConfig{Exclusive: true}, "2025-11-25"},
}

// rolloutSteps is a rollout as an agent plays it: it seeds over HTTP (with
// a cookie jar), makes an HTTP call, connects with the seed's token header,
// lists and calls tools, and posts /verify with the seed's cookies and its
// trajectory, named as the model emitted the calls.
func rolloutSteps() []nodeclient.Step {
	verify := map[string]any{"response": map[string]any{"output": []any{
		map[string]any{"type": "function_call", "name": "mcp__fixture__weather", "arguments": `{"city":"Paris"}`, "call_id": "call_1"},
		map[string]any{"type": "function_call", "name": "mcp__fixture__history", "arguments": `{}`, "call_id": "call_2"},
	}}}
	return []nodeclient.Step{
		nodeclient.HTTP(http.MethodPost, "/seed_session", map[string]any{"allowed_tools": []string{"weather", "history"}}),
		nodeclient.HTTP(http.MethodPost, "/weather", map[string]any{"city": "Oslo"}),
		nodeclient.ConnectHeadersFrom(0, "mcp.headers"),
		nodeclient.List(),
		nodeclient.Call("weather", map[string]any{"city": "Paris"}),
		nodeclient.Call("history", nil),
		nodeclient.Call("text", nil), // not in the token's list
		nodeclient.HTTP(http.MethodPost, "/verify", verify),
	}
}

// checkRollout checks the results of rolloutSteps: the protocol the client
// settled on, the token's tools, the calls' results in the seeded session,
// and /verify's reward, names echoed back.
func checkRollout(t *testing.T, out nodeclient.Output, protocol string) {
	t.Helper()
	var info struct {
		ServerInfo      struct{ Name string } `json:"serverInfo"`
		Capabilities    json.RawMessage       `json:"capabilities"`
		ProtocolVersion string                `json:"protocolVersion"`
	}
	out.Decode(t, 2, &info)
	if info.ProtocolVersion != protocol || info.ServerInfo.Name != "fixture" || compactJSON(t, info.Capabilities) != `{"logging":{},"tools":{}}` {
		t.Errorf("connect: protocol %q, server %q, capabilities %s; want %q, fixture, {\"logging\":{},\"tools\":{}}", info.ProtocolVersion, info.ServerInfo.Name, info.Capabilities, protocol)
	}
	var list struct{ Tools []struct{ Name string } }
	out.Decode(t, 3, &list)
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if diff := cmp.Diff([]string{"history", "weather"}, names); diff != "" {
		t.Errorf("tools/list, narrowed by the token (-want +got):\n%s", diff)
	}
	for i, want := range map[int]string{
		4: `{"content":[{"type":"text","text":"{\"weather\":\"The weather in Paris is sunny and 72 F.\"}"}],"structuredContent":{"weather":"The weather in Paris is sunny and 72 F."}}`,
		5: `{"content":[{"type":"text","text":"{\"history\":[\"Oslo\",\"Paris\"]}"}],"structuredContent":{"history":["Oslo","Paris"]}}`,
		6: `{"content":[{"type":"text","text":"Tool 'text' is not allowed for this session."}],"structuredContent":{"error":{"code":"tool_not_allowed","message":"the session token does not list this tool","status":403,"effect":"not_applied"}},"isError":true}`,
	} {
		// The result's other fields (_meta, resultType) are the protocol
		// version's, which the connect step checks.
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
	var verify nodeclient.HTTPResult
	out.Decode(t, 7, &verify)
	var v struct {
		Reward   float64  `json:"reward"`
		History  []string `json:"history"`
		Response struct {
			Output []struct{ Name string } `json:"output"`
		} `json:"response"`
	}
	if err := json.Unmarshal(verify.Body, &v); err != nil || verify.Status != http.StatusOK {
		t.Fatalf("verify: %d %s", verify.Status, verify.Body)
	}
	if v.Reward != 1 || !slices.Equal(v.History, []string{"Oslo", "Paris"}) || len(v.Response.Output) != 2 || v.Response.Output[0].Name != "mcp__fixture__weather" {
		t.Errorf("verify: %s, want reward 1, the history [Oslo Paris], the emitted names echoed", verify.Body)
	}
}

// TestModernClients: the TypeScript SDK's v2 client and the OpenAI Agents
// SDK's MCP client play a rollout through every session policy, as an agent
// does, with the fast path on and off: on a stateless door at protocol
// 2026-07-28, on a stateful or exclusive one at 2025-11-25 after
// server/discover is refused (method not found). The v2 client also runs
// its legacy negotiation (initialize only) on every door.
func TestModernClients(t *testing.T) {
	t.Parallel()
	nodeclient.Node(t)
	for _, c := range []struct {
		name, client, negotiation string
	}{
		{"ts-v2", nodeclient.TSv2, ""},
		{"ts-v2 legacy", nodeclient.TSv2, "legacy"},
		{"openai-agents", nodeclient.OpenAIAgents, ""},
	} {
		for _, door := range clientDoors {
			t.Run(c.name+"/"+door.name, func(t *testing.T) {
				t.Parallel()
				cfg := fixtureConfig(t)
				door.mcp.SessionSecret = cfg.MCP.SessionSecret
				cfg.MCP = door.mcp
				cfg.MCP.Rollout.AllowedTools = fixtureConfig(t).MCP.Rollout.AllowedTools
				h, d, _ := newFixture(t, cfg)
				s := serve(t, h)
				t.Cleanup(func() { d.Close() })
				out := nodeclient.Run(t, nodeclient.Scenario{
					URL:                s.url + "/mcp",
					Client:             c.client,
					VersionNegotiation: c.negotiation,
					Steps:              rolloutSteps(),
				})
				protocol := door.protocol
				if c.negotiation == "legacy" {
					protocol = "2025-11-25"
				}
				checkRollout(t, out, protocol)
			})
		}
	}
}

// TestTSv2PinnedStateful: a v2 client pinned to protocol 2026-07-28 cannot
// use a stateful door, by the protocol's design: 2026-07-28 has no
// sessions, and a stateful door serves the versions initialize opens. The
// door refuses its server/discover (method not found, HTTP 404), and the
// client, which may not fall back, says so; on a stateless door the pinned
// client works.
func TestTSv2PinnedStateful(t *testing.T) {
	t.Parallel()
	nodeclient.Node(t)
	const refused = "Version negotiation failed: the server did not offer pinned protocol version 2026-07-28 via server/discover (no fallback in pin mode)"
	for _, door := range clientDoors {
		t.Run(door.name, func(t *testing.T) {
			t.Parallel()
			cfg := fixtureConfig(t)
			door.mcp.SessionSecret = cfg.MCP.SessionSecret
			door.mcp.Rollout.AllowTokenless = true
			cfg.MCP = door.mcp
			h, d, _ := newFixture(t, cfg)
			s := serve(t, h)
			t.Cleanup(func() { d.Close() })
			out := nodeclient.Run(t, nodeclient.Scenario{
				URL:                s.url + "/mcp",
				Client:             nodeclient.TSv2,
				VersionNegotiation: "2026-07-28",
				Steps:              []nodeclient.Step{nodeclient.Info(), nodeclient.Call("weather", map[string]any{"city": "Lima"})},
			})
			if door.protocol == "2026-07-28" {
				var info struct{ ProtocolVersion string }
				out.Decode(t, 0, &info)
				var res struct{ IsError bool }
				out.Decode(t, 1, &res)
				if info.ProtocolVersion != "2026-07-28" || res.IsError {
					t.Errorf("pinned on a stateless door: %s %s", out.Results[0], out.Results[1])
				}
				return
			}
			for i := range out.Results {
				err := out.Err(i)
				if err == nil || err.Message != refused || !strings.Contains(string(err.Code), "ERA_NEGOTIATION_FAILED") {
					t.Errorf("step %d: %s\nwant the error %q (ERA_NEGOTIATION_FAILED)", i, out.Results[i], refused)
				}
			}
		})
	}
}
