package tests

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// TestConformance runs the official MCP conformance suite against
// examples/weather, stateless (its default) and stateful (stateful.yaml).
// Every core scenario (nodeclient.CoreScenarios) must pass, except that a
// stateless server cannot give server-sse-multiple-streams the session it
// looks for: the suite warns, and the warning is logged, not failed.
//
// The suite runs whole, in one Node process per mode, which costs a third
// of running the core scenarios one process each; the other scenarios call
// fixture tools, prompts and resources that only the suite's reference
// server has, and their results are ignored.
func TestConformance(t *testing.T) {
	t.Parallel()
	nodeclient.Node(t)
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"stateless", nil},
		{"stateful", []string{"-config", filepath.Join(nodeclient.RepoRoot(t), "examples", "weather", "stateful.yaml")}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			base := startExample(t, "weather", "", mode.args...).url
			rep := nodeclient.Conformance(t, base+"/mcp")
			for _, name := range nodeclient.CoreScenarios {
				s := rep.Scenario(name)
				switch {
				case s == nil:
					t.Errorf("%s: did not run", name)
				case s.Result == "PASS":
				case mode.name == "stateless" && name == "server-sse-multiple-streams" && s.Result == "WARN":
					t.Logf("stateless: %s %s (expected: no session id): %v", name, s.Result, s.Notes)
				default:
					t.Errorf("%s: %s %v", name, s.Result, s.Notes)
				}
			}
		})
	}
}

// The conformance suite's scenarios that examples/conformance serves: the
// protocol's, and those that call its fixture tools. (Resources other than
// a catalog, prompts and completion are not a route door's to serve.)
var exampleScenarios = []string{
	"server-initialize", "ping", "tools-list", "logging-set-level", "dns-rebinding-protection",
	"server-sse-multiple-streams", "server-sse-polling", "json-schema-2020-12",
	"tools-call-simple-text", "tools-call-image", "tools-call-audio", "tools-call-embedded-resource",
	"tools-call-mixed-content", "tools-call-with-logging", "tools-call-error", "tools-call-with-progress",
	"tools-call-sampling", "tools-call-elicitation", "elicitation-sep1034-defaults", "elicitation-sep1330-enums",
}

// TestConformanceExample runs the conformance suite's protocol and
// tools-call scenarios against examples/conformance, stateless and
// stateful. Every one passes, but where the transport cannot do what the
// scenario asks, and the result says so:
//   - a stateless door cannot send the suite's client (protocol 2025-11-25)
//     the sampling or elicitation request its scenario waits for (FAIL:
//     "Server did not request ..."), nor give it a session id for the SSE
//     scenarios (WARN);
//   - server-sse-polling's raw POST declares protocol 2025-03-26, for which
//     the go-sdk sends no priming event and no retry field (added in
//     2025-11-25), and it calls a test_reconnection tool that closes its
//     stream mid-call, which a route cannot (WARN); on a stateful door that
//     POST's answer streams nothing, so it is application/json and the
//     scenario finds no stream to check (NONE).
func TestConformanceExample(t *testing.T) {
	nodeclient.Node(t)
	statelessOnly := map[string]string{
		"tools-call-sampling":          "FAIL",
		"tools-call-elicitation":       "FAIL",
		"elicitation-sep1034-defaults": "FAIL",
		"elicitation-sep1330-enums":    "FAIL",
		"server-sse-multiple-streams":  "WARN",
	}
	for _, mode := range []struct {
		name   string
		config string
	}{
		{"stateless", "server.yaml"},
		{"stateful", "stateful.yaml"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			s := startExample(t, "conformance", "", "-config", filepath.Join(nodeclient.RepoRoot(t), "examples", "conformance", mode.config))
			// The whole suite in one run is several times faster than the
			// scenarios one by one; the others are logged, not judged.
			rep := nodeclient.Conformance(t, s.url+"/mcp")
			// The table's resources-list note: the list is empty, and no
			// resources are offered.
			cs := s.server.connect(mcpOptions{protocol: "2025-11-25"})
			if list, err := cs.ListResources(t.Context(), nil); err != nil || len(list.Resources) != 0 || cs.InitializeResult().Capabilities.Resources != nil {
				t.Errorf("resources/list: %+v, %v; capabilities %+v: want none", list, err, cs.InitializeResult().Capabilities)
			}
			for _, name := range exampleScenarios {
				want := "PASS"
				switch {
				case name == "server-sse-polling" && mode.name == "stateless":
					want = "WARN"
				case name == "server-sse-polling":
					want = "NONE"
				case mode.name == "stateless" && statelessOnly[name] != "":
					want = statelessOnly[name]
				}
				got := rep.Scenario(name)
				if got == nil {
					t.Errorf("%s: not run", name)
					continue
				}
				if got.Result != want {
					t.Errorf("%s: %s, want %s: %v", name, got.Result, want, got.Notes)
				}
				if want == "FAIL" && !slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "Server did not request") }) {
					t.Errorf("%s fails for another reason: %v", name, got.Notes)
				}
			}
		})
	}
}
