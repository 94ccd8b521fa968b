package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests drive the examples the way NeMo Gym's own agents drive a
// resources server (read from NVIDIA-NeMo/Gym):
//
//   - simple_agent calls tools over HTTP. It seeds with the cookies of the
//     /run request, then posts every call with the cookies of the previous
//     response and replaces its cookies with that response's Set-Cookie
//     (resources_server_cookies = api_response.cookies), and posts /verify
//     with the last ones.
//   - claude_code_agent (and codex_agent) seeds with cookies, hands the "mcp"
//     metadata of the seed response to the agent, which calls the tools over
//     MCP with the token header and no cookie, and posts /verify with the
//     seed response's cookies.
//   - With observability on, Gym's ServerClient prefixes every path with
//     /ng-rollout/<rollout_id>.
//
// Each rollout must be paid reward 1: one session per rollout, whatever the
// door, the dispatch (direct or replayed) and the prefix.

// gymAgent is one Gym agent's HTTP client: no cookie jar, the cookies it
// holds replaced by each response's, as aiohttp's response.cookies are.
type gymAgent struct {
	t       *testing.T
	base    string // the server's URL, plus /ng-rollout/<id> with observability on
	client  *http.Client
	cookies []*http.Cookie
}

func newGymAgent(t *testing.T, s *server, prefix string) *gymAgent {
	a := &gymAgent{t: t, base: s.url + prefix, client: &http.Client{Timeout: 30 * time.Second}}
	t.Cleanup(a.client.CloseIdleConnections)
	return a
}

// post sends body to path with the agent's cookies, replaces them with the
// response's, and returns the status and body.
func (a *gymAgent) post(path string, body any) (int, []byte) {
	a.t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		a.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, a.base+path, bytes.NewReader(b))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for _, c := range a.cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	resp, err := a.client.Do(req)
	if err != nil {
		a.t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("POST %s: %v", path, err)
	}
	a.cookies = resp.Cookies()
	return resp.StatusCode, out
}

// verified returns the history /verify reports for the agent's session.
func (a *gymAgent) verified() []string {
	a.t.Helper()
	status, body := a.post("/verify", json.RawMessage(`{}`))
	var v struct {
		History []string `json:"history"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		a.t.Fatalf("verify: %d %s", status, body)
	}
	return v.History
}

// gymCall is one function call of a trajectory.
type gymCall struct {
	Tool      string
	Arguments map[string]any
}

// trajectory is the verify request's response.output for calls, each named
// as the model emitted it.
func trajectory(calls []gymCall, name func(string) string) map[string]any {
	var output []any
	for i, c := range calls {
		args, _ := json.Marshal(c.Arguments)
		output = append(output, map[string]any{
			"type": "function_call", "name": name(c.Tool), "arguments": string(args), "call_id": fmt.Sprintf("call_%d", i),
		})
	}
	return map[string]any{"response": map[string]any{"output": output}}
}

// verifyReply is what both examples' /verify answer.
type verifyReply struct {
	Reward   float64 `json:"reward"`
	Response struct {
		Output []struct {
			Name string `json:"name"`
		} `json:"output"`
	} `json:"response"`
}

// simpleAgentRollout plays one rollout as simple_agent does and returns
// /verify's answer. runCookies are the cookies of the /run request.
func simpleAgentRollout(t *testing.T, a *gymAgent, seed map[string]any, calls []gymCall, runCookies []*http.Cookie) verifyReply {
	t.Helper()
	a.cookies = runCookies
	if status, body := a.post("/seed_session", seed); status != http.StatusOK {
		t.Fatalf("seed_session: %d %s", status, body)
	}
	for _, c := range calls {
		if status, body := a.post("/"+c.Tool, c.Arguments); status != http.StatusOK {
			t.Fatalf("POST /%s: %d %s", c.Tool, status, body)
		}
	}
	verify := trajectory(calls, func(tool string) string { return tool })
	for k, v := range seed {
		verify[k] = v
	}
	status, body := a.post("/verify", verify)
	if status != http.StatusOK {
		t.Fatalf("verify: %d %s", status, body)
	}
	var v verifyReply
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("verify: %v: %s", err, body)
	}
	return v
}

// mcpAgentRollout plays one rollout as claude_code_agent does: seed over
// HTTP, the calls over MCP with the token and no cookie (mcpCookies, if
// any, are sent on every MCP request as a stale jar would), /verify with
// the seed response's cookies. mcpBase is the server's URL, which the
// agent's MCP config joins to the seed's url_path.
func mcpAgentRollout(t *testing.T, a *gymAgent, mcpBase, protocol string, seed map[string]any, calls []gymCall, mcpCookies []*http.Cookie) verifyReply {
	t.Helper()
	return mcpAgentSeed(t, a, mcpBase, seed).finish(t, protocol, calls, mcpCookies)
}

// A seededRollout is a rollout claude_code_agent has seeded: what its
// agent's MCP config and its /verify need.
type seededRollout struct {
	a        *gymAgent
	seed     map[string]any
	meta     seedMetadata
	cookies  []*http.Cookie // the seed response's
	endpoint string         // the MCP endpoint the agent is configured with
}

// mcpAgentSeed seeds a rollout as claude_code_agent does.
func mcpAgentSeed(t *testing.T, a *gymAgent, mcpBase string, seed map[string]any) *seededRollout {
	t.Helper()
	status, body := a.post("/seed_session", seed)
	if status != http.StatusOK {
		t.Fatalf("seed_session: %d %s", status, body)
	}
	var seeded struct {
		MCP seedMetadata `json:"mcp"`
	}
	if err := json.Unmarshal(body, &seeded); err != nil || seeded.MCP.URLPath == "" {
		t.Fatalf("seed_session: no mcp metadata: %s", body)
	}
	// The MCP endpoint is under the prefix the seed came under, if any:
	// the agent's calls then take the path its seed took.
	if want := strings.TrimPrefix(a.base, mcpBase) + "/mcp"; seeded.MCP.URLPath != want {
		t.Errorf("seed at %s/seed_session: url_path %q, want %q", a.base, seeded.MCP.URLPath, want)
	}
	// url = base.rstrip('/') + '/' + url_path.lstrip('/'), as claude_code_agent builds it.
	endpoint := strings.TrimRight(mcpBase, "/") + "/" + strings.TrimLeft(seeded.MCP.URLPath, "/")
	return &seededRollout{a: a, seed: seed, meta: seeded.MCP, cookies: a.cookies, endpoint: endpoint}
}

// connect connects the agent's MCP client, with the token (and
// mcpCookies, if any) on every request, until the returned func is called.
func (ro *seededRollout) connect(t *testing.T, ctx context.Context, protocol string, mcpCookies []*http.Cookie) (*mcp.ClientSession, func()) {
	t.Helper()
	header := http.Header{}
	for k, v := range ro.meta.Headers {
		header.Set(k, v)
	}
	for _, c := range mcpCookies {
		header.Add("Cookie", c.Name+"="+c.Value)
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &headerTransport{base: http.DefaultTransport, header: header}}
	client := mcp.NewClient(&mcp.Implementation{Name: "gym-agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ro.endpoint, HTTPClient: hc, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		hc.CloseIdleConnections()
		t.Fatalf("connecting to %s: %v", ro.endpoint, err)
	}
	return cs, func() {
		cs.Close()
		hc.CloseIdleConnections()
	}
}

// finish plays the rest of the rollout: the calls over MCP, then /verify.
func (ro *seededRollout) finish(t *testing.T, protocol string, calls []gymCall, mcpCookies []*http.Cookie) verifyReply {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cs, done := ro.connect(t, ctx, protocol, mcpCookies)
	defer done()
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Arguments})
		if err != nil {
			t.Fatalf("tools/call %s: %v", c.Tool, err)
		}
		if res.IsError {
			t.Fatalf("tools/call %s: %s", c.Tool, resultJSON(t, res))
		}
	}
	emitted := func(tool string) string { return "mcp__" + ro.meta.ServerName + "__" + tool }
	verify := trajectory(calls, emitted)
	for k, v := range ro.seed {
		verify[k] = v
	}
	ro.a.cookies = ro.cookies
	status, body := ro.a.post("/verify", verify)
	if status != http.StatusOK {
		t.Fatalf("verify: %d %s", status, body)
	}
	var v verifyReply
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("verify: %v: %s", err, body)
	}
	for i, item := range v.Response.Output {
		if want := emitted(calls[i].Tool); item.Name != want {
			t.Errorf("verify echoed output[%d].name %q, want the emitted %q", i, item.Name, want)
		}
	}
	return v
}

// gymRollout is one example's rollout: its seed body and the calls that
// earn reward 1.
type gymRollout struct {
	name  string
	seed  map[string]any
	calls []gymCall
}

// gymExample is an example server the Gym tests run, and its rollouts.
type gymExample struct {
	name     string
	config   string // its config, but for mcp.dispatch
	rollouts []gymRollout
}

// start runs the example with mcp.dispatch set to dispatch.
func (ex gymExample) start(t *testing.T, dispatch string) *server {
	return startExample(t, ex.name, exampleConfig(ex.config+"\n  dispatch: "+dispatch)).server
}

func gymExamples(t *testing.T) []gymExample {
	weatherRollout := gymRollout{name: "paris", seed: map[string]any{}, calls: []gymCall{
		{"get_weather", map[string]any{"city": "Paris"}},
		{"forecast", map[string]any{"city": "Paris", "days": 2}},
		{"get_weather", map[string]any{"city": "Oslo"}},
	}}
	var workplaceRollouts []gymRollout
	for _, sol := range workplaceSolutions(t) {
		ro := gymRollout{name: sol.Scenario, seed: map[string]any{"scenario": sol.Scenario}}
		for _, c := range sol.Calls {
			ro.calls = append(ro.calls, gymCall{c.Tool, c.Arguments})
		}
		workplaceRollouts = append(workplaceRollouts, ro)
	}
	return []gymExample{
		{name: "weather", config: "name: example_mcp_weather\nexpose_tools_over_mcp: true\nmcp:", rollouts: []gymRollout{weatherRollout}},
		{name: "workplace", config: "name: workplace_assistant\nexpose_tools_over_mcp: true\nmcp:", rollouts: workplaceRollouts},
	}
}

// gymPrefix is the observability prefix Gym's ServerClient adds, with a
// rollout id of Gym's form.
const gymPrefix = "/ng-rollout/rollout-7.b_2"

// TestGymSimpleAgent plays every rollout of weather and workplace as
// simple_agent does, over the HTTP door, with and without the
// observability prefix, and with a /run request that already carries a
// session cookie (which the seed response must hand back).
func TestGymSimpleAgent(t *testing.T) {
	for _, ex := range gymExamples(t) {
		t.Run(ex.name, func(t *testing.T) {
			s := ex.start(t, "auto")
			for _, prefix := range []string{"", gymPrefix} {
				for _, ro := range ex.rollouts {
					t.Run(strings.TrimPrefix(prefix+"/"+ro.name, "/"), func(t *testing.T) {
						a := newGymAgent(t, s, prefix)
						if v := simpleAgentRollout(t, a, ro.seed, ro.calls, nil); v.Reward != 1 {
							t.Errorf("reward %v, want 1", v.Reward)
						}
						// A second rollout whose /run request carries the
						// session cookie of the first.
						if v := simpleAgentRollout(t, a, ro.seed, ro.calls, a.cookies); v.Reward != 1 {
							t.Errorf("with the /run request's cookie: reward %v, want 1", v.Reward)
						}
					})
				}
			}
		})
	}
}

// TestGymMCPAgent plays every rollout of weather and workplace as
// claude_code_agent does: the calls over MCP with the token and no cookie,
// dispatched directly and replayed through the router, on both protocol
// versions, with and without the observability prefix (on the HTTP routes,
// and so on the MCP endpoint the seed's url_path names), and with a stale
// cookie of another rollout on the MCP requests.
func TestGymMCPAgent(t *testing.T) {
	for _, ex := range gymExamples(t) {
		for _, dispatch := range []string{"auto", "replay"} {
			t.Run(ex.name+"/"+dispatch, func(t *testing.T) {
				s := ex.start(t, dispatch)
				// A stale cookie: another rollout's session, with state of its own.
				other := s.newClient()
				seed, _ := json.Marshal(ex.rollouts[0].seed)
				other.post("/seed_session", string(seed))
				first := ex.rollouts[0].calls[0]
				args, _ := json.Marshal(first.Arguments)
				if r := other.post("/"+first.Tool, string(args)); r.Status != http.StatusOK {
					t.Fatalf("the other rollout: %d %s", r.Status, r.Body)
				}
				stale := other.cookies()
				if len(stale) == 0 {
					t.Fatal("the other rollout has no session cookie")
				}
				for _, v := range []struct {
					name, prefix, protocol string
					cookies                []*http.Cookie
				}{
					{name: "plain"},
					{name: "2025-11-25", protocol: "2025-11-25"},
					{name: "stale-cookie", cookies: stale},
					{name: "prefixed", prefix: gymPrefix},
					{name: "prefixed-2025-11-25", prefix: gymPrefix, protocol: "2025-11-25"},
				} {
					for _, ro := range ex.rollouts {
						t.Run(v.name+"/"+ro.name, func(t *testing.T) {
							a := newGymAgent(t, s, v.prefix)
							got := mcpAgentRollout(t, a, s.url, v.protocol, ro.seed, ro.calls, v.cookies)
							if got.Reward != 1 {
								t.Errorf("reward %v, want 1", got.Reward)
							}
						})
					}
				}
			})
		}
	}
}

// TestGymWeatherState checks what the weather rollout's calls did, not only
// the reward: every call of a rollout lands in one session, in order, and
// two interleaved rollouts never see each other's calls.
func TestGymWeatherState(t *testing.T) {
	for _, dispatch := range []string{"auto", "replay"} {
		t.Run(dispatch, func(t *testing.T) {
			s := gymExamples(t)[0].start(t, dispatch)
			web, agent := newGymAgent(t, s, ""), newGymAgent(t, s, gymPrefix)
			web.post("/seed_session", map[string]any{})
			status, body := agent.post("/seed_session", map[string]any{})
			var seeded struct {
				MCP seedMetadata `json:"mcp"`
			}
			if err := json.Unmarshal(body, &seeded); status != http.StatusOK || err != nil {
				t.Fatalf("seed: %d %s", status, body)
			}
			tok := seeded.MCP.Headers[tokenHeader]
			cs := s.newClient().connect(mcpOptions{header: http.Header{tokenHeader: {tok}}})
			for _, city := range []string{"Lima", "Quito", "Cusco"} {
				web.post("/get_weather", map[string]any{"city": "web-" + city})
				if res := call(t, cs, "get_weather", map[string]any{"city": city}); res.IsError {
					t.Fatal(resultJSON(t, res))
				}
			}
			_, webCities := web.post("/list_cities", map[string]any{})
			_, agentCities := agent.post("/list_cities", map[string]any{})
			mcpCities := resultJSON(t, call(t, cs, "list_cities", map[string]any{}))
			for _, c := range []struct{ who, got, want string }{
				{"HTTP rollout", string(webCities), `{"cities":["web-Lima","web-Quito","web-Cusco"]}`},
				{"MCP rollout over HTTP", string(agentCities), `{"cities":["Lima","Quito","Cusco"]}`},
				{"MCP rollout over MCP", mcpCities, `{"content":[{"type":"text","text":"{\"cities\":[\"Lima\",\"Quito\",\"Cusco\"]}"}],"structuredContent":{"cities":["Lima","Quito","Cusco"]}}`},
			} {
				if c.got != c.want {
					t.Errorf("%s: got %s\nwant %s", c.who, c.got, c.want)
				}
			}
			if !slices.ContainsFunc(agent.cookies, func(c *http.Cookie) bool { return c.Name != "" }) {
				t.Errorf("the prefixed HTTP door's response carries no session cookie")
			}
		})
	}
}
