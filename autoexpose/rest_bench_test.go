package autoexpose

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchNote is the endpoint of BenchmarkRESTCall: it reads the note's id
// (a URL parameter, or else the body's "id"), decodes the body and answers
// JSON, the work a REST handler and a tool handler share.
func benchNote(w http.ResponseWriter, r *http.Request) {
	var in map[string]any
	json.NewDecoder(r.Body).Decode(&in)
	id := chi.URLParam(r, "id")
	if id == "" {
		id, _ = in["id"].(string)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": id, "text": in["text"], "tag": r.URL.Query().Get("tag")})
}

// benchAuth is a header check: the kind of middleware that makes a route
// replay.
func benchAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer b" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// benchToolConfig is the tool routes' config in BenchmarkRESTCall: their
// input schemas declare the id as a REST tool's schema has it, so that both
// check the same arguments alike.
func benchToolConfig() Config {
	cfg := enabled(MCPConfig{})
	id := &jsonschema.Schema{Type: "object", Required: []string{"id"},
		Properties: map[string]*jsonschema.Schema{"id": {Type: "string", MinLength: ptr(1)}}}
	cfg.Declared = map[string]Declaration{"update_note": {Input: id}, "get_note": {Input: id}}
	return cfg
}

// benchRouters builds the routers the REST call benchmarks compare, with
// dispatch "replay" behind a middleware that keeps the door from calling
// the handlers directly: tools has the tool routes POST /update_note and
// POST /get_note; nested the REST routes PATCH and GET /api/notes/{id} in
// a Route sub-router, as REST servers have them; flat the same at the top
// of the router, as /notes/{id}, where the tool routes are.
func benchRouters(dispatch string) (tools, nested, flat chi.Router) {
	build := func() chi.Router {
		r := chi.NewRouter()
		r.Use(middleware.Recoverer)
		if dispatch == "replay" {
			r.Use(benchAuth)
		}
		return r
	}
	tools, nested, flat = build(), build(), build()
	tools.Post("/update_note", benchNote)
	tools.Post("/get_note", benchNote)
	nested.Route("/api/notes", func(r chi.Router) {
		r.Patch("/{id}", benchNote)
		r.Get("/{id}", benchNote)
	})
	flat.Patch("/notes/{id}", benchNote)
	flat.Get("/notes/{id}", benchNote)
	return tools, nested, flat
}

// BenchmarkRESTCall compares a whole tool call (Door.calls.call: the
// arguments checked and taken apart, the request built, dispatched, the
// result mapped) to a REST route with one to a tool route doing the same
// work, direct and replayed: compare kind=rest with kind=tool.
//
//   - tool: POST /update_note {"id":"42","text":"x"}, a tool route;
//   - rest: PATCH /api/notes/{id} with the same arguments, id in the path
//     and the body {"text":"x"};
//   - rest-query: GET /api/notes/{id}?tag=a from {"id":"42","tag":"a"}.
func BenchmarkRESTCall(b *testing.B) {
	for _, dispatch := range []string{"direct", "replay"} {
		tools, rest, _ := benchRouters(dispatch)
		toolDoor, err := Install(tools, benchToolConfig())
		if err != nil {
			b.Fatal(err)
		}
		restDoor, err := Install(rest, enabled(MCPConfig{REST: &REST{Methods: []string{"PATCH", "GET"}}}))
		if err != nil {
			b.Fatal(err)
		}
		for _, tc := range []struct {
			kind, tool, args string
			door             *Door
		}{
			{"tool", "update_note", `{"id":"42","text":"x"}`, toolDoor},
			{"rest", "update_note", `{"id":"42","text":"x"}`, restDoor},
			{"tool-query", "get_note", `{"id":"42","tag":"a"}`, toolDoor},
			{"rest-query", "get_note", `{"id":"42","tag":"a"}`, restDoor},
		} {
			b.Run("dispatch="+dispatch+"/kind="+tc.kind, func(b *testing.B) {
				tl := tc.door.tools[tc.tool]
				req := &mcp.CallToolRequest{
					Params: &mcp.CallToolParamsRaw{Name: tc.tool, Arguments: json.RawMessage(tc.args)},
					Extra:  &mcp.RequestExtra{Header: http.Header{"Authorization": {"Bearer b"}}},
				}
				ctx := context.Background()
				if res := tc.door.calls.callResult(ctx, tl, req); res.IsError || res.Content[0].(*mcp.TextContent).Text[:10] != `{"id":"42"` {
					b.Fatalf("call: %s", res.Content[0].(*mcp.TextContent).Text)
				}
				b.ReportAllocs()
				for b.Loop() {
					tc.door.calls.callResult(ctx, tl, req)
				}
			})
		}
	}
}
