package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConcurrentRollouts: rollouts in parallel, each making calls that
// alternate between the HTTP door and the MCP door; each sees exactly its
// own calls, in order. Run with -race; TestMain checks that no goroutine is
// left behind. With MCPDOOR_LONG=1 (see longEnv) it runs 32 rollouts × 50
// calls; by default, and with -short, 8 × 10.
func TestConcurrentRollouts(t *testing.T) {
	rollouts, calls := 8, 10
	if long() && !testing.Short() {
		rollouts, calls = 32, 50
	}
	h, door, _ := newFixture(t, fixtureConfig(t))
	s := inProcess(t, h, door)

	var wg sync.WaitGroup
	errs := make(chan error, rollouts)
	for i := range rollouts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- runRollout(t, s, i, calls)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// runRollout seeds one rollout, makes its calls through both doors, and
// checks what both doors then report. It returns an error rather than
// failing, since it runs on its own goroutine.
func runRollout(t *testing.T, s *server, i, calls int) error {
	c := s.newClient()
	cs := c.connectSeeded(mcpOptions{})
	var want []string
	for j := range calls {
		city := fmt.Sprintf("r%d-c%d", i, j)
		want = append(want, city)
		if j%2 == 0 {
			if r := c.post("/weather", `{"city":"`+city+`"}`); r.Status != http.StatusOK {
				return fmt.Errorf("rollout %d, HTTP call %d: %d %s", i, j, r.Status, r.Body)
			}
			continue
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"city": city}})
		if err != nil || res.IsError {
			return fmt.Errorf("rollout %d, MCP call %d: %v %v", i, j, err, res)
		}
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "history"})
	if err != nil {
		return err
	}
	var viaMCP struct{ History []string }
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &viaMCP)
	var viaHTTP struct{ History []string }
	json.Unmarshal(c.post("/history", `{}`).Body, &viaHTTP)
	if diff := cmp.Diff(want, viaMCP.History); diff != "" {
		return fmt.Errorf("rollout %d: the calls the MCP door sees (-want +got):\n%s", i, diff)
	}
	if diff := cmp.Diff(want, viaHTTP.History); diff != "" {
		return fmt.Errorf("rollout %d: the calls the HTTP door sees (-want +got):\n%s", i, diff)
	}
	return nil
}

// TestReplicas: two replicas of one server (same name, same secret) accept
// each other's tokens, but one that does not hold the token's session (each
// replica's store is its own) refuses it as misrouted, rather than run the
// call against empty state; a server with another name refuses the token
// as invalid.
func TestReplicas(t *testing.T) {
	a, doorA, _ := newFixture(t, fixtureConfig(t))
	b, doorB, _ := newFixture(t, fixtureConfig(t))
	sa, sb := inProcess(t, a, doorA), inProcess(t, b, doorB)
	seeded, meta := sa.newClient().seedSession(`{}`)
	tok := meta.Headers[tokenHeader]

	res := call(t, sa.connect(mcpOptions{header: http.Header{tokenHeader: {tok}}}), "teapot", nil)
	if got := resultJSON(t, res); got != `{"content":[{"type":"text","text":"HTTP 418 from POST /teapot: I'm a teapot"}],"structuredContent":{"error":{"code":"im_a_teapot","effect":"not_applied","message":"I'm a teapot","status":418}},"isError":true}` {
		t.Errorf("replica A answered %s", got)
	}
	sid := seeded.Header.Get("Mcpdoor-Session")
	r := sb.rawMCP(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"teapot","arguments":{}}}`, raw{header: []string{tokenHeader, tok}})
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32003,"message":"` + misroutedText(sid) + `"}}`
	if r.Status != http.StatusMisdirectedRequest || string(r.Body) != want {
		t.Errorf("replica B answered %d %s; want 421 %s", r.Status, r.Body, want)
	}

	cfg := fixtureConfig(t)
	cfg.Name = "other"
	o, doorO, _ := newFixture(t, cfg)
	res = call(t, inProcess(t, o, doorO).connect(mcpOptions{header: http.Header{tokenHeader: {tok}}}), "teapot", nil)
	if got := resultJSON(t, res); got != `{"content":[{"type":"text","text":"Invalid Gym MCP session token."}],"structuredContent":{"error":{"code":"invalid_token","effect":"not_applied","message":"the session token is not valid for this server","status":401}},"isError":true}` {
		t.Errorf("another server answered %s", resultJSON(t, res))
	}
}
