package autoexpose

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/harvest"
)

func muxFor(t *testing.T) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /get_weather", func(w http.ResponseWriter, r *http.Request) {
		var in weatherIn
		json.NewDecoder(r.Body).Decode(&in)
		io.WriteString(w, `{"weather":"sunny in `+in.City+`"}`)
	})
	mux.HandleFunc("POST /seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"seeded":true}`) })
	mux.HandleFunc("POST /verify", func(w http.ResponseWriter, r *http.Request) { io.Copy(w, r.Body) })
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	return mux
}

// serveReq serves a request through h: a JSON body, an Accept of both MCP
// answers, and the headers given as name, value pairs (which may replace
// those two).
func serveReq(h http.Handler, method, path, body string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestWrap(t *testing.T) {
	mux := muxFor(t)
	t.Run("flag off passes every request to the handler", func(t *testing.T) {
		door, err := Wrap(mux, Config{})
		if err != nil || door.serving() {
			t.Fatalf("got %v %v", door, err)
		}
		for _, path := range []string{"/health", "/mcp"} {
			got, want := serveReq(door, "GET", path, ""), serveReq(mux, "GET", path, "")
			if got.Code != want.Code || got.Body.String() != want.Body.String() {
				t.Errorf("GET %s: %d %q, want %d %q", path, got.Code, got.Body, want.Code, want.Body)
			}
		}
	})

	cfg := enabled(MCPConfig{SessionSecret: []string{"a wrap test secret of at least 32 bytes"}})
	cfg.MCP.Rollout.Claims = "off" // its /verify posts a call no session made
	cfg.CatchAll = map[string]Declaration{"get_weather": {Description: "Weather.", Input: SchemaFor[weatherIn]()}}
	door, err := Wrap(mux, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := door
	if got := exposed(door)[0]; got.Route != "POST /{tool}" || got.Verdict.String() != "replay" || got.SchemaSource != harvest.SourceDeclared {
		t.Errorf("tool %+v", got)
	}
	t.Run("other requests pass through", func(t *testing.T) {
		if w := serveReq(h, "GET", "/health", ""); w.Code != 200 || w.Body.String() != "ok" {
			t.Errorf("GET /health: %d %q", w.Code, w.Body)
		}
		if w := serveReq(h, "POST", "/get_weather", `{"city":"Rome"}`); w.Body.String() != `{"weather":"sunny in Rome"}` {
			t.Errorf("POST /get_weather: %q", w.Body)
		}
	})
	t.Run("the MCP endpoint", func(t *testing.T) {
		w := serveReq(h, "POST", "/mcp/", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"name":"get_weather"`) {
			t.Errorf("tools/list: %d %s", w.Code, w.Body)
		}
	})
	t.Run("seed and verify are wrapped", func(t *testing.T) {
		w := serveReq(h, "POST", "/seed_session", `{}`)
		if !strings.HasPrefix(w.Body.String(), `{"seeded":true,"mcp":{"server_name":"test","url_path":"/mcp","transport":"http","headers":{"X-NeMo-Gym-Session-Token":"`) {
			t.Errorf("seed: %s", w.Body)
		}
		w = serveReq(h, "POST", "/verify", `{"response":{"output":[{"type":"function_call","call_id":"a","name":"mcp__test__get_weather"}]}}`)
		if w.Body.String() != `{"response":{"output":[{"type":"function_call","call_id":"a","name":"mcp__test__get_weather"}]}}` {
			t.Errorf("verify echo: %s", w.Body)
		}
	})
	t.Run("no tools warns", func(t *testing.T) {
		var logs bytes.Buffer
		cfg := enabled(MCPConfig{})
		cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: dropTime}))
		if _, err := Wrap(mux, cfg); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(logs.String(), `level=WARN msg="mcpdoor: no tools to serve: declare the wrapped handler's tools in Config.CatchAll, or describe its routes in Config.OpenAPI"`) {
			t.Errorf("log: %s", logs.String())
		}
	})
	t.Run("names are checked", func(t *testing.T) {
		cfg := enabled(MCPConfig{})
		cfg.CatchAll = map[string]Declaration{"a/b": {}}
		if _, err := Wrap(mux, cfg); err == nil || !strings.Contains(err.Error(), `mcpdoor: POST /{tool}: tool name "a/b" does not match`) {
			t.Fatalf("got %v", err)
		}
	})
}

const wrapDoc = `openapi: 3.1.0
info: {title: books, version: "1"}
paths:
  /add_book:
    post:
      summary: Add a book.
      x-mcp-idempotent: true
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [title]
              properties:
                title: {type: string}
  /reset:
    post:
      x-mcp-exclude: true
`

// TestWrapOpenAPI: Wrap takes its tools from the OpenAPI document.
func TestWrapOpenAPI(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /add_book", func(w http.ResponseWriter, r *http.Request) { io.Copy(w, r.Body) })
	cfg := enabled(MCPConfig{})
	cfg.OpenAPI = []byte(wrapDoc)
	h, err := Wrap(mux, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tools := exposed(h)
	if len(tools) != 1 || tools[0].Name != "add_book" || tools[0].SchemaSource != harvest.SourceOpenAPI || tools[0].Description != "Add a book." ||
		!tools[0].Annotations.IdempotentHint || tools[0].InputSchema.Required[0] != "title" {
		t.Fatalf("tools %+v", tools)
	}
	w := serveReq(h, "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_book","arguments":{"title":"Dune"}}}`)
	if !strings.Contains(w.Body.String(), `"structuredContent":{"title":"Dune"}`) {
		t.Errorf("call: %s", w.Body)
	}
	w = serveReq(h, "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_book","arguments":{}}}`)
	if !strings.Contains(w.Body.String(), `missing required field title`) {
		t.Errorf("bad call: %s", w.Body)
	}

	cfg.OpenAPI = []byte(strings.Replace(wrapDoc, "/add_book:", "/books/{id}:", 1))
	if _, err := Wrap(mux, cfg); err == nil || !strings.Contains(err.Error(), `mcpdoor: POST /books/{id}: tool name "books/{id}" does not match ^[A-Za-z0-9_-]+$; fix: mark the operation x-mcp-exclude: true, or keep it off MCP with mcp.exclude: ["books/{id}"]`) {
		t.Fatalf("nested operation: %v", err)
	}
}
