package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// askServer serves, with the test kit, a router whose routes ask the
// client that called them: /confirm elicits a yes and a reason, /profile
// elicits twice in a row, /summarize samples. Each answers what it got, or, on an error, 409 with
// the error and what errors.Is says of it. runs counts the handlers' runs.
func askServer(t *testing.T, dispatch string, stateful bool) (*server, *atomic.Int32) {
	t.Helper()
	var runs atomic.Int32
	fail := func(w http.ResponseWriter, err error) {
		w.WriteHeader(http.StatusConflict)
		fmt.Fprintf(w, "%v (no client: %t, unsupported: %t)", err, errors.Is(err, autoexpose.ErrNoClient), errors.Is(err, errors.ErrUnsupported))
	}
	r := chi.NewRouter()
	r.Post("/confirm", func(w http.ResponseWriter, r *http.Request) {
		runs.Add(1)
		res, err := autoexpose.Elicit(r.Context(), "Delete 3 files?", &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"sure":   {Type: "boolean", Description: "Delete them"},
				"reason": {Type: "string", Default: json.RawMessage(`"cleanup"`)},
			},
			Required: []string{"sure"},
		})
		if err != nil {
			fail(w, err)
			return
		}
		json.NewEncoder(w).Encode(res)
	})
	r.Post("/profile", func(w http.ResponseWriter, r *http.Request) {
		runs.Add(1)
		var answers []*mcp.ElicitResult
		for _, field := range []string{"name", "city"} {
			res, err := autoexpose.Elicit(r.Context(), "Your "+field+"?", &jsonschema.Schema{
				Type:       "object",
				Properties: map[string]*jsonschema.Schema{field: {Type: "string"}},
			})
			if err != nil {
				fail(w, err)
				return
			}
			answers = append(answers, res)
		}
		json.NewEncoder(w).Encode(answers)
	})
	r.Post("/summarize", func(w http.ResponseWriter, r *http.Request) {
		runs.Add(1)
		//lint:ignore SA1019 sampling, deprecated as of 2026-07-28, is still served
		res, err := autoexpose.Sample(r.Context(), &mcp.CreateMessageParams{
			//lint:ignore SA1019 see above
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarize: the sky is blue."}}},
			MaxTokens: 50,
		})
		if err != nil {
			fail(w, err)
			return
		}
		json.NewEncoder(w).Encode(res)
	})
	cfg := autoexpose.Config{Name: "ask", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler)}
	cfg.MCP.Dispatch, cfg.MCP.Stateful = autoexpose.Dispatch(dispatch), stateful
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return inProcess(t, r, door), &runs
}

// answering is a client that answers elicitations and sampling requests,
// and records what it was asked.
type answering struct {
	mu    sync.Mutex
	asked []string
}

func (a *answering) record(v any) {
	b, _ := json.Marshal(v)
	a.mu.Lock()
	a.asked = append(a.asked, string(b))
	a.mu.Unlock()
}

func (a *answering) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			a.record(req.Params)
			switch req.Params.Message {
			case "Your name?":
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
			case "Your city?":
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"sure": true}}, nil
		},
		//lint:ignore SA1019 sampling, deprecated as of 2026-07-28, is still served
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			a.record(req.Params)
			//lint:ignore SA1019 see above
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "Blue sky."}}, nil
		},
	}
}

// TestElicitAndSample: a route's autoexpose.Elicit and autoexpose.Sample
// ask the MCP client that made the call, through direct and replay
// dispatch: over a stateful session's stream (protocol 2025-11-25), and on a
// stateless door through the 2026-07-28 protocol's input requests, which run
// the handler again with the answers. Where the question cannot be asked,
// the handler gets an error it can tell apart.
func TestElicitAndSample(t *testing.T) {
	// What the client is asked, as it decodes it (schemas into maps, whose
	// keys marshal sorted).
	const (
		confirmAsked = `{"mode":"form","message":"Delete 3 files?","requestedSchema":{"properties":{"reason":{"default":"cleanup","type":"string"},"sure":{"description":"Delete them","type":"boolean"}},"required":["sure"],"type":"object"}}`
		nameAsked    = `{"mode":"form","message":"Your name?","requestedSchema":{"properties":{"name":{"type":"string"}},"type":"object"}}`
		cityAsked    = `{"mode":"form","message":"Your city?","requestedSchema":{"properties":{"city":{"type":"string"}},"type":"object"}}`
		sampleAsked  = `{"maxTokens":50,"messages":[{"content":{"type":"text","text":"Summarize: the sky is blue."},"role":"user"}]}`

		// The default of "reason" is filled in, as the schema says.
		confirmed = `{"content":[{"type":"text","text":"{\"action\":\"accept\",\"content\":{\"reason\":\"cleanup\",\"sure\":true}}"}],"structuredContent":{"action":"accept","content":{"reason":"cleanup","sure":true}}}`
		profile   = `{"content":[{"type":"text","text":"[{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}},{\"action\":\"decline\"}]"}]}`
		sampled   = `{"content":[{"type":"text","text":"{\"content\":{\"type\":\"text\",\"text\":\"Blue sky.\"},\"model\":\"test-model\",\"role\":\"assistant\"}"}],"structuredContent":{"content":{"text":"Blue sky.","type":"text"},"model":"test-model","role":"assistant"}}`
	)
	for _, dispatch := range []string{"auto", "replay"} {
		for _, tc := range []struct {
			name     string
			stateful bool
			runs     [3]int32 // how many times each handler ran: confirm, profile, summarize
		}{
			// A stateful session carries the requests on the call's stream.
			{"stateful", true, [3]int32{1, 1, 1}},
			// A stateless door asks a 2026-07-28 client with an input
			// request per question, and runs the handler again with the
			// answers: once more per question.
			{"stateless 2026-07-28", false, [3]int32{2, 3, 2}},
		} {
			t.Run(dispatch+"/"+tc.name, func(t *testing.T) {
				s, runs := askServer(t, dispatch, tc.stateful)
				var a answering
				cs := s.connect(mcpOptions{client: a.options()})
				for i, c := range []struct {
					tool, want string
					asked      []string
				}{
					{"confirm", confirmed, []string{confirmAsked}},
					{"profile", profile, []string{nameAsked, cityAsked}},
					{"summarize", sampled, []string{sampleAsked}},
				} {
					a.asked = nil
					runs.Store(0)
					if got := resultJSON(t, call(t, cs, c.tool, map[string]any{})); got != c.want {
						t.Errorf("%s:\n got %s\nwant %s", c.tool, got, c.want)
					}
					if got, want := fmt.Sprint(a.asked), fmt.Sprint(c.asked); got != want {
						t.Errorf("%s: the client was asked\n%s\nwant\n%s", c.tool, got, want)
					}
					if got := runs.Load(); got != tc.runs[i] {
						t.Errorf("%s: the handler ran %d times, want %d", c.tool, got, tc.runs[i])
					}
				}
			})
		}
	}
}

// TestElicitUnavailable: where a question cannot reach a user, Elicit and
// Sample return an error that says why, and that errors.Is tells apart:
// ErrNoClient on the HTTP door, errors.ErrUnsupported for an MCP client that
// cannot be asked; on protocol 2026-07-28 the call that fails for it is
// answered with the protocol's missing-capability error.
func TestElicitUnavailable(t *testing.T) {
	const (
		statelessOld = `a stateless MCP session cannot send the client a request on protocol 2025-11-25: serve stateful sessions (mcp.stateful: true), or use a client of protocol 2026-07-28 or later (no client: false, unsupported: true)`
	)
	for _, tc := range []struct {
		name      string
		stateful  bool
		protocol  string
		answers   bool
		elicit    string
		summarize string
	}{
		{"stateless 2025-11-25", false, "2025-11-25", true, "mcpdoor: elicit: " + statelessOld, "mcpdoor: sample: " + statelessOld},
		{"stateful without the capabilities", true, "", false,
			"mcpdoor: elicit: the MCP client does not support elicitation (it declared no elicitation capability) (no client: false, unsupported: true)",
			"mcpdoor: sample: the MCP client does not support sampling (it declared no sampling capability) (no client: false, unsupported: true)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := askServer(t, "auto", tc.stateful)
			var a answering
			o := mcpOptions{protocol: tc.protocol}
			if tc.answers {
				o.client = a.options()
			}
			cs := s.connect(o)
			for tool, text := range map[string]string{"confirm": tc.elicit, "summarize": tc.summarize} {
				b, _ := json.Marshal("HTTP 409 from POST /" + tool + ": " + text)
				m, _ := json.Marshal(text)
				want := `{"content":[{"type":"text","text":` + string(b) + `}],"structuredContent":{"error":{"code":"conflict","effect":"not_applied","message":` + string(m) + `,"status":409}},"isError":true}`
				if got := resultJSON(t, call(t, cs, tool, map[string]any{})); got != want {
					t.Errorf("%s:\n got %s\nwant %s", tool, got, want)
				}
			}
			if len(a.asked) > 0 {
				t.Errorf("the client was asked %v", a.asked)
			}
		})
	}

	// On 2026-07-28 the call that fails for want of a capability the client
	// did not declare is the protocol's error, which names it.
	t.Run("stateless 2026-07-28 without the capabilities", func(t *testing.T) {
		s, _ := askServer(t, "auto", false)
		cs := s.connect(mcpOptions{})
		for tool, capability := range map[string]string{"confirm": "elicitation", "summarize": "sampling"} {
			_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
			var rpcErr *jsonrpc.Error
			want := "mcpdoor: tool " + tool + " needs the client's " + capability + " capability, which the request does not declare"
			if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMissingRequiredClientCapabilities || rpcErr.Message != want {
				t.Errorf("%s: %v, want the JSON-RPC error -32021 %q", tool, err, want)
			}
		}
	})

	t.Run("HTTP door", func(t *testing.T) {
		s, _ := askServer(t, "auto", true)
		for tool, want := range map[string]string{
			"confirm":   "mcpdoor: elicit: no MCP client: the request came through the HTTP door (no client: true, unsupported: true)",
			"summarize": "mcpdoor: sample: no MCP client: the request came through the HTTP door (no client: true, unsupported: true)",
		} {
			if r := s.post("/"+tool, `{}`); r.Status != http.StatusConflict || string(r.Body) != want {
				t.Errorf("POST /%s: %d %s\nwant 409 %s", tool, r.Status, r.Body, want)
			}
		}
	})
}

// TestElicitAnswerChecked: an accepted answer that breaks the schema asked
// with is an error for the handler, whichever way it came back: over a
// stateful session's stream (the go-sdk checks it), or, on a stateless door,
// in a tools/call of protocol 2026-07-28 (mcpdoor checks it; a go-sdk
// client would not send it, so the calls here are raw JSON-RPC).
func TestElicitAnswerChecked(t *testing.T) {
	const wantText = `mcpdoor: elicit: %svalidating root: validating /properties/sure: type: yes has type "string", want "boolean" (no client: false, unsupported: false)`
	t.Run("stateful", func(t *testing.T) {
		s, _ := askServer(t, "auto", true)
		cs := s.connect(mcpOptions{client: &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"sure": "yes"}}, nil
			},
		}})
		text := fmt.Sprintf(wantText, `calling "elicitation/create": elicitation result content does not match requested schema: `)
		b, _ := json.Marshal("HTTP 409 from POST /confirm: " + text)
		if got := resultJSON(t, call(t, cs, "confirm", map[string]any{})); !strings.HasPrefix(got, `{"content":[{"type":"text","text":`+string(b)+`}]`) {
			t.Errorf("got %s\nwant the text %s", got, b)
		}
	})

	t.Run("stateless 2026-07-28", func(t *testing.T) {
		s, _ := askServer(t, "auto", false)
		const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`
		rpc := func(params string) string {
			r := s.post("/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm","arguments":{},`+meta+params+`}}`,
				"Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "confirm")
			body := string(r.Body)
			if i := strings.Index(body, "data: "); i >= 0 {
				body = strings.TrimSpace(body[i+len("data: "):])
			}
			if r.Status != http.StatusOK {
				t.Fatalf("%d %s", r.Status, body)
			}
			return body
		}
		// The server's version in _meta is the test binary's, and the
		// request state is signed with a random secret.
		first := rpc("")
		shown := regexp.MustCompile(`"version":"[^"]*"`).ReplaceAllString(first, `"version":"v"`)
		shown = regexp.MustCompile(`"requestState":"[A-Za-z0-9_=-]+"`).ReplaceAllString(shown, `"requestState":"s"`)
		const asked = `{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ask","version":"v"}},"content":[],"requestState":"s","resultType":"input_required",` +
			`"inputRequests":{"mcpdoor-1-0607f3c045f0":{"method":"elicitation/create","params":{"mode":"form","message":"Delete 3 files?","requestedSchema":{"type":"object","properties":{"reason":{"type":"string","default":"cleanup"},"sure":{"type":"boolean","description":"Delete them"}},"required":["sure"]}}}}}}`
		if shown != asked {
			t.Errorf("first round:\n got %s\nwant %s", shown, asked)
		}
		var res struct {
			Result struct {
				InputRequests map[string]json.RawMessage `json:"inputRequests"`
				RequestState  string                     `json:"requestState"`
			} `json:"result"`
		}
		json.Unmarshal([]byte(first), &res)
		var key string
		for k := range res.Result.InputRequests {
			key = k
		}
		second := rpc(`,"requestState":"` + res.Result.RequestState + `","inputResponses":{"` + key + `":{"action":"accept","content":{"sure":"yes"}}}`)
		text, _ := json.Marshal("HTTP 409 from POST /confirm: " + fmt.Sprintf(wantText, "the answer does not match the requested schema: "))
		if !strings.Contains(second, `"content":[{"type":"text","text":`+string(text)+`}]`) {
			t.Errorf("second round:\n got %s\nwant the text %s", second, text)
		}
	})
}

// TestConformanceExampleAsks: examples/conformance's elicitation and
// sampling routes over both doors: on a stateless door a client of protocol
// 2026-07-28 is asked through input requests; over HTTP the route answers
// that no MCP client is there to ask.
func TestConformanceExampleAsks(t *testing.T) {
	s := startExample(t, "conformance", "").server // its own server.yaml: stateless
	for _, c := range []struct{ path, body, want string }{
		{"/test_elicitation", `{"message":"Who are you?"}`, "mcpdoor: elicit: no MCP client: the request came through the HTTP door\n"},
		{"/test_sampling", `{"prompt":"Why is the sky blue?"}`, "mcpdoor: sample: no MCP client: the request came through the HTTP door\n"},
	} {
		if r := s.post(c.path, c.body); r.Status != http.StatusBadRequest || string(r.Body) != c.want {
			t.Errorf("POST %s: %d %q, want 400 %q", c.path, r.Status, r.Body, c.want)
		}
	}

	cs := s.connect(mcpOptions{client: &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "ada", "email": "ada@example.com"}}, nil
		},
		//lint:ignore SA1019 sampling, deprecated as of 2026-07-28, is still served
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			//lint:ignore SA1019 see above
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "Rayleigh scattering."}}, nil
		},
	}})
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"test_elicitation", map[string]any{"message": "Who are you?"}, `{"content":[{"type":"text","text":"User response: action=accept, content={\"email\":\"ada@example.com\",\"username\":\"ada\"}"}]}`},
		{"test_sampling", map[string]any{"prompt": "Why is the sky blue?"}, `{"content":[{"type":"text","text":"LLM response: Rayleigh scattering."}]}`},
	} {
		if got := resultJSON(t, call(t, cs, c.tool, c.args)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.tool, got, c.want)
		}
	}
}

// TestElicitTyped: a typed handler (autoexpose.Handler) that returns
// Elicit's error on the first round of a 2026-07-28 input request is run
// again with the answer, and logs no handler error for the round whose
// answer was dropped.
func TestElicitTyped(t *testing.T) {
	var log strings.Builder
	var runs atomic.Int32
	r := chi.NewRouter()
	r.Method(http.MethodPost, "/confirm", autoexpose.Handler(func(ctx context.Context, _ *http.Request, _ struct{}) (*mcp.ElicitResult, error) {
		runs.Add(1)
		return autoexpose.Elicit(ctx, "Sure?", nil)
	}))
	cfg := autoexpose.Config{Name: "typed", ExposeToolsOverMCP: true, Logger: newLogger(&log)}
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := inProcess(t, r, door)
	cs := s.connect(mcpOptions{client: &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	}})
	const want = `{"content":[{"type":"text","text":"{\"action\":\"accept\"}"}],"structuredContent":{"action":"accept"}}`
	if got := resultJSON(t, call(t, cs, "confirm", map[string]any{})); got != want || runs.Load() != 2 {
		t.Errorf("got %s after %d runs\nwant %s after 2", got, runs.Load(), want)
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("the log has an error:\n%s", log.String())
	}
}
