package tests

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// TestTracingInFront: otelhttp's middleware in the router's Use, as a
// traced server has it, also runs in front of the MCP endpoint, where it
// only records the request's span: Install warns of no middleware in
// front, and the routes behind it still replay, so that its span is made.
func TestTracingInFront(t *testing.T) {
	rig := newTelemetryRig(t)
	for _, stateful := range []bool{false, true} {
		var logs bytes.Buffer
		cfg, err := autoexpose.ParseConfig([]byte("name: weather\nexpose_tools_over_mcp: true\nmcp:\n  stateful: " + map[bool]string{false: "false", true: "true"}[stateful] + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		door, err := autoexpose.Install(tracedRouter(rig), cfg)
		if err != nil {
			t.Fatal(err)
		}
		door.Close()
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, "level=WARN") && strings.Contains(line, "in front of the MCP endpoint") {
				t.Errorf("stateful %v: Install warned of otelhttp in front of the MCP endpoint: %s", stateful, line)
			}
		}
		if !strings.Contains(logs.String(), `tool=get_weather route="POST /get_weather" verdict=replay`) {
			t.Errorf("stateful %v: get_weather does not replay through otelhttp:\n%s", stateful, logs.String())
		}
	}
}
