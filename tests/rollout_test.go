package tests

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/token"
)

const tokenHeader = "X-NeMo-Gym-Session-Token"

// seedMetadata is the "mcp" key of a /seed_session response, as NeMo Gym's
// agents read it.
type seedMetadata struct {
	ServerName string            `json:"server_name"`
	URLPath    string            `json:"url_path"`
	Transport  string            `json:"transport"`
	Headers    map[string]string `json:"headers"`
}

// seedSession posts body to /seed_session and returns the response and the
// "mcp" metadata it carries.
func (s *server) seedSession(body string) (httpResponse, seedMetadata) {
	s.t.Helper()
	return metadataOf(s.post("/seed_session", body))
}

// metadataOf returns a /seed_session response and the "mcp" metadata it
// carries (none for a response without).
func metadataOf(r httpResponse) (httpResponse, seedMetadata) {
	var resp struct {
		MCP seedMetadata `json:"mcp"`
	}
	json.Unmarshal(r.Body, &resp)
	return r, resp.MCP
}

// rollout is one agent's view of a seeded rollout: a new client (with the
// session cookie) and its MCP session (with the token header), and the
// token.
func (s *server) rollout(seed string) (*server, *mcp.ClientSession, string) {
	s.t.Helper()
	c := s.newClient()
	if c.kit != nil {
		_, meta := metadataOf(*c.kit.Seed(s.t, seed))
		return c, c.connect(mcpOptions{}), meta.Headers[tokenHeader]
	}
	r, meta := c.seedSession(seed)
	tok := meta.Headers[tokenHeader]
	if r.Status != 200 || tok == "" {
		s.t.Fatalf("seed: %d %s", r.Status, r.Body)
	}
	return c, c.connect(mcpOptions{header: http.Header{tokenHeader: {tok}}, path: meta.URLPath}), tok
}

// listNames returns the names of the tools the session lists, in order.
func listNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// allTools are the fixture's tools, as tools/list names them.
var allTools = []string{"array", "bad_image", "boom", "history", "image", "map_body", "nocontent", "problem", "raw_echo", "sniffed_image", "steps", "teapot", "text", "weather"}

func TestSeedSession(t *testing.T) {
	h, door, _ := newFixture(t, fixtureConfig(t))
	s := inProcess(t, h, door)
	codec := token.NewCodec("fixture", testKeys(t), 0)

	t.Run("adds the mcp metadata", func(t *testing.T) {
		c := s.newClient()
		r, meta := c.seedSession(`{"respond":{"scenario":"x","n":1.0}}`)
		tok := meta.Headers[tokenHeader]
		// tool_names as NeMo Gym's RolloutMCPServer carries them: the tools
		// the token may call.
		want := `{"scenario":"x","n":1.0,"mcp":{"server_name":"fixture","url_path":"/mcp","transport":"http","headers":{"X-NeMo-Gym-Session-Token":"` + tok + `"},` +
			`"tool_names":["array","bad_image","boom","history","image","map_body","nocontent","problem","raw_echo","sniffed_image","steps","teapot","text","weather"]}}`
		if string(r.Body) != want {
			t.Fatalf("body\n  %s\nwant\n  %s", r.Body, want)
		}
		p, err := codec.Verify(tok)
		if err != nil {
			t.Fatal(err)
		}
		if p.Tools != nil {
			t.Errorf("no hook list: tools %q, want unrestricted", p.Tools)
		}
		// The token's session is the cookie session of the same response.
		sid, err := cookieSession(t, c, r)
		if err != nil || sid != p.SID {
			t.Errorf("cookie session %q (%v), token session %q", sid, err, p.SID)
		}
	})
	t.Run("keeps an existing cookie session", func(t *testing.T) {
		c := s.newClient()
		c.post("/weather", `{"city":"Lima"}`) // makes the session
		_, meta := c.seedSession(`{}`)
		p, _ := codec.Verify(meta.Headers[tokenHeader])
		if r := c.post("/history", `{}`); compactJSON(t, r.Body) != `{"history":[]}` {
			t.Errorf("seed did not reset the session's state: %s", r.Body)
		}
		cs := c.connect(mcpOptions{header: http.Header{tokenHeader: {meta.Headers[tokenHeader]}}})
		call(t, cs, "weather", map[string]any{"city": "Quito"})
		if r := c.post("/history", `{}`); compactJSON(t, r.Body) != `{"history":["Quito"]}` || p.SID == "" {
			t.Errorf("HTTP door sees %s", r.Body)
		}
	})
	for _, c := range []struct{ name, seed, want string }{
		{"existing mcp key untouched", `{"respond":{"mcp":"mine"}}`, `{"mcp":"mine"}`},
		{"non-JSON untouched", `{"respond_text":"seeded"}`, `seeded`},
		{"array untouched", `{"respond":[1,2]}`, `[1,2]`},
		{"non-2xx untouched", `{"respond":{"error":"no"},"status":409}`, `{"error":"no"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _ := s.newClient().seedSession(c.seed)
			if string(r.Body) != c.want {
				t.Errorf("got %s, want %s", r.Body, c.want)
			}
		})
	}
	t.Run("hook narrows the token", func(t *testing.T) {
		_, meta := s.newClient().seedSession(`{"allowed_tools":["weather","history"]}`)
		p, err := codec.Verify(meta.Headers[tokenHeader])
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"weather", "history"}, p.Tools); diff != "" {
			t.Errorf("the token's tools (-want +got):\n%s", diff)
		}
	})
	t.Run("hook error fails the seed request", func(t *testing.T) {
		r, meta := s.newClient().seedSession(`{"hook_error":true}`)
		if r.Status != 500 || meta.Headers != nil || strings.Contains(string(r.Body), "down") {
			t.Fatalf("got %d %s", r.Status, r.Body)
		}
		if got := strings.TrimSpace(string(r.Body)); got != "seed_session: cannot decide this rollout's tools" {
			t.Errorf("body %q", got)
		}
	})
}

// cookieSession returns the session id the response's cookie names.
func cookieSession(t *testing.T, c *server, r httpResponse) (string, error) {
	t.Helper()
	for _, sc := range r.Header.Values("Set-Cookie") {
		return cookieSID(t, strings.SplitN(sc, ";", 2)[0])
	}
	return "", errors.New("no Set-Cookie")
}

// TestGating: tools/list and tools/call checked as the rollout contract says, in order.
func TestGating(t *testing.T) {
	h, door, _ := newFixture(t, fixtureConfig(t))
	s := inProcess(t, h, door)

	t.Run("a tokenless listing shows all tools, a garbage token's is refused", func(t *testing.T) {
		if diff := cmp.Diff(allTools, listNames(t, s.connect(mcpOptions{}))); diff != "" {
			t.Errorf("tokenless (-want +got):\n%s", diff)
		}
		_, err := s.connect(mcpOptions{header: http.Header{tokenHeader: {"garbage"}}}).ListTools(t.Context(), nil)
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != -32001 || werr.Message != "Invalid Gym MCP session token." ||
			string(werr.Data) != `{"code":"invalid_token","message":"the session token is not valid for this server"}` {
			t.Errorf("garbage token: %v", err)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		cases := []struct {
			name, token, tool, want string
		}{
			{"missing token", "", "teapot", `{"content":[{"type":"text","text":"Missing X-NeMo-Gym-Session-Token for Gym MCP tool call."}],"structuredContent":{"error":{"code":"missing_token","effect":"not_applied","message":"no session token","status":401}},"isError":true}`},
			{"garbage token", "garbage", "teapot", `{"content":[{"type":"text","text":"Invalid Gym MCP session token."}],"structuredContent":{"error":{"code":"invalid_token","effect":"not_applied","message":"the session token is not valid for this server","status":401}},"isError":true}`},
			{"missing token, typed tool", "", "weather", `{"_meta":{"mcpdoor/error":{"error":{"code":"missing_token","message":"no session token","status":401,"effect":"not_applied"}}},"content":[{"type":"text","text":"Missing X-NeMo-Gym-Session-Token for Gym MCP tool call."}],"isError":true}`},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				o := mcpOptions{}
				if c.token != "" {
					o.header = http.Header{tokenHeader: {c.token}}
				}
				if got := resultJSON(t, call(t, s.connect(o), c.tool, map[string]any{"city": "Paris"})); got != c.want {
					t.Errorf("got\n  %s\nwant\n  %s", got, c.want)
				}
			})
		}
	})
	t.Run("another server's token", func(t *testing.T) {
		tok, _ := token.NewCodec("other", testKeys(t), 0).Mint(token.Payload{SID: "s1"})
		res := call(t, s.connect(mcpOptions{header: http.Header{tokenHeader: {tok}}}), "weather", map[string]any{"city": "Paris"})
		if !res.IsError || res.Content[0].(*mcp.TextContent).Text != "Invalid Gym MCP session token." {
			t.Errorf("got %s", resultJSON(t, res))
		}
	})
	t.Run("allow-list narrows list and call", func(t *testing.T) {
		_, cs, _ := s.rollout(`{"allowed_tools":["weather","ghost"]}`)
		if diff := cmp.Diff([]string{"weather"}, listNames(t, cs)); diff != "" {
			t.Errorf("listed (-want +got):\n%s", diff)
		}
		if res := call(t, cs, "weather", map[string]any{"city": "Paris"}); res.IsError {
			t.Errorf("allowed tool refused: %s", resultJSON(t, res))
		}
		res := call(t, cs, "history", nil)
		if got := resultJSON(t, res); got != `{"_meta":{"mcpdoor/error":{"error":{"code":"tool_not_allowed","message":"the session token does not list this tool","status":403,"effect":"not_applied"}}},"content":[{"type":"text","text":"Tool 'history' is not allowed for this session."}],"isError":true}` {
			t.Errorf("got %s", got)
		}
	})
	t.Run("unknown tool comes first", func(t *testing.T) {
		// A garbage token learns no tool's name from it.
		for o, want := range map[*mcpOptions]string{
			{}: `unknown tool "ghost"; available tools: array, `,
			{header: http.Header{tokenHeader: {"garbage"}}}: `unknown tool "ghost"`,
		} {
			_, err := s.connect(*o).CallTool(t.Context(), &mcp.CallToolParams{Name: "ghost"})
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(werr.Message, want) ||
				o.header != nil && werr.Message != want {
				t.Errorf("got %v, want %s", err, want)
			}
		}
	})
	t.Run("hook returning nil gives an unrestricted token", func(t *testing.T) {
		_, cs, _ := s.rollout(`{}`)
		if diff := cmp.Diff(allTools, listNames(t, cs)); diff != "" {
			t.Errorf("listed (-want +got):\n%s", diff)
		}
	})
}

// TestRolloutState: two rollouts keep separate, ordered state, shared
// between the HTTP door (cookie) and the MCP door (token) of each.
func TestRolloutState(t *testing.T) {
	h, door, _ := newFixture(t, fixtureConfig(t))
	s := inProcess(t, h, door)
	a, csA, _ := s.rollout(`{}`)
	b, csB, _ := s.rollout(`{}`)
	call(t, csA, "weather", map[string]any{"city": "A1"})
	b.post("/weather", `{"city":"B1"}`)
	a.post("/weather", `{"city":"A2"}`)
	call(t, csB, "weather", map[string]any{"city": "B2"})
	call(t, csA, "weather", map[string]any{"city": "A3"})
	sameJSON(t, call(t, csA, "history", nil).StructuredContent, map[string]any{"history": []string{"A1", "A2", "A3"}})
	if r := b.post("/history", `{}`); compactJSON(t, r.Body) != `{"history":["B1","B2"]}` {
		t.Errorf("rollout B sees %s", r.Body)
	}
}

func TestRequireTokenFalse(t *testing.T) {
	cfg := fixtureConfig(t)
	cfg.MCP.Rollout.AllowTokenless = true
	h, door, _ := newFixture(t, cfg)
	s := inProcess(t, h, door)
	// The HTTP door's cookie session carries over to tokenless MCP calls.
	s.post("/weather", `{"city":"Paris"}`)
	cs := s.connect(mcpOptions{})
	call(t, cs, "weather", map[string]any{"city": "Oslo"})
	sameJSON(t, call(t, cs, "history", nil).StructuredContent, map[string]any{"history": []string{"Paris", "Oslo"}})
	// A token still decides when present.
	res := call(t, s.connect(mcpOptions{header: http.Header{tokenHeader: {"garbage"}}}), "history", nil)
	if !res.IsError {
		t.Errorf("garbage token accepted: %s", resultJSON(t, res))
	}
}

func TestVerifyNormalization(t *testing.T) {
	trajectory := `{"response":{"output":[` +
		`{"type":"function_call","call_id":"c1","name":"mcp__fixture__weather","arguments":"{\"city\":\"mcp__fixture__weather\"}"},` +
		`{"type":"message","content":"mcp__fixture__history"},` +
		`{"type":"function_call","call_id":"c2","name":"mcp__other__weather","arguments":"{}"},` +
		`{"type":"function_call","call_id":"c1","name":"mcp__fixture__history","arguments":"{}"},` +
		`{"type":"function_call","call_id":"c3","name":"teapot","arguments":"{}"}]},` +
		`"responses_create_params":{"tools":[{"name":"mcp__fixture__weather"}]}}`
	check := func(t *testing.T, s *server) {
		t.Helper()
		r := s.post("/verify", trajectory)
		var got struct {
			Seen     []string `json:"seen_names"`
			Reward   float64  `json:"reward"`
			Response struct {
				Output []map[string]any `json:"output"`
			} `json:"response"`
			Params json.RawMessage `json:"responses_create_params"`
		}
		if err := json.Unmarshal(r.Body, &got); err != nil {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if diff := cmp.Diff([]string{"weather", "mcp__other__weather", "history", "teapot"}, got.Seen); diff != "" {
			t.Errorf("the names verify saw (-want +got):\n%s", diff)
		}
		if got.Reward != 1.0 {
			t.Errorf("reward %v", got.Reward)
		}
		var echoed []string
		for _, item := range got.Response.Output {
			if item["type"] == "function_call" {
				echoed = append(echoed, item["name"].(string))
			}
		}
		if diff := cmp.Diff([]string{"mcp__fixture__weather", "mcp__other__weather", "mcp__fixture__history", "teapot"}, echoed); diff != "" {
			t.Errorf("the names verify echoed (-want +got):\n%s", diff)
		}
		if string(got.Params) != `{"tools":[{"name":"mcp__fixture__weather"}]}` {
			t.Errorf("responses_create_params changed: %s", got.Params)
		}
		if !strings.Contains(string(r.Body), `"arguments":"{\"city\":\"mcp__fixture__weather\"}"`) {
			t.Errorf("arguments changed: %s", r.Body)
		}
	}
	t.Run("verify", func(t *testing.T) {
		h, door, _ := newFixture(t, uncheckedConfig(t))
		check(t, inProcess(t, h, door))
	})
	t.Run("re-registered verify", func(t *testing.T) {
		cfg := uncheckedConfig(t)
		sessions, _ := cfg.UseSessions()
		f := &fixture{sessions: sessions, state: make(map[string][]string)}
		r := chi.NewRouter()
		f.routes(r)
		r.Post("/verify", func(w http.ResponseWriter, r *http.Request) {
			var body map[string]any
			json.NewDecoder(r.Body).Decode(&body)
			out := body["response"].(map[string]any)["output"].([]any)
			var seen []string
			for _, item := range out {
				if m := item.(map[string]any); m["type"] == "function_call" {
					seen = append(seen, m["name"].(string))
				}
			}
			body["seen_names"], body["reward"] = seen, 1.0
			json.NewEncoder(w).Encode(body)
		})
		door, err := autoexpose.Install(r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		check(t, inProcess(t, r, door))
	})
}
