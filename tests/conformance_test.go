package tests

import (
	"path/filepath"
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
			base := startWeather(t, mode.args...)
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
