package tests

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGymRefusalTexts: the texts a model reads when the door refuses a
// call are newest NeMo Gym's (nemo_gym/mcp_auto_exposure.py), so that a
// trajectory reads the same from a Go server: the token refusals name Gym,
// and the arguments' refusal says 422, as Gym's "HTTP 422 from POST /<tool>:".
func TestGymRefusalTexts(t *testing.T) {
	h, door, _ := newFixture(t, fixtureConfig(t))
	s := inProcess(t, h, door)
	_, seeded, _ := s.rollout(`{}`)
	for _, c := range []struct {
		name string
		cs   *mcp.ClientSession
		args map[string]any
		want string
	}{
		{"no token", s.connect(mcpOptions{}), map[string]any{"city": "Paris"}, "Missing X-NeMo-Gym-Session-Token for Gym MCP tool call."},
		{"a garbage token", s.connect(mcpOptions{header: http.Header{tokenHeader: {"garbage"}}}), map[string]any{"city": "Paris"}, "Invalid Gym MCP session token."},
		{"arguments against the schema", seeded, map[string]any{"city": 5},
			"HTTP 422 from POST /weather: Invalid arguments for weather (checked against its input schema; the route was not called): city: want string, got integer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := call(t, c.cs, "weather", c.args)
			if got := res.Content[0].(*mcp.TextContent).Text; !res.IsError || got != c.want {
				t.Errorf("isError %v, text %q, want %q", res.IsError, got, c.want)
			}
		})
	}
}

// TestVerifySingleUnderscore: /verify normalizes mcp_<server>_<tool>, the
// form some agents emit, where it is unambiguous — the server's own name,
// then one of its tools — and leaves every other such name as it is; the
// answer gets the emitted names back.
func TestVerifySingleUnderscore(t *testing.T) {
	h, door, _ := newFixture(t, uncheckedConfig(t))
	s := inProcess(t, h, door)
	names := []string{
		"mcp_fixture_weather",     // the server's name, then a tool: weather
		"mcp__fixture__weather",   // the double-underscore form: weather
		"mcp_fixture_no_such",     // not a tool: kept
		"mcp_other_weather",       // another server: kept
		"mcp_fixture_",            // nothing after the server: kept
		"mcp_fixture_mcp_fixture", // not a tool either: kept
	}
	output := []map[string]any{}
	for i, n := range names {
		output = append(output, map[string]any{"type": "function_call", "call_id": "c" + string(rune('0'+i)), "name": n, "arguments": `{"city":"Paris"}`})
	}
	body, _ := json.Marshal(map[string]any{"response": map[string]any{"output": output}})
	r := s.post("/verify", string(body))
	var got struct {
		Seen     []string `json:"seen_names"`
		Response struct {
			Output []struct{ Name string } `json:"output"`
		} `json:"response"`
	}
	if err := json.Unmarshal(r.Body, &got); err != nil || r.Status != http.StatusOK {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	}
	want := []string{"weather", "weather", "mcp_fixture_no_such", "mcp_other_weather", "mcp_fixture_", "mcp_fixture_mcp_fixture"}
	for i := range want {
		if i >= len(got.Seen) || got.Seen[i] != want[i] {
			t.Errorf("the verifier saw %q, want %q", got.Seen, want)
			break
		}
	}
	for i, item := range got.Response.Output {
		if item.Name != names[i] {
			t.Errorf("answer's item %d named %q, want the emitted %q", i, item.Name, names[i])
		}
	}
}
