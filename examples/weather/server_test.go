package main

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testServer serves the weather example with one of its config files, in
// process.
func testServer(t *testing.T, config string) (*autoexposetest.Server, *autoexpose.Door) {
	t.Helper()
	cfg, err := autoexpose.LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MCP.SessionSecretEnv = "" // a random secret: the test needs no other
	cfg.Logger = slog.New(slog.DiscardHandler)
	door, err := newServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { door.Close() })
	return autoexposetest.NewServer(t, door, door), door
}

// TestDoors: every tool answers alike over HTTP and over MCP, stateless
// (server.yaml) and stateful (stateful.yaml), and every tool call is
// replayed through the router: its otelhttp middleware, which mcpdoor does
// not know, must run.
func TestDoors(t *testing.T) {
	for _, config := range []string{"server.yaml", "stateful.yaml"} {
		t.Run(config, func(t *testing.T) {
			ts, door := testServer(t, config)
			autoexposetest.Verdicts(t, door, map[string]string{
				"forecast":           "replay",
				"get_weather":        "replay",
				"list_cities":        "replay",
				"POST /seed_session": "reserved",
				"POST /verify":       "reserved",
			})
			ts.Parity(t,
				autoexposetest.Call{Tool: "get_weather", Arguments: `{"city":"Paris"}`},
				autoexposetest.Call{Tool: "get_weather", Arguments: `{"city":""}`},     // the handler's 400
				autoexposetest.Call{Tool: "get_weather", Arguments: `{"city":5}`},      // the schema's 422
				autoexposetest.Call{Tool: "get_weather", Arguments: `{"town":"Oslo"}`}, // the schema's 422
				autoexposetest.Call{Tool: "forecast", Arguments: `{"city":"Oslo","days":3}`},
				autoexposetest.Call{Tool: "forecast", Arguments: `{"city":"Oslo","days":9}`},
				autoexposetest.Call{Tool: "list_cities"}, // each session's own: [Paris]
			)
		})
	}
}

// TestRollout runs a rollout as NeMo Gym's claude_code_agent does: seed
// with an allow-list, call the allowed tool over MCP with the token, and
// verify with the seed's cookies.
func TestRollout(t *testing.T) {
	ts, _ := testServer(t, "server.yaml")
	c := ts.Client()
	seed := c.Seed(t, `{"allowed_tools":["get_weather"]}`)
	var meta struct {
		MCP struct {
			ServerName string `json:"server_name"`
			URLPath    string `json:"url_path"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal(seed.Body, &meta); err != nil || meta.MCP.ServerName != "example_mcp_weather" || meta.MCP.URLPath != "/mcp" {
		t.Errorf("seed: %s; want the server example_mcp_weather at /mcp", seed.Body)
	}
	cs := c.Connect(t, nil)

	list, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(list.Tools) != 1 || list.Tools[0].Name != "get_weather" {
		t.Fatalf("tools/list: %v, %v; want get_weather alone", list, err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Oslo"}})
	if err != nil || res.IsError {
		t.Fatalf("get_weather: %+v, %v", res, err)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_cities", Arguments: map[string]any{}})
	if err != nil || !res.IsError || res.Content[0].(*mcp.TextContent).Text != "Tool 'list_cities' is not allowed for this session." {
		t.Errorf("list_cities: %+v, %v; want the allow-list's refusal", res, err)
	}

	r := c.Verify(t, `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__example_mcp_weather__get_weather","arguments":"{\"city\":\"Oslo\"}"}]}}`)
	var scored struct {
		Reward   float64
		Response struct {
			Output []struct{ Name string }
		}
	}
	if err := json.Unmarshal(r.Body, &scored); err != nil || r.Status != 200 || scored.Reward != 1 || scored.Response.Output[0].Name != "mcp__example_mcp_weather__get_weather" {
		t.Errorf("verify: %d %s; want reward 1 and the emitted name echoed", r.Status, r.Body)
	}
}
