package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// Gemini CLI, driven headless (gemini -p) as a real process, against a
// fake of the Gemini API that the test serves on 127.0.0.1: the model
// answers each turn with the next function call of its script, naming the
// server's tools as the CLI offers them (mcp_<server>_<tool>), then with a
// final text.

// geminiCall is a function call of the fake model's script.
type geminiCall struct {
	Name string         // as the CLI offers it: mcp_<server>_<tool>
	Args map[string]any // its arguments
}

// A fakeGemini is the Gemini API, as far as a headless Gemini CLI run uses
// it: streamGenerateContent for the turns of the conversation, and
// generateContent for the CLI's own questions (answered with a plain JSON
// object). It records what the CLI sent.
type fakeGemini struct {
	t      *testing.T
	script []geminiCall
	final  string
	key    string

	mu        sync.Mutex
	offered   [][]string        // the function names each turn offered
	responses []json.RawMessage // the function responses the CLI sent, in order
	unknown   []string          // requests the fake does not serve
	turns     int               // streamGenerateContent requests
}

// serve starts the fake on a loopback port until the test ends, and
// returns its base URL.
func (g *fakeGemini) serve() string {
	srv := httptest.NewServer(http.HandlerFunc(g.handle))
	g.t.Cleanup(srv.Close)
	return srv.URL
}

// geminiRequest is what the fake reads of a GenerateContentRequest.
type geminiRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			FunctionResponse json.RawMessage `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

func (g *fakeGemini) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	g.mu.Lock()
	defer g.mu.Unlock()
	if r.Header.Get("x-goog-api-key") != g.key {
		http.Error(w, `{"error":{"code":401,"message":"bad key","status":"UNAUTHENTICATED"}}`, http.StatusUnauthorized)
		g.unknown = append(g.unknown, "a request without the key: "+r.URL.Path)
		return
	}
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		g.unknown = append(g.unknown, "a body that is not JSON: "+r.URL.Path)
		return
	}
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":streamGenerateContent"):
		g.turn(w, req)
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":generateContent"):
		// The CLI's own questions (whose turn is next, ...): the user's.
		writeJSON(w, map[string]any{"candidates": []any{candidate(map[string]any{"text": `{"reasoning":"the task is done","next_speaker":"user"}`})}})
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 1})
	default:
		g.unknown = append(g.unknown, r.Method+" "+r.URL.String())
		http.NotFound(w, r)
	}
}

// turn answers a turn of the conversation with the next call of the
// script, or the final text once every call has its response. g.mu is
// held.
func (g *fakeGemini) turn(w http.ResponseWriter, req geminiRequest) {
	g.turns++
	var offered []string
	for _, tl := range req.Tools {
		for _, f := range tl.FunctionDeclarations {
			offered = append(offered, f.Name)
		}
	}
	g.offered = append(g.offered, offered)
	var responses []json.RawMessage
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				responses = append(responses, p.FunctionResponse)
			}
		}
	}
	g.responses = responses
	part := map[string]any{"text": g.final}
	if n := len(responses); n < len(g.script) {
		call := g.script[n]
		part = map[string]any{"functionCall": map[string]any{"name": call.Name, "args": call.Args}}
		if !slices.Contains(offered, call.Name) {
			part = map[string]any{"text": "The tool " + call.Name + " is not offered."}
		}
	}
	data, _ := json.Marshal(map[string]any{
		"candidates":    []any{candidate(part)},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-2.5-flash",
	})
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", data)
}

// candidate is a finished candidate of the model's made of part.
func candidate(part map[string]any) map[string]any {
	return map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// methodRecorder serves h, recording the method of each JSON-RPC message
// posted to /mcp and the protocol version of its header.
type methodRecorder struct {
	h       http.Handler
	mu      sync.Mutex
	methods []string
	version []string
}

func (m *methodRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == "/mcp" {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		json.Unmarshal(body, &msg)
		m.mu.Lock()
		m.methods = append(m.methods, msg.Method)
		if msg.Params.ProtocolVersion != "" {
			m.version = append(m.version, msg.Params.ProtocolVersion)
		}
		m.mu.Unlock()
	}
	m.h.ServeHTTP(w, r)
}

// TestGeminiCLI: Gemini CLI plays a rollout as NeMo Gym's agents for
// coding CLIs do, through every session policy: the test seeds over HTTP,
// configures the CLI's MCP server with the seed's URL and token header,
// the CLI (its model the fake) calls the server's tools, named
// mcp_<server>_<tool>, and the test posts /verify with the seed's cookies
// and the trajectory as the CLI emitted it. The CLI opens with initialize
// at protocol 2025-06-18, lists only the token's tools, and each call lands
// in the seeded session: reward 1.
func TestGeminiCLI(t *testing.T) {
	t.Parallel()
	nodeclient.Node(t)
	for _, door := range clientDoors {
		t.Run(door.name, func(t *testing.T) {
			t.Parallel()
			cfg := fixtureConfig(t)
			door.mcp.SessionSecret = cfg.MCP.SessionSecret
			cfg.MCP = door.mcp
			cfg.MCP.Rollout.AllowedTools = fixtureConfig(t).MCP.Rollout.AllowedTools
			h, d, _ := newFixture(t, cfg)
			rec := &methodRecorder{h: h}
			s := serve(t, rec)
			t.Cleanup(func() { d.Close() })

			agent := newGymAgent(t, s, "")
			ro := mcpAgentSeed(t, agent, s.url, map[string]any{"allowed_tools": []string{"weather", "history"}})
			agent.post("/weather", map[string]any{"city": "Oslo"})
			model := &fakeGemini{t: t, key: "fake-gemini-key", final: "Paris is sunny.", script: []geminiCall{
				{"mcp_" + ro.meta.ServerName + "_weather", map[string]any{"city": "Paris"}},
				{"mcp_" + ro.meta.ServerName + "_history", map[string]any{}},
			}}
			out := nodeclient.Gemini(t, nodeclient.GeminiRun{
				ModelURL: model.serve(),
				Servers:  map[string]nodeclient.GeminiServer{ro.meta.ServerName: {HTTPURL: ro.endpoint, Headers: ro.meta.Headers, Trust: true, Timeout: 30000}},
				Prompt:   "What is the weather in Paris? Then show the history of this session.",
			})
			if out.ExitCode != 0 || out.Response != "Paris is sunny." || out.Error != nil {
				t.Fatalf("gemini: exit %d, response %q, error %s\nstderr:\n%s", out.ExitCode, out.Response, out.Error, out.Stderr)
			}

			model.mu.Lock()
			defer model.mu.Unlock()
			if len(model.unknown) > 0 {
				t.Errorf("the CLI asked the model API for what it does not serve: %q", model.unknown)
			}
			// It offers the token's tools, under its names, and its own.
			for _, want := range []string{"mcp_fixture_weather", "mcp_fixture_history"} {
				if len(model.offered) == 0 || !slices.Contains(model.offered[0], want) {
					t.Errorf("the first turn offered %q, not %s", model.offered, want)
				}
			}
			if len(model.offered) > 0 && slices.Contains(model.offered[0], "mcp_fixture_text") {
				t.Errorf("the first turn offered mcp_fixture_text, which the token does not list: %q", model.offered[0])
			}
			// The model got each tool's answer, from the seeded session.
			var seen string
			for _, r := range model.responses {
				seen += string(r) + "\n"
			}
			for _, want := range []string{`The weather in Paris is sunny and 72 F.`, `[\"Oslo\",\"Paris\"]`} {
				if !strings.Contains(seen, want) {
					t.Errorf("the function responses the model got lack %s:\n%s", want, seen)
				}
			}

			// /verify with the trajectory as the CLI emitted it.
			calls := []gymCall{{"weather", map[string]any{"city": "Paris"}}, {"history", map[string]any{}}}
			verify := trajectory(calls, func(tool string) string { return "mcp_" + ro.meta.ServerName + "_" + tool })
			ro.a.cookies = ro.cookies
			status, body := ro.a.post("/verify", verify)
			var v struct {
				Reward   float64  `json:"reward"`
				History  []string `json:"history"`
				Response struct {
					Output []struct{ Name string } `json:"output"`
				} `json:"response"`
			}
			if err := json.Unmarshal(body, &v); err != nil || status != http.StatusOK {
				t.Fatalf("verify: %d %s", status, body)
			}
			if v.Reward != 1 || !slices.Equal(v.History, []string{"Oslo", "Paris"}) || len(v.Response.Output) != 2 || v.Response.Output[0].Name != "mcp_fixture_weather" {
				t.Errorf("verify: %s, want reward 1, the history [Oslo Paris], the emitted names echoed", body)
			}

			rec.mu.Lock()
			defer rec.mu.Unlock()
			if !slices.Contains(rec.version, "2025-06-18") || slices.Contains(rec.methods, "server/discover") {
				t.Errorf("the CLI sent %q at %q; want initialize at 2025-06-18, no server/discover", rec.methods, rec.version)
			}
			t.Logf("the CLI sent %q", rec.methods)
		})
	}
}
