package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/token"
)

// A caller learns only the tools it may call, and a token that was sent but
// fails sees the refusal, never more: not through the unknown-tool error,
// not through tools/list or the catalog, and no reader of the catalog
// learns the server's internals.

// narrowingServer is a rollout server of four tools, one behind an auth
// middleware, whose tokens live one second.
func narrowingServer(t *testing.T) *server {
	t.Helper()
	cfg, err := autoexpose.ParseConfig([]byte("name: four\nexpose_tools_over_mcp: true\nmcp:\n  session_secret: \"" + testSecret + "\"\n  catalog: true\n  rollout: {token_ttl: 1s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.MCP.Rollout.AllowedTools = func(seed []byte) ([]string, error) {
		var b struct {
			AllowedTools []string `json:"allowed_tools"`
		}
		json.Unmarshal(seed, &b)
		return b.AllowedTools, nil
	}
	sessions, err := cfg.UseSessions()
	if err != nil {
		t.Fatal(err)
	}
	answer := func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Post("/alpha", answer)
	r.Post("/beta", answer)
	r.Post("/gamma", answer)
	r.With(requireBearer).Post("/delta", answer)
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	r.Post("/verify", answer)
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return inProcess(t, r, door)
}

// rpc sends one JSON-RPC request to the stateless endpoint with the token
// tok ("" for none) and returns the response's JSON, compacted.
func (s *server) rpc(t *testing.T, tok, method, params string) string {
	t.Helper()
	var header []string
	if tok != "" {
		header = []string{tokenHeader, tok}
	}
	hr := s.rawMCP(t, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`, raw{protocol: "2025-11-25", header: header})
	body := hr.Body
	if _, data, ok := bytes.Cut(body, []byte("\ndata: ")); ok { // an SSE answer
		body = data
	}
	return compactJSON(t, bytes.TrimSpace(body))
}

// listed returns the names a tools/list result lists, or the response
// when it is not one.
func listed(t *testing.T, resp string) string {
	t.Helper()
	var r struct {
		Result *struct{ Tools []struct{ Name string } }
	}
	json.Unmarshal([]byte(resp), &r)
	if r.Result == nil {
		return resp
	}
	var names []string
	for _, tl := range r.Result.Tools {
		names = append(names, tl.Name)
	}
	return strings.Join(names, " ")
}

// catalogTools returns the names of the tools the catalog lists, or the
// response when it is not a catalog.
func catalogTools(t *testing.T, resp string) string {
	t.Helper()
	var r struct {
		Result *struct{ Contents []struct{ Text string } }
	}
	json.Unmarshal([]byte(resp), &r)
	if r.Result == nil || len(r.Result.Contents) != 1 {
		return resp
	}
	var c struct{ Tools []struct{ Name string } }
	json.Unmarshal([]byte(r.Result.Contents[0].Text), &c)
	var names []string
	for _, tl := range c.Tools {
		names = append(names, tl.Name)
	}
	return strings.Join(names, " ")
}

const readCatalog = `{"uri":"four://catalog"}`

// invalidToken is the JSON-RPC error of a listing with a token that does
// not verify, for the reason given.
func invalidToken(why string) string {
	return `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Invalid Gym MCP session token.","data":{"code":"invalid_token","message":"` + why + `"}}}`
}

func TestNarrowedCallerLearnsOnlyItsTools(t *testing.T) {
	s := narrowingServer(t)
	seeded := time.Now()
	_, meta := s.newClient().seedSession(`{"allowed_tools":["alpha"]}`)
	narrowed := meta.Headers[tokenHeader]
	if narrowed == "" {
		t.Fatal("no token")
	}
	other, _ := token.NewCodec("other", testKeys(t), 0).Mint(token.Payload{SID: "s1", Tools: []string{"alpha"}})
	const notValid = "the session token is not valid for this server"

	t.Run("the unknown-tool error lists the caller's tools", func(t *testing.T) {
		unknown := func(list string) string {
			return `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool \"nope\"` + list + `"}}`
		}
		for _, tc := range []struct{ name, tok, want string }{
			{"no token", "", unknown("; available tools: alpha, beta, delta, gamma")},
			{"a narrowed token", narrowed, unknown("; available tools: alpha")},
			{"a garbage token", "garbage", unknown("")},
			{"another server's token", other, unknown("")},
		} {
			if got := s.rpc(t, tc.tok, "tools/call", `{"name":"nope","arguments":{}}`); got != tc.want {
				t.Errorf("%s:\n  %s\nwant\n  %s", tc.name, got, tc.want)
			}
		}
	})

	t.Run("a token that fails sees the refusal", func(t *testing.T) {
		for _, tc := range []struct{ name, tok, list, catalog string }{
			{"no token", "", "alpha beta delta gamma", "alpha beta delta gamma"},
			{"a narrowed token", narrowed, "alpha", "alpha"},
			{"a garbage token", "garbage", invalidToken(notValid), invalidToken(notValid)},
			{"another server's token", other, invalidToken(notValid), invalidToken(notValid)},
		} {
			if got := listed(t, s.rpc(t, tc.tok, "tools/list", `{}`)); got != tc.list {
				t.Errorf("%s: tools/list:\n  %s\nwant\n  %s", tc.name, got, tc.list)
			}
			if got := catalogTools(t, s.rpc(t, tc.tok, "resources/read", readCatalog)); got != tc.catalog {
				t.Errorf("%s: the catalog:\n  %s\nwant\n  %s", tc.name, got, tc.catalog)
			}
		}
	})

	t.Run("an expired narrowed token sees the refusal", func(t *testing.T) {
		// A 1s token minted in second s is refused from second s+2 on.
		time.Sleep(time.Until(time.Unix(seeded.Unix()+2, 0)) + 50*time.Millisecond)
		const expired = "the session token has expired"
		if got := listed(t, s.rpc(t, narrowed, "tools/list", `{}`)); got != invalidToken(expired) {
			t.Errorf("tools/list:\n  %s\nwant\n  %s", got, invalidToken(expired))
		}
		if got := catalogTools(t, s.rpc(t, narrowed, "resources/read", readCatalog)); got != invalidToken(expired) {
			t.Errorf("the catalog:\n  %s\nwant\n  %s", got, invalidToken(expired))
		}
		want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool \"nope\""}}`
		if got := s.rpc(t, narrowed, "tools/call", `{"name":"nope","arguments":{}}`); got != want {
			t.Errorf("an unknown tool:\n  %s\nwant\n  %s", got, want)
		}
	})

	t.Run("the catalog carries no internals", func(t *testing.T) {
		got := s.rpc(t, "", "resources/read", readCatalog)
		var r struct {
			Result struct{ Contents []struct{ Text string } }
		}
		json.Unmarshal([]byte(got), &r)
		if len(r.Result.Contents) != 1 {
			t.Fatalf("resources/read: %s", got)
		}
		var c struct{ Tools []map[string]json.RawMessage }
		if err := json.Unmarshal([]byte(r.Result.Contents[0].Text), &c); err != nil || len(c.Tools) != 4 {
			t.Fatalf("catalog: %s (%v)", r.Result.Contents[0].Text, err)
		}
		for _, tl := range c.Tools {
			var keys []string
			for k := range tl {
				keys = append(keys, k)
			}
			for _, internal := range []string{"dispatch", "reasons", "schema"} {
				if _, ok := tl[internal]; ok {
					t.Errorf("tool %s has %q: keys %q", tl["name"], internal, keys)
				}
			}
		}
		if strings.Contains(got, "requireBearer") {
			t.Errorf("the catalog names the middleware: %s", got)
		}
	})
}
