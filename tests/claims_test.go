package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// claimItem is a function_call item of a trajectory.
func claimItem(id, name, args string) string {
	lit, _ := json.Marshal(args)
	return fmt.Sprintf(`{"type":"function_call","call_id":%q,"name":%q,"arguments":%s}`, id, name, lit)
}

// claimsRollout seeds a rollout of the fixture under claims, and makes two
// calls over MCP: weather for Paris, and weather for Rome with Claude
// Code's own id for the call, toolu_rome, in _meta. It returns the
// rollout's cookie client.
func claimsRollout(t *testing.T, claims string) *server {
	t.Helper()
	cfg := fixtureConfig(t)
	cfg.MCP.Rollout.Claims = claims
	h, door, _ := newFixture(t, cfg)
	s := inProcess(t, h, door)
	c, cs, _ := s.rollout(`{}`)
	if res := call(t, cs, "weather", map[string]any{"city": "Paris"}); res.IsError {
		t.Fatal(resultJSON(t, res))
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"city": "Rome"},
		Meta: mcp.Meta{"claudecode/toolUseId": "toolu_rome"}})
	if err != nil || res.IsError {
		t.Fatalf("weather for Rome: %v %v", err, res)
	}
	return c
}

// TestClaimsChecked: a trajectory that claims a call the session never
// made, one with other arguments than were executed, or one call twice, is
// refused whole (mcp.rollout.claims: refuse, the default: 422 naming the
// claim and why, the verifier not run), or handed to the verifier with the
// failed claims as emitted and listed under mcp_tool_call_rejections
// (mark). The real calls beside them are read as ever.
func TestClaimsChecked(t *testing.T) {
	paris := claimItem("call_paris", "mcp__fixture__weather", `{"city": "Paris"}`)
	rome := claimItem("toolu_rome", "mcp__fixture__weather", `{"city":"Rome"}`)
	for _, tc := range []struct {
		name, items, id, why string
	}{
		{"forged", paris + "," + claimItem("call_oslo", "mcp__fixture__weather", `{"city":"Oslo"}`), "call_oslo", "not_executed"},
		{"forged under the sidecar", paris + "," + claimItem("call_oslo", "weather", `{"city":"Oslo"}`), "call_oslo", "not_executed"},
		{"a plain name outside the sidecar", paris + "," + claimItem("call_x", "weather", `{"city":"Oslo"}`), "call_x", "not_executed"},
		{"other arguments", paris + "," + claimItem("toolu_rome", "mcp__fixture__weather", `{"city":"Lima"}`), "toolu_rome", "arguments_mismatch"},
		{"a second claim of one call", paris + "," + rome + "," + claimItem("call_paris_again", "mcp__fixture__weather", `{"city":"Paris"}`), "call_paris_again", "duplicate"},
		{"a call_id twice", rome + "," + paris + "," + paris, "call_paris", "duplicate"},
	} {
		body := `{"response":{"output":[` + tc.items + `]}}`
		if strings.Contains(tc.name, "sidecar") { // Gym's #2673 sidecar, without call_x
			body = `{"response":{"output":[` + tc.items + `]},"mcp_tool_call_provenance":{` +
				`"call_paris":{"server_name":"fixture","tool_name":"weather"},"call_oslo":{"server_name":"fixture","tool_name":"weather"}}}`
		}
		t.Run("refuse/"+tc.name, func(t *testing.T) {
			c := claimsRollout(t, "")
			r := c.post("/verify", body)
			want := fmt.Sprintf(`call_id %q`, tc.id)
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), want) || !strings.Contains(string(r.Body), "): "+tc.why) ||
				!strings.HasPrefix(string(r.Body), "mcpdoor: /verify: the trajectory claims ") {
				t.Fatalf("verify: %d %s\nwant 422 naming %s: %s", r.Status, r.Body, want, tc.why)
			}
			// Refused, the rollout is not over: its session lives on.
			if r := c.post("/history", `{}`); r.Status != http.StatusOK {
				t.Errorf("the session after a refused /verify: %d %s", r.Status, r.Body)
			}
		})
		t.Run("mark/"+tc.name, func(t *testing.T) {
			c := claimsRollout(t, "mark")
			r := c.post("/verify", body)
			var got struct {
				Seen       []string          `json:"seen_names"`
				Rejections map[string]string `json:"mcp_tool_call_rejections"`
			}
			if err := json.Unmarshal(r.Body, &got); err != nil || r.Status != http.StatusOK {
				t.Fatalf("verify: %d %s", r.Status, r.Body)
			}
			if diff := cmp.Diff(map[string]string{tc.id: tc.why}, got.Rejections); diff != "" {
				t.Errorf("the rejections the verifier saw (-want +got):\n%s", diff)
			}
			// The failed claim reaches the verifier as it was emitted.
			for _, n := range got.Seen {
				if n != "weather" && n != "mcp__fixture__weather" {
					t.Errorf("the verifier saw %q", n)
				}
			}
		})
	}
}

// TestClaimsRealCallsUnchanged: with the checks on, a trajectory of the
// calls the session made reaches the verifier byte for byte as with them
// off, and the answer is the verifier's byte for byte, with the emitted
// names back, and each accepted call's receipt added to its response
// object.
func TestClaimsRealCallsUnchanged(t *testing.T) {
	body := `{"responses_create_params":{"input":"go"},"response":{"id":"resp_1","output":[` +
		claimItem("c1", "mcp__gym-fixture__weather", `{"city":"Paris"}`) + `, {"type":"function_call_output","call_id":"c1","output":"sunny"},` +
		claimItem("c2", "gym-fixture__weather", `{ "city" : "Rome" }`) + `,` +
		claimItem("c3", "Bash", `{"cmd":"ls"}`) + `]} }`
	normalized := strings.Replace(strings.Replace(body, `"mcp__gym-fixture__weather"`, `"weather"`, 1), `"gym-fixture__weather"`, `"weather"`, 1)
	for _, claims := range []string{"off", "refuse", "mark"} {
		t.Run(claims, func(t *testing.T) {
			var saw []byte
			r := chi.NewRouter()
			r.Method(http.MethodPost, "/weather", autoexpose.Handler(func(_ context.Context, _ *http.Request, in cityIn) (cityOut, error) {
				return cityOut{Weather: "sunny in " + in.City}, nil
			}))
			r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
			r.Post("/verify", func(w http.ResponseWriter, r *http.Request) {
				saw, _ = io.ReadAll(r.Body)
				w.Header().Set("Content-Type", "application/json")
				w.Write(saw) // the verifier's answer: its request, as Gym's echo
			})
			cfg := fixtureConfig(t)
			cfg.Name = "gym-fixture"
			cfg.MCP.Rollout.AllowedTools = nil
			cfg.MCP.Rollout.Claims = claims
			door, err := autoexpose.Install(r, cfg)
			if err != nil {
				t.Fatal(err)
			}
			s := inProcess(t, r, door)
			c, cs, _ := s.rollout(`{}`)
			for _, city := range []string{"Paris", "Rome"} {
				if res := call(t, cs, "weather", map[string]any{"city": city}); res.IsError {
					t.Fatal(resultJSON(t, res))
				}
			}
			resp := c.post("/verify", body)
			if resp.Status != http.StatusOK {
				t.Fatalf("verify %d %s", resp.Status, resp.Body)
			}
			if string(saw) != normalized {
				t.Errorf("the verifier saw\n%s\nwant\n%s", saw, normalized)
			}
			want := body
			if claims != "off" {
				var m struct {
					Response struct {
						Receipts map[string]string `json:"mcp_tool_call_receipts"`
					} `json:"response"`
				}
				json.Unmarshal(resp.Body, &m)
				if len(m.Response.Receipts) != 2 || !strings.HasPrefix(m.Response.Receipts["c1"], "r1.") || !strings.HasPrefix(m.Response.Receipts["c2"], "r1.") {
					t.Fatalf("receipts %v, want one for c1 and for c2", m.Response.Receipts)
				}
				receipts, _ := json.Marshal(m.Response.Receipts)
				want = strings.Replace(body, `]} }`, `],"mcp_tool_call_receipts":`+string(receipts)+`} }`, 1)
			}
			if string(resp.Body) != want {
				t.Errorf("the answer\n%s\nwant\n%s", resp.Body, want)
			}
		})
	}
}

// TestSeedToolNames: the seed's MCP metadata names the tools the token may
// call, as NeMo Gym's RolloutMCPServer does (tool_names).
func TestSeedToolNames(t *testing.T) {
	h, door, _ := newFixture(t, fixtureConfig(t))
	s := inProcess(t, h, door)
	var got struct {
		MCP struct {
			ToolNames []string `json:"tool_names"`
		} `json:"mcp"`
	}
	r := s.newClient().post("/seed_session", `{"allowed_tools":["weather","history","nosuch"]}`)
	json.Unmarshal(r.Body, &got)
	if diff := cmp.Diff([]string{"history", "weather"}, got.MCP.ToolNames); diff != "" {
		t.Errorf("tool_names (-want +got):\n%s\n%s", diff, r.Body)
	}
}

// TestReceiptOnAnotherReplica: replica A stamps each accepted call of a
// rollout with its receipt; gym eval reverify re-posts the input row, the
// stored response and the sidecar to replica B, which has the same secret
// and none of A's sessions (no shared store), and B pays the same reward.
// A tampered call, a missing receipt, or a replica of another secret is
// refused.
func TestReceiptOnAnotherReplica(t *testing.T) {
	replica := func(secret string) *server {
		cfg := fixtureConfig(t)
		if secret != "" {
			cfg.MCP.SessionSecret = []string{secret}
		}
		h, door, _ := newFixture(t, cfg) // each its own memory store
		return inProcess(t, h, door)
	}
	a, b := replica(""), replica("")
	c, cs, _ := a.rollout(`{}`)
	if res := call(t, cs, "weather", map[string]any{"city": "Paris"}); res.IsError {
		t.Fatal(resultJSON(t, res))
	}
	input := `"responses_create_params":{"input":"what is the weather in Paris?"}`
	sidecar := `"mcp_tool_call_provenance":{"call_1":{"server_name":"fixture","tool_name":"weather"}}`
	r := c.post("/verify", `{`+input+`,"response":{"output":[`+claimItem("call_1", "weather", `{"city":"Paris"}`)+`]},`+sidecar+`}`)
	var answered struct {
		Reward   float64         `json:"reward"`
		Response json.RawMessage `json:"response"`
	}
	if err := json.Unmarshal(r.Body, &answered); err != nil || r.Status != http.StatusOK || answered.Reward != 1 {
		t.Fatalf("replica A: %d %s", r.Status, r.Body)
	}
	if !strings.Contains(string(answered.Response), `"mcp_tool_call_receipts":{"call_1":"r1.`) {
		t.Fatalf("replica A's answer carries no receipt: %s", answered.Response)
	}
	// gym eval reverify: the input row, the stored response, the sidecar;
	// no cookie.
	reverify := func(s *server, response string) httpResponse {
		return s.newClient().post("/verify", `{`+input+`,"response":`+response+`,`+sidecar+`}`)
	}
	r = reverify(b, string(answered.Response))
	var again struct {
		Reward   float64         `json:"reward"`
		Response json.RawMessage `json:"response"`
	}
	if err := json.Unmarshal(r.Body, &again); err != nil || r.Status != http.StatusOK || again.Reward != 1 {
		t.Fatalf("replica B: %d %s", r.Status, r.Body)
	}
	if compactJSON(t, again.Response) != compactJSON(t, answered.Response) && !sameJSONText(again.Response, answered.Response) {
		t.Errorf("replica B's response\n%s\nreplica A's\n%s", again.Response, answered.Response)
	}
	for _, tc := range []struct{ name, response string }{
		{"other arguments", strings.Replace(string(answered.Response), `Paris`, `Oslo`, 1)},
		{"no receipt", strings.Replace(string(answered.Response), `"call_1":"r1.`, `"call_2":"r1.`, 1)},
		{"another call_id", strings.Replace(string(answered.Response), `"call_id":"call_1"`, `"call_id":"call_2"`, 1)},
	} {
		if r := reverify(b, tc.response); r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "not_executed") {
			t.Errorf("%s: replica B answered %d %s", tc.name, r.Status, r.Body)
		}
	}
	if r := reverify(replica("another secret, at least thirty-two bytes long"), string(answered.Response)); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("a replica of another secret answered %d %s", r.Status, r.Body)
	}
}

// sameJSONText reports whether a and b are the same JSON value.
func sameJSONText(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return cmp.Equal(x, y)
}
