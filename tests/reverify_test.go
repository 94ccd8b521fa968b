package tests

import (
	"encoding/json"
	"mime"
	"net/http"
	"testing"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// reverifyMode asks s for its mode as gym eval reverify does: GET
// /reverify_mode with no prefix and no cookie, raise_for_status, then the
// body parsed as JSON into NeMo Gym's ReverifyMode, a string enum.
func reverifyMode(t *testing.T, s *server) string {
	t.Helper()
	r := s.newClient().send(http.MethodGet, "/reverify_mode", "")
	if r.Status < 200 || r.Status > 299 {
		t.Fatalf("GET /reverify_mode: %d %s", r.Status, r.Body)
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		t.Errorf("Content-Type %q, want application/json", r.Header.Get("Content-Type"))
	}
	if c := r.Header.Values("Set-Cookie"); len(c) > 0 {
		t.Errorf("GET /reverify_mode sets cookies: %q", c)
	}
	var mode string
	if err := json.Unmarshal(r.Body, &mode); err != nil {
		t.Fatalf("GET /reverify_mode: %s is not a JSON string: %v", r.Body, err)
	}
	switch mode {
	case "stateless", "unsupported", "unknown":
	default:
		t.Fatalf("GET /reverify_mode: %q is not one of NeMo Gym's ReverifyMode values", mode)
	}
	return mode
}

// TestReverifyModeDefault: a rollout server that declares nothing answers
// NeMo Gym's default, "unknown", byte for byte as a Gym server does, ahead
// of its session middleware (the Door serves it: no cookie).
func TestReverifyModeDefault(t *testing.T) {
	_, door, _ := newFixture(t, fixtureConfig(t))
	s := inProcess(t, door, door)
	if got := reverifyMode(t, s); got != "unknown" {
		t.Errorf("mode %q, want unknown", got)
	}
	if r := s.send(http.MethodGet, "/reverify_mode", ""); string(r.Body) != `"unknown"` {
		t.Errorf("body %q, want %q", r.Body, `"unknown"`)
	}
}

// TestReverifyModeDeclared: the mode the config declares, also under NeMo
// Gym's prefix; a mode outside Gym's three is a config error naming the key.
func TestReverifyModeDeclared(t *testing.T) {
	for _, mode := range []string{"stateless", "unsupported", "unknown"} {
		t.Run(mode, func(t *testing.T) {
			cfg := fixtureConfig(t)
			cfg.MCP.Rollout.ReverifyMode = mode
			_, door, _ := newFixture(t, cfg)
			s := inProcess(t, door, door)
			if got := reverifyMode(t, s); got != mode {
				t.Errorf("mode %q, want %q", got, mode)
			}
			if r := s.send(http.MethodGet, gymPrefix+"/reverify_mode", ""); r.Status != http.StatusOK || string(r.Body) != `"`+mode+`"` {
				t.Errorf("under the prefix: %d %s", r.Status, r.Body)
			}
		})
	}
	_, err := autoexpose.ParseConfig([]byte("name: x\nexpose_tools_over_mcp: true\nmcp:\n  rollout:\n    reverify_mode: safe\n"))
	const want = `mcpdoor: config: mcp.rollout.reverify_mode: "safe" is not a mode; use "stateless", "unsupported" or "unknown"`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// TestClaimsConfigErrors: the new mcp.rollout keys' mistakes, each an
// error naming its key.
func TestClaimsConfigErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"claims: reject", `mcpdoor: config: mcp.rollout.claims: "reject" is not a choice; use "refuse", "mark" or "off"`},
		{"max_ledger: -1", `mcpdoor: config: mcp.rollout.max_ledger: -1 is negative`},
	} {
		_, err := autoexpose.ParseConfig([]byte("name: x\nexpose_tools_over_mcp: true\nmcp:\n  rollout:\n    " + tc.yaml + "\n"))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %s", tc.yaml, err, tc.want)
		}
	}
}
