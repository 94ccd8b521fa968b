package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An agentShape is how one of NeMo Gym's agents names the calls of its
// trajectory, and whether it sends the mcp_tool_call_provenance sidecar.
type agentShape struct {
	name    string
	emitted func(server, tool string) string
	sidecar bool
	// toolUseID: the agent sends its own id for each call in _meta, as
	// Claude Code does (claudecode/toolUseId), the trajectory's call_id.
	toolUseID bool
}

// sanitize is the Hermes agent's: every character outside [A-Za-z0-9_]
// becomes '_'.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') {
			return r
		}
		return '_'
	}, s)
}

var agentShapes = []agentShape{
	{name: "claude-code", emitted: func(s, t string) string { return "mcp__" + s + "__" + t }, toolUseID: true},
	{name: "claude-code-sidecar", emitted: func(s, t string) string { return "mcp__" + s + "__" + t }, sidecar: true, toolUseID: true},
	{name: "codex", emitted: func(_, t string) string { return t }, sidecar: true},
	{name: "hermes", emitted: func(s, t string) string { return "mcp_" + sanitize(s) + "_" + sanitize(t) }},
	{name: "hermes-double", emitted: func(s, t string) string { return "mcp__" + sanitize(s) + "__" + sanitize(t) }, sidecar: true},
	{name: "openclaw", emitted: func(s, t string) string { return s + "__" + t }},
	{name: "openclaw-sidecar", emitted: func(s, t string) string { return s + "__" + t }, sidecar: true},
}

// TestGymAgentShapes plays every examples/workplace scenario as each of
// NeMo Gym's MCP agents names its calls (Claude Code's mcp__<server>__<tool>,
// codex's plain names with the sidecar, Hermes's mcp_<san>_<san> and
// mcp__<san>__<san>, OpenClaw's <server>__<tool>), and as simple_agent
// (plain names, over HTTP), with the claims checked (mcp.rollout.claims'
// default): each pays reward 1. The server's name has a dash, so that
// Hermes's sanitized forms differ from the others. The same trajectory
// with one call more that the session never made is refused: every form
// is read as the tool's, and checked.
func TestGymAgentShapes(t *testing.T) {
	const serverName = "workplace-assistant"
	s := startExample(t, "workplace", exampleConfig("name: "+serverName+"\nexpose_tools_over_mcp: true\nmcp:")).server
	solutions := workplaceSolutions(t)
	for _, shape := range agentShapes {
		t.Run(shape.name, func(t *testing.T) {
			for _, sol := range solutions {
				seed := map[string]any{"scenario": sol.Scenario}
				var calls []gymCall
				for _, c := range sol.Calls {
					calls = append(calls, gymCall{c.Tool, c.Arguments})
				}
				for _, forged := range []bool{false, true} {
					ro := mcpAgentSeed(t, newGymAgent(t, s, ""), s.url, seed)
					status, body := shapeRollout(t, ro, shape, calls, forged)
					switch {
					case forged && (status != http.StatusUnprocessableEntity || !strings.Contains(string(body), `"call_forged"`)):
						t.Errorf("%s with a forged call: %d %s, want 422 naming it", sol.Scenario, status, body)
					case forged:
					case status != http.StatusOK:
						t.Errorf("%s: verify %d %s", sol.Scenario, status, body)
					default:
						var v verifyReply
						json.Unmarshal(body, &v)
						if v.Reward != 1 {
							t.Errorf("%s: reward %v, want 1: %s", sol.Scenario, v.Reward, body)
						}
						for i, item := range v.Response.Output {
							if want := shape.emitted(serverName, calls[i].Tool); item.Name != want {
								t.Errorf("%s: echoed output[%d].name %q, want the emitted %q", sol.Scenario, i, item.Name, want)
							}
						}
					}
				}
			}
		})
	}
	t.Run("simple_agent", func(t *testing.T) {
		for _, sol := range solutions {
			var calls []gymCall
			for _, c := range sol.Calls {
				calls = append(calls, gymCall{c.Tool, c.Arguments})
			}
			if v := simpleAgentRollout(t, newGymAgent(t, s, ""), map[string]any{"scenario": sol.Scenario}, calls, nil); v.Reward != 1 {
				t.Errorf("%s: reward %v, want 1", sol.Scenario, v.Reward)
			}
		}
	})
}

// shapeRollout plays a seeded rollout's calls over MCP as shape's agent
// does, then posts /verify with the seed's cookies, its trajectory named as
// the agent names it (and, when forged, one more call of the first tool
// that was never made), and returns the answer.
func shapeRollout(t *testing.T, ro *seededRollout, shape agentShape, calls []gymCall, forged bool) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cs, done := ro.connect(t, ctx, "", nil)
	defer done()
	var output []any
	provenance := map[string]any{}
	item := func(id, tool string, args map[string]any) {
		b, _ := json.Marshal(args)
		output = append(output, map[string]any{"type": "function_call", "call_id": id, "name": shape.emitted(ro.meta.ServerName, tool), "arguments": string(b)})
		provenance[id] = map[string]string{"server_name": ro.meta.ServerName, "tool_name": tool}
	}
	for i, c := range calls {
		id := fmt.Sprintf("call_%d", i)
		params := &mcp.CallToolParams{Name: c.Tool, Arguments: c.Arguments}
		if shape.toolUseID {
			id = fmt.Sprintf("toolu_%d", i)
			params.Meta = mcp.Meta{"claudecode/toolUseId": id}
		}
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			t.Fatalf("tools/call %s: %v %v", c.Tool, err, res)
		}
		item(id, c.Tool, c.Arguments)
	}
	if forged {
		item("call_forged", calls[0].Tool, map[string]any{"forged": true})
	}
	verify := map[string]any{"response": map[string]any{"output": output}}
	if shape.sidecar {
		verify["mcp_tool_call_provenance"] = provenance
	}
	for k, v := range ro.seed {
		verify[k] = v
	}
	ro.a.cookies = ro.cookies
	return ro.a.post("/verify", verify)
}
