package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// TestNewUser does what a newcomer does: start the example with the README's
// first command, then list and call its tools with the official TypeScript
// SDK client.
func TestNewUser(t *testing.T) {
	t.Parallel()
	nodeclient.Node(t)
	base := startExample(t, "weather", "").url
	out := nodeclient.Run(t, nodeclient.Scenario{
		URL:   base + "/mcp",
		Steps: []nodeclient.Step{nodeclient.List(), nodeclient.Call("get_weather", map[string]any{"city": "Paris"})},
	})
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"tools"`
	}
	out.Decode(t, 0, &list)
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if diff := cmp.Diff([]string{"forecast", "get_weather", "list_cities"}, names); diff != "" {
		t.Errorf("tools/list (-want +got):\n%s", diff)
	} else if list.Tools[1].Description != "Get the current weather in a city." {
		t.Errorf("tools/list: %+v", list.Tools)
	}
	var res struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
		StructuredContent map[string]string `json:"structuredContent"`
		IsError           bool              `json:"isError"`
	}
	out.Decode(t, 1, &res)
	const want = "The weather in Paris is sunny and 72 F."
	if res.IsError || len(res.Content) != 1 || res.Content[0].Text != `{"weather":"`+want+`"}` || res.StructuredContent["weather"] != want {
		t.Errorf("tools/call: %s", out.Results[1])
	}
}

// TestRolloutTypeScript runs a whole rollout the way an RL harness's agent
// does, with the official TypeScript SDK client: seed with an allow-list,
// read the "mcp" metadata, connect with its header, see and call only the
// allowed tool, and verify with namespaced names.
func TestRolloutTypeScript(t *testing.T) {
	t.Parallel()
	nodeclient.Node(t)
	base := startExample(t, "weather", "").url
	connect := nodeclient.ConnectHeadersFrom(0, "mcp.headers")
	connect.URLPath = "mcp.url_path"
	verify := map[string]any{
		"responses_create_params": map[string]any{"input": "What's the weather in Paris?"},
		"response": map[string]any{"output": []any{
			map[string]any{"type": "function_call", "call_id": "call_1", "name": "mcp__example_mcp_weather__get_weather", "arguments": `{"city":"Paris"}`},
			map[string]any{"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
		}},
	}
	out := nodeclient.Run(t, nodeclient.Scenario{
		URL: base + "/mcp",
		Steps: []nodeclient.Step{
			nodeclient.HTTP("POST", "/seed_session", map[string]any{"allowed_tools": []string{"get_weather"}}),
			connect,
			nodeclient.List(),
			nodeclient.Call("get_weather", map[string]any{"city": "Paris"}),
			nodeclient.Call("list_cities", nil),
			nodeclient.HTTP("POST", "/verify", verify),
		},
	})
	var seed nodeclient.HTTPResult
	out.Decode(t, 0, &seed)
	var meta struct {
		MCP struct {
			ServerName string            `json:"server_name"`
			URLPath    string            `json:"url_path"`
			Transport  string            `json:"transport"`
			Headers    map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	json.Unmarshal(seed.Body, &meta)
	if seed.Status != 200 || meta.MCP.ServerName != "example_mcp_weather" || meta.MCP.URLPath != "/mcp" ||
		meta.MCP.Transport != "http" || meta.MCP.Headers["X-NeMo-Gym-Session-Token"] == "" {
		t.Fatalf("seed: %d %s", seed.Status, seed.Body)
	}
	if err := out.Err(1); err != nil {
		t.Fatalf("connect: %v", err)
	}
	if got := string(out.Results[2]); !strings.Contains(got, `"name":"get_weather"`) || strings.Contains(got, "list_cities") {
		t.Errorf("tools/list: %s", got)
	}
	if got := string(out.Results[3]); !strings.Contains(got, "The weather in Paris is sunny and 72 F.") || strings.Contains(got, `"isError":true`) {
		t.Errorf("allowed call: %s", got)
	}
	if got := string(out.Results[4]); !strings.Contains(got, `"text":"Tool 'list_cities' is not allowed for this session."`) || !strings.Contains(got, `"isError":true`) {
		t.Errorf("refused call: %s", got)
	}
	var v nodeclient.HTTPResult
	out.Decode(t, 5, &v)
	var scored struct {
		Reward   float64 `json:"reward"`
		Response struct {
			Output []map[string]any `json:"output"`
		} `json:"response"`
	}
	if err := json.Unmarshal(v.Body, &scored); err != nil || v.Status != 200 {
		t.Fatalf("verify: %d %s", v.Status, v.Body)
	}
	if scored.Reward != 1.0 || fmt.Sprint(scored.Response.Output[0]["name"]) != "mcp__example_mcp_weather__get_weather" {
		t.Errorf("verify: %s", v.Body)
	}
}
