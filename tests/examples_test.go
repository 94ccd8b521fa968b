package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	nethttp "github.com/mcpdoor/mcpdoor/examples/nethttp/server"
	"github.com/mcpdoor/mcpdoor/examples/workplace/env"
	workplace "github.com/mcpdoor/mcpdoor/examples/workplace/server"
	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

func exampleConfig(t *testing.T, yaml string) autoexpose.Config {
	t.Helper()
	cfg, err := autoexpose.ParseConfig([]byte(yaml + "\n  session_secret: \"" + testSecret + "\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = newLogger(discard{})
	return cfg
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestWorkplaceParity replays every scenario's solution through the HTTP
// door in one session and through the MCP door in another, seeded alike,
// and compares each call's answers; then both sessions score 1.0. Every
// tool is also called with no arguments through both doors.
func TestWorkplaceParity(t *testing.T) {
	h, _, err := workplace.New(exampleConfig(t, "name: workplace_assistant\nexpose_tools_over_mcp: true\nmcp:"))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	readOnly := make(map[string]bool)
	for _, spec := range env.Tools() {
		readOnly[spec.Name] = spec.ReadOnly
	}
	compare := func(t *testing.T, web *server, cs *mcp.ClientSession, tool string, args []byte) {
		t.Helper()
		hr := web.post("/"+tool, string(args))
		res := call(t, cs, tool, rawArgs(args))
		if hr.Status == http.StatusUnprocessableEntity && strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "Invalid arguments for "+tool+" (") {
			// The MCP door checks the arguments against the declared schema
			// before dispatch; the handler checks them its own way over HTTP.
			// Both refuse; only the wording differs.
			return
		}
		effect := "not_applied"
		if hr.Status >= 500 && !readOnly[tool] {
			effect = "unknown"
		}
		sameJSON(t, res, expectedResult(t, tool, hr, statusCode(hr.Status), effect, false))
	}
	for _, sc := range env.Scenarios() {
		t.Run(sc.ID, func(t *testing.T) {
			seed := fmt.Sprintf(`{"scenario":%q}`, sc.ID)
			web, agent := s.newClient(), s.newClient()
			web.post("/seed_session", seed)
			_, meta := agent.seedSession(seed)
			cs := agent.connect(mcpOptions{header: http.Header{tokenHeader: {meta.Headers[tokenHeader]}}})
			for _, c := range sc.Solution {
				args, _ := json.Marshal(c.Arguments)
				compare(t, web, cs, c.Tool, args)
			}
			for _, who := range []*server{web, agent} {
				var v struct{ Reward float64 }
				json.Unmarshal(who.post("/verify", `{}`).Body, &v)
				if v.Reward != 1.0 {
					t.Errorf("reward %v", v.Reward)
				}
			}
		})
	}
	t.Run("every tool, no arguments", func(t *testing.T) {
		web, agent := s.newClient(), s.newClient()
		web.post("/seed_session", `{}`)
		_, meta := agent.seedSession(`{}`)
		cs := agent.connect(mcpOptions{header: http.Header{tokenHeader: {meta.Headers[tokenHeader]}}})
		for _, spec := range env.Tools() {
			compare(t, web, cs, spec.Name, []byte(`{}`))
		}
	})
}

// statusCode is the envelope code of an HTTP status, as documented on
// autoexpose.ErrorInfo.
func statusCode(status int) string {
	return strings.NewReplacer(" ", "_", "-", "_", "'", "").Replace(strings.ToLower(http.StatusText(status)))
}

// TestWorkplaceTypeScript completes a scenario's task with the official
// TypeScript SDK client: seed, list the tools, call them, verify.
func TestWorkplaceTypeScript(t *testing.T) {
	t.Parallel()
	nodeclient.Node(t)
	h, _, err := workplace.New(exampleConfig(t, "name: workplace_assistant\nexpose_tools_over_mcp: true\nmcp:"))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	sc := env.Scenarios()[1]
	connect := nodeclient.ConnectHeadersFrom(0, "mcp.headers")
	connect.URLPath = "mcp.url_path"
	steps := []nodeclient.Step{nodeclient.HTTP("POST", "/seed_session", map[string]any{"scenario": sc.ID}), connect, nodeclient.List()}
	for _, c := range sc.Solution {
		steps = append(steps, nodeclient.Call(c.Tool, c.Arguments))
	}
	steps = append(steps, nodeclient.HTTP("POST", "/verify", map[string]any{}))
	out := nodeclient.Run(t, nodeclient.Scenario{URL: s.srv.URL + "/mcp", Steps: steps})

	var list struct{ Tools []struct{ Name string } }
	out.Decode(t, 2, &list)
	if len(list.Tools) != len(env.Tools()) || len(list.Tools) < 20 {
		t.Errorf("listed %d tools, want %d", len(list.Tools), len(env.Tools()))
	}
	for i := range sc.Solution {
		var res struct{ IsError bool }
		out.Decode(t, 3+i, &res)
		if res.IsError {
			t.Errorf("call %d (%s): %s", i, sc.Solution[i].Tool, out.Results[3+i])
		}
	}
	var verify nodeclient.HTTPResult
	out.Decode(t, len(steps)-1, &verify)
	var v struct{ Reward float64 }
	json.Unmarshal(verify.Body, &v)
	if v.Reward != 1.0 {
		t.Errorf("verify: %s", verify.Body)
	}
}

// TestNetHTTPParity: every tool of the ServeMux example, through both doors
// of one session.
func TestNetHTTPParity(t *testing.T) {
	h, err := nethttp.New(exampleConfig(t, "name: notes\nexpose_tools_over_mcp: true\nmcp:"))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Report()) == 0 {
		t.Fatal("Wrap returned a door that serves no tool")
	}
	s := serve(t, h)
	s.post("/list_notes", `{}`)   // makes the cookie session
	cs := s.connect(mcpOptions{}) // a plain API: no token; the cookie names the session
	steps := []struct{ tool, args string }{
		{"add_note", `{"text":"buy milk","tags":["home"]}`},
		{"add_note", `{"text":"call Ana","tags":["work"]}`},
		{"list_notes", `{}`},
		{"list_notes", `{"tag":"work"}`},
		{"delete_note", `{"id":999}`},
		{"add_note", `{"text":""}`},
	}
	// The MCP door runs each step, then the HTTP door runs it again in the
	// same session; reads and refusals must answer alike.
	for _, st := range steps {
		mcpRes := call(t, cs, st.tool, rawArgs(st.args))
		hr := s.post("/"+st.tool, st.args)
		if strings.HasPrefix(st.tool, "list") {
			sameJSON(t, mcpRes, expectedResult(t, st.tool, hr, statusCode(hr.Status), "not_applied", false))
		} else if hr.Status != 200 {
			sameJSON(t, mcpRes, expectedResult(t, st.tool, hr, statusCode(hr.Status), "not_applied", false))
		}
	}
	res := call(t, cs, "list_notes", nil)
	b, _ := json.Marshal(res.StructuredContent)
	if want := `{"notes":[{"id":1,"tags":["home"],"text":"buy milk"},{"id":2,"tags":["home"],"text":"buy milk"},{"id":3,"tags":["work"],"text":"call Ana"},{"id":4,"tags":["work"],"text":"call Ana"}]}`; string(b) != want {
		t.Errorf("notes %s\nwant %s", b, want)
	}
	if diff := cmp.Diff([]string{"add_note", "delete_note", "list_notes"}, listNames(t, cs)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}
