package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// A workplaceSolution is a known-good sequence of tool calls that completes
// one of the workplace example's scenarios, as its tests keep it
// (examples/workplace/testdata/solutions.json).
type workplaceSolution struct {
	Scenario string    `json:"scenario"`
	Calls    []gymCall `json:"calls"`
}

// workplaceSolutions returns the workplace example's solutions, one per
// scenario, in the scenarios' order.
func workplaceSolutions(t testing.TB) []workplaceSolution {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(nodeclient.RepoRoot(t), "examples", "workplace", "testdata", "solutions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []workplaceSolution
	if err := json.Unmarshal(b, &out); err != nil || len(out) < 5 {
		t.Fatalf("examples/workplace/testdata/solutions.json: %d solutions, %v", len(out), err)
	}
	return out
}

// TestWorkplaceTypeScript completes a scenario's task with the official
// TypeScript SDK client: seed, list the tools, call them, verify. (The
// example's own tests compare its two doors scenario by scenario, with the
// test kit's Parity.)
func TestWorkplaceTypeScript(t *testing.T) {
	t.Parallel()
	nodeclient.Node(t)
	s := startExample(t, "workplace", "")
	sol := workplaceSolutions(t)[1]
	connect := nodeclient.ConnectHeadersFrom(0, "mcp.headers")
	connect.URLPath = "mcp.url_path"
	steps := []nodeclient.Step{nodeclient.HTTP("POST", "/seed_session", map[string]any{"scenario": sol.Scenario}), connect, nodeclient.List()}
	for _, c := range sol.Calls {
		steps = append(steps, nodeclient.Call(c.Tool, c.Arguments))
	}
	steps = append(steps, nodeclient.HTTP("POST", "/verify", map[string]any{}))
	out := nodeclient.Run(t, nodeclient.Scenario{URL: s.url + "/mcp", Steps: steps})

	var list struct{ Tools []struct{ Name string } }
	out.Decode(t, 2, &list)
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if want := listNames(t, s.connect(mcpOptions{})); len(want) < 20 || !cmp.Equal(names, want) {
		t.Errorf("the TypeScript client listed %d tools %v, want the %d the go-sdk client lists", len(names), names, len(want))
	}
	for i := range sol.Calls {
		var res struct{ IsError bool }
		out.Decode(t, 3+i, &res)
		if res.IsError {
			t.Errorf("call %d (%s): %s", i, sol.Calls[i].Tool, out.Results[3+i])
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

// statusCode is the envelope code of an HTTP status, as documented on
// autoexpose.ErrorInfo.
func statusCode(status int) string {
	return strings.NewReplacer(" ", "_", "-", "_", "'", "").Replace(strings.ToLower(http.StatusText(status)))
}

// TestNetHTTPParity: every tool of the ServeMux example, through both doors
// of one session.
func TestNetHTTPParity(t *testing.T) {
	s := startExample(t, "nethttp", "").server
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
