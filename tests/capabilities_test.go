package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// What a door declares is what it serves, at both protocol versions, on a
// stateless and on a stateful door: a client reads the capabilities of
// initialize (2025-11-25) or server/discover (2026-07-28) and believes
// them.

// An mcpExchange is one client's raw conversation with a door at one
// protocol version: opened with initialize (and, on a stateful door, its
// session) or, at 2026-07-28, with server/discover, whose capabilities it
// keeps.
type mcpExchange struct {
	s            *server
	version      string
	sid          string          // the stateful door's session
	capabilities json.RawMessage // as initialize or server/discover declared them
	next         int             // the next request's id
}

// modernMeta is the _meta of every 2026-07-28 request of an exchange.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`

// openExchange opens an exchange with s at version.
func openExchange(t *testing.T, s *server, version string) *mcpExchange {
	t.Helper()
	x := &mcpExchange{s: s, version: version, next: 1}
	var opened struct {
		Result struct {
			Capabilities json.RawMessage `json:"capabilities"`
		} `json:"result"`
	}
	if version >= "2026-07-28" {
		_, body := x.send(t, "server/discover", "", `{`+modernMeta+`}`)
		if err := json.Unmarshal(body, &opened); err != nil || opened.Result.Capabilities == nil {
			t.Fatalf("server/discover: %s", body)
		}
		x.capabilities = opened.Result.Capabilities
		return x
	}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, version)
	r := s.rawMCP(t, init, raw{})
	if err := json.Unmarshal(r.Body, &opened); err != nil || opened.Result.Capabilities == nil {
		t.Fatalf("initialize: %d %s", r.Status, r.Body)
	}
	x.capabilities = opened.Result.Capabilities
	if x.sid = r.Header.Get("Mcp-Session-Id"); x.sid != "" {
		s.rawMCP(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, raw{sid: x.sid, protocol: version})
		t.Cleanup(func() {
			s.rawMCP(t, "", raw{method: http.MethodDelete, sid: x.sid, protocol: version, ctx: context.Background()})
		})
	}
	return x
}

// send sends one request of method (with name, the Mcp-Name of a
// 2026-07-28 request) and params, a JSON object, and returns the HTTP
// status and the JSON-RPC response as it came.
func (x *mcpExchange) send(t *testing.T, method, name, params string, header ...string) (int, []byte) {
	t.Helper()
	id := x.next
	x.next++
	if x.version >= "2026-07-28" {
		header = append(header, "Mcp-Method", method)
		if name != "" {
			header = append(header, "Mcp-Name", name)
		}
		if params == "{}" {
			params = `{` + modernMeta + `}`
		} else if !strings.Contains(params, `"_meta"`) {
			params = `{` + modernMeta + `,` + params[1:]
		}
	}
	r := x.s.rawMCP(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params), raw{sid: x.sid, protocol: x.version, header: header})
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s: a %s answer, want application/json: %s", method, ct, r.Body)
	}
	return r.Status, r.Body
}

// capabilityServer serves the fixture with the session policy of m and
// tokenless calls.
func capabilityServer(t *testing.T, m autoexpose.MCPConfig) *server {
	t.Helper()
	cfg := fixtureConfig(t)
	m.SessionSecret = cfg.MCP.SessionSecret
	m.Rollout.AllowedTools = cfg.MCP.Rollout.AllowedTools
	m.Rollout.AllowTokenless = true
	cfg.MCP = m
	h, door, _ := newFixture(t, cfg)
	s := serve(t, h)
	t.Cleanup(func() { door.Close() })
	return s
}

// capabilityDoors are the session policies a door can serve, and the
// protocol versions a client can open each with.
var capabilityDoors = []struct {
	name     string
	mcp      autoexpose.MCPConfig
	versions []string
}{
	{"stateless", autoexpose.MCPConfig{}, []string{"2025-11-25", "2026-07-28"}},
	{"stateful", autoexpose.MCPConfig{Stateful: true}, []string{"2025-11-25"}},
	{"exclusive", autoexpose.MCPConfig{Exclusive: true}, []string{"2025-11-25"}},
}

// TestCapabilitiesTell: a door declares tools, without listChanged (its
// tools are those Install found, and it sends no list_changed
// notification), and logging; nothing else, and a method of a capability
// it does not declare (prompts, resources without mcp.catalog, completion)
// is answered method not found (-32601; HTTP 404 at 2026-07-28), not an
// empty list. At every version each policy serves (a stateful door does
// not serve 2026-07-28: TestDiscoverUnsupportedVersion).
func TestCapabilitiesTell(t *testing.T) {
	undeclared := []struct{ method, name, params string }{
		{"prompts/list", "", `{}`},
		{"prompts/get", "greeting", `{"name":"greeting"}`},
		{"resources/list", "", `{}`},
		{"resources/templates/list", "", `{}`},
		{"resources/read", "file:///etc/hosts", `{"uri":"file:///etc/hosts"}`},
		{"completion/complete", "", `{"ref":{"type":"ref/prompt","name":"greeting"},"argument":{"name":"a","value":"b"}}`},
	}
	for _, door := range capabilityDoors {
		for _, v := range door.versions {
			t.Run(door.name+"/"+v, func(t *testing.T) {
				s := capabilityServer(t, door.mcp)
				x := openExchange(t, s, v)
				if got, want := compactJSON(t, x.capabilities), `{"logging":{},"tools":{}}`; got != want {
					t.Errorf("capabilities %s, want %s", got, want)
				}
				wantStatus := http.StatusOK
				if v >= "2026-07-28" {
					wantStatus = http.StatusNotFound
				}
				for _, m := range undeclared {
					id := x.next
					status, body := x.send(t, m.method, m.name, m.params)
					want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32601,"message":"method not found: \"%s\""}}`, id, m.method)
					if status != wantStatus || string(body) != want {
						t.Errorf("%s: %d %s\nwant %d %s", m.method, status, body, wantStatus, want)
					}
				}
				// What it declares, it serves.
				if status, body := x.send(t, "tools/list", "", `{}`); status != http.StatusOK || !strings.Contains(string(body), `"name":"weather"`) {
					t.Errorf("tools/list: %d %s", status, body)
				}
			})
		}
	}
}

// TestCapabilitiesCatalog: with mcp.catalog, the door declares resources,
// without listChanged or subscribe (the catalog is fixed, and a
// subscription would never hear of a change), and serves them; prompts
// and completion stay undeclared and answer -32601.
func TestCapabilitiesCatalog(t *testing.T) {
	for _, door := range capabilityDoors {
		for _, v := range door.versions {
			t.Run(door.name+"/"+v, func(t *testing.T) {
				m := door.mcp
				m.Catalog = true
				s := capabilityServer(t, m)
				x := openExchange(t, s, v)
				if got, want := compactJSON(t, x.capabilities), `{"logging":{},"resources":{},"tools":{}}`; got != want {
					t.Errorf("capabilities %s, want %s", got, want)
				}
				for _, method := range []string{"resources/list", "resources/templates/list"} {
					if status, body := x.send(t, method, "", `{}`); status != http.StatusOK || !strings.Contains(string(body), `"result"`) {
						t.Errorf("%s: %d %s", method, status, body)
					}
				}
				id := x.next
				status, body := x.send(t, "prompts/list", "", `{}`)
				if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32601,"message":"method not found: \"prompts/list\""}}`, id); string(body) != want {
					t.Errorf("prompts/list: %d %s\nwant %s", status, body, want)
				}
			})
		}
	}
}

// TestCacheScope: a listing says who may cache it (cacheScope, which the
// go-sdk writes at every protocol version). With
// the rollout contract on, what tools/list and the catalog show depends on
// the caller's token (a token's allow-list narrows them), so they are
// "private": a shared cache must not hand one rollout's tool set to
// another, nor the whole set to a narrowed rollout. Without the contract
// every caller sees the same: "public". The capabilities of
// server/discover, and the list of resources (the catalog's name), are
// everyone's.
func TestCacheScope(t *testing.T) {
	scope := func(t *testing.T, body []byte) string {
		t.Helper()
		var r struct {
			Result struct {
				CacheScope string `json:"cacheScope"`
			} `json:"result"`
		}
		if err := json.Unmarshal(body, &r); err != nil || r.Result.CacheScope == "" {
			t.Fatalf("no cacheScope: %s", body)
		}
		return r.Result.CacheScope
	}
	// (An exclusive door is a stateful one whose one session the seed
	// takes: the stateful cases cover it.)
	for _, door := range capabilityDoors[:2] {
		for _, v := range door.versions {
			t.Run("rollout/"+door.name+"/"+v, func(t *testing.T) {
				m := door.mcp
				m.Catalog = true
				s := capabilityServer(t, m)
				_, meta := s.newClient().seedSession(`{"allowed_tools":["weather"]}`)
				tok := meta.Headers[tokenHeader]
				if tok == "" {
					t.Fatal("the seed minted no token")
				}
				x := openExchange(t, s, v)
				if v >= "2026-07-28" {
					if _, body := x.send(t, "server/discover", "", `{}`); scope(t, body) != "public" {
						t.Errorf("server/discover: %s, want public", body)
					}
				}
				for _, c := range []struct {
					name   string
					header []string
				}{{"tokenless", nil}, {"narrowed", []string{tokenHeader, tok}}} {
					_, body := x.send(t, "tools/list", "", `{}`, c.header...)
					if got := scope(t, body); got != "private" {
						t.Errorf("%s tools/list: cacheScope %q, want private: %s", c.name, got, body)
					}
					if c.name == "narrowed" && (!strings.Contains(string(body), `"name":"weather"`) || strings.Contains(string(body), `"name":"history"`)) {
						t.Errorf("the narrowed tools/list is not the token's: %s", body)
					}
					// resources/list names the catalog to everyone.
					_, body = x.send(t, "resources/list", "", `{}`, c.header...)
					if got := scope(t, body); got != "public" {
						t.Errorf("%s resources/list: cacheScope %q, want public: %s", c.name, got, body)
					}
					_, body = x.send(t, "resources/read", "fixture://catalog", `{"uri":"fixture://catalog"}`, c.header...)
					if got := scope(t, body); got != "private" {
						t.Errorf("%s resources/read of the catalog: cacheScope %q, want private: %s", c.name, got, body)
					}
				}
			})
		}
	}
	t.Run("no rollout", func(t *testing.T) {
		cfg := fixtureConfig(t)
		cfg.MCP.Rollout.Disable = true
		cfg.MCP.Rollout.AllowedTools = nil
		h, door, _ := newFixture(t, cfg)
		t.Cleanup(func() { door.Close() })
		s := serve(t, h)
		for _, v := range []string{"2025-11-25", "2026-07-28"} {
			x := openExchange(t, s, v)
			if _, body := x.send(t, "tools/list", "", `{}`); scope(t, body) != "public" {
				t.Errorf("%s tools/list: %s, want public", v, body)
			}
		}
	})
}

// TestCapabilitiesServerAdds: what a server adds to the go-sdk server
// Config.ExtendServer is given, the go-sdk declares and the door serves: a
// prompt added there makes prompts declared and prompts/list list it;
// until then (the server taken, nothing added) prompts/list is method not
// found.
func TestCapabilitiesServerAdds(t *testing.T) {
	cfg := fixtureConfig(t)
	cfg.MCP.Rollout.AllowTokenless = true
	var srv *mcp.Server
	cfg.ExtendServer = func(s *mcp.Server) { srv = s }
	h, door, _ := newFixture(t, cfg)
	t.Cleanup(func() { door.Close() })
	s := serve(t, h)
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		x := openExchange(t, s, v)
		if _, body := x.send(t, "prompts/list", "", `{}`); !strings.Contains(string(body), `"code":-32601`) {
			t.Errorf("%s: prompts/list before a prompt is added: %s, want method not found", v, body)
		}
	}
	srv.AddPrompt(&mcp.Prompt{Name: "greeting", Description: "Say hello."}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
	})
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		x := openExchange(t, s, v)
		if got, want := compactJSON(t, x.capabilities), `{"logging":{},"prompts":{"listChanged":true},"tools":{}}`; got != want {
			t.Errorf("%s: capabilities %s, want %s", v, got, want)
		}
		if _, body := x.send(t, "prompts/list", "", `{}`); !strings.Contains(string(body), `"name":"greeting"`) {
			t.Errorf("%s: prompts/list: %s", v, body)
		}
		if _, body := x.send(t, "prompts/get", "greeting", `{"name":"greeting"}`); !strings.Contains(string(body), `"text":"hello"`) {
			t.Errorf("%s: prompts/get: %s", v, body)
		}
		if _, body := x.send(t, "resources/list", "", `{}`); !strings.Contains(string(body), `"code":-32601`) {
			t.Errorf("%s: resources/list: %s, want method not found", v, body)
		}
	}
}
