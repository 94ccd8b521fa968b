package autoexpose

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type added struct {
	Added int `json:"added"`
}

// addNotes is a bulk route's typed handler: its body is a JSON array.
func addNotes(_ context.Context, _ *http.Request, in []newNote) (added, error) {
	return added{len(in)}, nil
}

// bulkRoute answers the body it got, and its first byte's kind.
func bulkRoute(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]string{"body": string(b)})
}

// bulkDoc describes a bulk route whose body is an array of notes.
const bulkDoc = `openapi: 3.1.0
paths:
  /api/books/bulk:
    post:
      summary: Add books
      requestBody:
        content:
          application/json:
            schema: {type: array, items: {type: object, required: [title], properties: {title: {type: string}}}, maxItems: 100}
`

// TestArrayBody: a route whose body is a JSON array, as its typed handler,
// its OpenAPI operation or its declaration says, is a tool whose one
// argument "body" is that array, advertised as an array, and sent as the
// route's body, in either mode.
func TestArrayBody(t *testing.T) {
	noteArray := &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}}
	rest := func() (chi.Router, Config) {
		r := chi.NewRouter()
		r.Method(http.MethodPost, "/api/notes/bulk", Handler(addNotes))
		r.Post("/api/books/bulk", bulkRoute)
		r.Post("/api/tags/bulk", bulkRoute)
		cfg := enabled(MCPConfig{REST: &REST{Names: map[string]string{"POST /api/tags/bulk": "add_tags"}}})
		cfg.OpenAPI = []byte(bulkDoc)
		cfg.Declared = map[string]Declaration{"add_tags": {Input: noteArray}}
		return r, cfg
	}
	routes := func() (chi.Router, Config) {
		r := chi.NewRouter()
		r.Method(http.MethodPost, "/add_notes", Handler(addNotes))
		r.Post("/add_tags", bulkRoute)
		cfg := enabled(MCPConfig{})
		cfg.Declared = map[string]Declaration{"add_tags": {Input: noteArray}}
		return r, cfg
	}
	const notes = `{"type":"array","items":{"type":"object","required":["text"],"properties":{"text":{"type":"string","description":"what the note says"},"tags":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}}`
	const books = `{"type":"array","items":{"type":"object","required":["title"],"properties":{"title":{"type":"string"}}},"maxItems":100}`
	const tags = `{"type":"array","items":{"type":"string"}}`
	for _, tc := range []struct {
		mode   string
		router func() (chi.Router, Config)
		tool   string
		body   string // the body's schema
		args   string
		want   string // the result's text
	}{
		{"rest", rest, "bulk_notes", notes, `{"body":[{"text":"a"},{"text":"b"}]}`, `{"added":2}`},
		{"rest", rest, "bulk_books", books, `{"body":[{"title":"Emma"}]}`, `{"body":"[{\"title\":\"Emma\"}]"}`},
		{"rest", rest, "add_tags", tags, `{"body":["x","y"]}`, `{"body":"[\"x\",\"y\"]"}`},
		{"routes", routes, "add_notes", notes, `{"body":[{"text":"a"}]}`, `{"added":1}`},
		{"routes", routes, "add_tags", tags, `{"body":[]}`, `{"body":"[]"}`},
	} {
		t.Run(tc.mode+" "+tc.tool, func(t *testing.T) {
			r, cfg := tc.router()
			door, err := Install(r, cfg)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(door)
			defer srv.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bulk", Version: "1"}, nil).Connect(context.Background(),
				&mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			list, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var tl *mcp.Tool
			for _, l := range list.Tools {
				if l.Name == tc.tool {
					tl = l
				}
			}
			if tl == nil {
				t.Fatalf("no tool %s; tools %v", tc.tool, door.names)
			}
			want := `{"type":"object","properties":{"body":` + tc.body[:len(tc.body)-1] + `,"description":"The request body: a JSON array."}},"required":["body"],"additionalProperties":false}`
			if got := jsonOf(tl.InputSchema); got != canon(want) {
				t.Errorf("inputSchema\n  %s\nwant\n  %s", got, canon(want))
			}
			var args map[string]any
			json.Unmarshal([]byte(tc.args), &args)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; res.IsError || got != tc.want {
				t.Errorf("the route answered %s (isError %v), want %s", got, res.IsError, tc.want)
			}
			// An object is no array: refused before the route is called.
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: map[string]any{"body": map[string]any{}}})
			if err != nil || !res.IsError {
				t.Errorf("a body that is no array: %+v, %v", res, err)
			}
		})
	}
}

// TestHandlerArrayOverHTTP: a typed handler of a slice reads a JSON array
// body over HTTP, and refuses one that is not an array with 422.
func TestHandlerArrayOverHTTP(t *testing.T) {
	h := Handler(addNotes)
	for _, tc := range []struct {
		body   string
		status int
		answer string
	}{
		{`[{"text":"a"},{"text":"b"},{"text":"c"}]`, 200, `{"added":3}`},
		{`[{"tags":["x"]}]`, 422, `{"error":"invalid arguments","fields":["[].text"],"detail":"missing required field [].text"}`},
		{`{"text":"a"}`, 422, ``},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/bulk", strings.NewReader(tc.body)))
		if rec.Code != tc.status || tc.answer != "" && rec.Body.String() != tc.answer {
			t.Errorf("%s: %d %s, want %d %s", tc.body, rec.Code, rec.Body, tc.status, tc.answer)
		}
	}
}
