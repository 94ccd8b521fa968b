package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// agentNameForms are the names each agent emits for the tool weather of the
// server gym-fixture, and names that only look like one of them.
var agentNameForms = []struct {
	agent, name, want string // want: what the verifier sees
}{
	{"claude-code", "mcp__gym-fixture__weather", "weather"},
	{"hermes", "mcp_gym_fixture_weather", "weather"},
	{"hermes-double", "mcp__gym_fixture__weather", "weather"},
	{"openclaw", "gym-fixture__weather", "weather"},
	{"codex", "weather", "weather"},
	{"lookalike-other-server", "mcp__other__weather", "mcp__other__weather"},
	{"lookalike-no-such-tool", "mcp__gym-fixture__weathers", "mcp__gym-fixture__weathers"},
	{"lookalike-hermes-no-such-tool", "mcp_gym_fixture_weather_now", "mcp_gym_fixture_weather_now"},
	{"lookalike-openclaw-sanitized", "gym_fixture__weather", "gym_fixture__weather"},
	{"lookalike-openclaw-other", "other__weather", "other__weather"},
	{"lookalike-prefix-only", "mcp__gym-fixture__", "mcp__gym-fixture__"},
}

// TestVerifyAgentNames: /verify reads each agent's form of a tool's name
// (Claude Code, Hermes's two, OpenClaw's, the plain one) as the tool, for a
// call the rollout made, and leaves every lookalike as it was emitted; the
// answer echoes the emitted names.
func TestVerifyAgentNames(t *testing.T) {
	cfg := fixtureConfig(t)
	cfg.Name = "gym-fixture"
	h, door, _ := newFixture(t, cfg)
	s := inProcess(t, h, door)
	c, cs, _ := s.rollout(`{}`)
	var output []string
	var want, emitted []string
	for i, f := range agentNameForms {
		args := fmt.Sprintf(`{"city":%q}`, f.agent)
		if f.want == "weather" {
			if res := call(t, cs, "weather", map[string]any{"city": f.agent}); res.IsError {
				t.Fatalf("weather: %s", resultJSON(t, res))
			}
		}
		lit, _ := json.Marshal(args)
		output = append(output, fmt.Sprintf(`{"type":"function_call","call_id":"call_%d","name":%q,"arguments":%s}`, i, f.name, lit))
		want = append(want, f.want)
		emitted = append(emitted, f.name)
	}
	r := c.post("/verify", `{"response":{"output":[`+strings.Join(output, ",")+`]}}`)
	var got struct {
		Seen     []string `json:"seen_names"`
		Response struct {
			Output []struct {
				Name string `json:"name"`
			} `json:"output"`
		} `json:"response"`
	}
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	}
	if diff := cmp.Diff(want, got.Seen); diff != "" {
		t.Errorf("the names the verifier saw (-want +got):\n%s", diff)
	}
	var echoed []string
	for _, item := range got.Response.Output {
		echoed = append(echoed, item.Name)
	}
	if diff := cmp.Diff(emitted, echoed); diff != "" {
		t.Errorf("the names /verify echoed (-want +got):\n%s", diff)
	}
}
