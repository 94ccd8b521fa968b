package autoexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/detector"
)

// listTools lists a door's tools as a go-sdk client does over HTTP.
func listTools(t *testing.T, h http.Handler) map[string]*mcp.Tool {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "lister", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*mcp.Tool{}
	for _, tl := range list.Tools {
		out[tl.Name] = tl
	}
	return out
}

// jsonOf marshals v, its object members sorted, or says why not: a
// schema as a client gets it and as mcpdoor sends it compare alike.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	var any any
	if err := json.Unmarshal(b, &any); err != nil {
		return err.Error()
	}
	b, _ = json.Marshal(any)
	return string(b)
}

// canon is jsonOf of a JSON text.
func canon(s string) string { return jsonOf(json.RawMessage(s)) }

// jsonAnswer is a route that answers body as JSON.
func jsonAnswer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}
}

// booksDoc describes a books API: a list, a create that answers 201, and
// a read.
const booksDoc = `openapi: 3.0.3
info: {title: books, version: "1"}
paths:
  /api/books:
    get:
      summary: List the books
      responses:
        "200":
          description: the books
          content:
            application/json:
              schema: {type: array, items: {$ref: '#/components/schemas/Book'}}
    post:
      summary: Add a book
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Book'}
      responses:
        "201":
          description: the book
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Book'}
  /api/books/{id}:
    get:
      summary: Read a book
      responses:
        "200":
          description: the book
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Book'}
components:
  schemas:
    Book:
      type: object
      required: [id, title]
      properties:
        id: {type: integer, readOnly: true}
        title: {type: string}
`

// TestOpenAPIOutputSchema: a tool's output schema is its operation's
// success response's JSON schema (200, else 201), as a client lists it;
// a list's array is not advertised, since structuredContent is an object.
func TestOpenAPIOutputSchema(t *testing.T) {
	r := chi.NewRouter()
	r.Route("/api/books", func(r chi.Router) {
		r.Get("/", jsonAnswer(`[{"id":1,"title":"Ulysses"}]`))
		r.Post("/", jsonAnswer(`{"id":2,"title":"Emma"}`))
		r.Get("/{id}", jsonAnswer(`{"id":1,"title":"Ulysses"}`))
	})
	cfg := enabled(MCPConfig{REST: &REST{Methods: []string{"GET", "POST"}}})
	cfg.OpenAPI = []byte(booksDoc)
	door, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	const book = `{"type":"object","properties":{"id":{"type":"integer","readOnly":true},"title":{"type":"string"}},"required":["id","title"]}`
	tools := listTools(t, door)
	for name, want := range map[string]string{"get_book": book, "create_book": book, "list_books": "null"} {
		tl := tools[name]
		if tl == nil {
			t.Errorf("no tool %s; tools %v", name, door.names)
			continue
		}
		if got := jsonOf(tl.OutputSchema); got != canon(want) {
			t.Errorf("%s: outputSchema %s\nwant %s", name, got, want)
		}
	}
	// The tool-route convention reads it the same way.
	r = chi.NewRouter()
	r.Post("/add_book", jsonAnswer(`{"id":2,"title":"Emma"}`))
	cfg = enabled(MCPConfig{})
	cfg.OpenAPI = []byte(strings.Replace(booksDoc, "  /api/books:\n    get:", "  /add_book:\n    get:", 1))
	door, err = Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(listTools(t, door)["add_book"].OutputSchema); got != canon(book) {
		t.Errorf("add_book: outputSchema %s\nwant %s", got, book)
	}
}

// summaryRouter is the third app's shape: an HTML page at /summary/ and
// the API's /summary under /api.
func summaryRouter() chi.Router {
	r := chi.NewRouter()
	r.Get("/summary/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<h1>Summary</h1>")
	})
	r.Route("/api", func(r chi.Router) {
		r.Get("/summary", jsonAnswer(`{"total":3}`))
	})
	return r
}

// summaryDoc describes the API's /summary under its server's /api.
const summaryDoc = `openapi: 3.0.3
info: {title: app, version: "1"}
servers: [{url: 'http://localhost:8080/api'}]
paths:
  /summary:
    get:
      summary: The summary
      responses:
        "200":
          description: the totals
          content:
            application/json:
              schema: {type: object, properties: {total: {type: integer}}}
`

// TestOpenAPIAttachesToItsRoute: an operation describes the route of its
// method and full path (the server's path, then its own), and no other: a
// trailing slash makes another route.
func TestOpenAPIAttachesToItsRoute(t *testing.T) {
	// The page named, so that it is a tool, which the document must not
	// describe.
	cfg := enabled(MCPConfig{REST: &REST{Methods: []string{"GET"}, Names: map[string]string{"GET /summary/": "summary_page"}}})
	cfg.OpenAPI = []byte(summaryDoc)
	door, err := Install(summaryRouter(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	described := map[string]string{}
	for _, tl := range door.tools {
		described[tl.Route] = tl.Description
	}
	if want := map[string]string{"GET /api/summary": "The summary", "GET /summary/": "GET /summary/"}; !cmp.Equal(described, want) {
		t.Errorf("the tools' descriptions %q, want %q", described, want)
	}
	// Not named, the page the document does not describe is no tool.
	cfg.MCP.REST.Names = nil
	if door, err = Install(summaryRouter(), cfg); err != nil {
		t.Fatal(err)
	}
	for _, row := range door.Report() {
		if row.Route == "GET /summary/" && row.Tool != "" {
			t.Errorf("the page GET /summary/ is the tool %s", row.Tool)
		}
	}
}

// TestOpenAPIWarnsOfOtherRoutes: an operation that no route serves is
// warned about, naming the routes the router has there instead.
func TestOpenAPIWarnsOfOtherRoutes(t *testing.T) {
	const doc = `openapi: 3.1.0
servers: [{url: /api}]
paths:
  /notes:
    post: {summary: Add a note}
  /summary/:
    get: {summary: The summary}
  /notes/{noteID}:
    delete: {summary: Drop a note}
`
	r := chi.NewRouter()
	r.Route("/api", func(r chi.Router) {
		r.Get("/notes", jsonAnswer(`[]`))
		r.Get("/summary", jsonAnswer(`{}`))
		r.Delete("/notes/{id}", jsonAnswer(`{}`))
	})
	var logs bytes.Buffer
	cfg := enabled(MCPConfig{REST: &REST{Methods: []string{"GET", "POST", "DELETE"}, Names: map[string]string{"GET /api/notes": "list_notes", "GET /api/summary": "summary", "DELETE /api/notes/{id}": "drop"}}})
	cfg.OpenAPI = []byte(doc)
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	if _, err := Install(r, cfg); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`level=WARN msg="mcpdoor: the OpenAPI document describes it (line 5), but no route serves it; the router has GET /api/notes (a method, a trailing slash or a parameter's name makes another route)" route="POST /api/notes"`,
		`level=WARN msg="mcpdoor: the OpenAPI document describes it (line 7), but no route serves it; the router has GET /api/summary (a method, a trailing slash or a parameter's name makes another route)" route="GET /api/summary/"`,
		`level=WARN msg="mcpdoor: the OpenAPI document describes it (line 9), but no route serves it; the router has DELETE /api/notes/{id} (a method, a trailing slash or a parameter's name makes another route)" route="DELETE /api/notes/{noteID}"`,
	}
	var got []string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.HasPrefix(line, "level=WARN") && strings.Contains(line, "no route serves it") {
			got = append(got, line)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// bookshopRouter serves the API testdata/swaggo.json describes, and its
// pages.
func bookshopRouter() chi.Router {
	r := chi.NewRouter()
	r.Route("/api/v1", func(r chi.Router) {
		r.Get("/books", look)
		r.Post("/books", look)
		r.Post("/books/bulk", look)
		r.Get("/books/{id}", look)
		r.Delete("/books/{id}", look)
		r.Post("/books/{id}/cover", look)
		r.Post("/account/password", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<p>password set for %s</p>", r.FormValue("user"))
		})
	})
	r.Post("/logout", look)
	return r
}

// TestSwagger2Door: a Swagger 2.0 document in swaggo's shape describes
// the tools of a REST router: under its basePath, the body parameter's
// schema and the query parameters as the input, the success response's
// schema as the output; its form and page routes, and the routes it does
// not describe, are left off.
func TestSwagger2Door(t *testing.T) {
	data, err := os.ReadFile("../internal/openapi/testdata/swaggo.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg := enabled(MCPConfig{REST: &REST{Methods: []string{"GET", "POST", "DELETE"}}})
	cfg.OpenAPI = data
	door, err := Install(bookshopRouter(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	detector.WriteTable(&b, door.Report())
	want := `TOOL         ROUTE                          VERDICT  SCHEMA   ARGUMENTS                        REASON
bulk_books   POST /api/v1/books/bulk        direct   openapi  body (body)
create_book  POST /api/v1/books             direct   openapi  author, tags, title, any (body)
delete_book  DELETE /api/v1/books/{id}      direct   openapi  id (path)
get_book     GET /api/v1/books/{id}         direct   openapi  id (path)
listBooks    GET /api/v1/books              direct   openapi  q, limit, genre (query)
-            POST /api/v1/account/password  skipped  -        -                                the OpenAPI document says it reads a form (application/x-www-form-urlencoded), a page's for a browser; name it in mcp.rest.names to make it a tool
-            POST /api/v1/books/{id}/cover  skipped  -        -                                the OpenAPI document says it reads a form (multipart/form-data), a page's for a browser; name it in mcp.rest.names to make it a tool
-            POST /logout                   skipped  -        -                                the OpenAPI document (Config.OpenAPI) describes the API, and not this route (a page, or a route for operators); describe it there, or name it in mcp.rest.names, to make it a tool
`
	if got := b.String(); got != want {
		t.Errorf("report:\n%s\nwant\n%s", got, want)
	}
	tools := listTools(t, door)
	for name, want := range map[string]string{
		"listBooks":  `{"type":"object","properties":{"q":{"type":"string","description":"words the title holds"},"limit":{"type":"integer","description":"books a page","default":20,"minimum":1,"maximum":100},"genre":{"type":"array","description":"genres","items":{"type":"string","enum":["fiction","poetry","history"]}}},"additionalProperties":false}`,
		"get_book":   `{"type":"object","properties":{"id":{"type":"integer","description":"the book's id"}},"required":["id"],"additionalProperties":false}`,
		"bulk_books": `{"type":"object","properties":{"body":{"type":"array","description":"the books","items":{"type":"object","properties":{"author":{"type":"object","properties":{"name":{"type":"string"}}},"tags":{"type":"array","items":{"type":"string"}},"title":{"type":"string","minLength":1,"maxLength":200}},"required":["title"]}}},"required":["body"],"additionalProperties":false}`,
	} {
		if tools[name] == nil {
			t.Errorf("no tool %s", name)
			continue
		}
		if got := jsonOf(tools[name].InputSchema); got != canon(want) {
			t.Errorf("%s: inputSchema\n  %s\nwant\n  %s", name, got, want)
		}
	}
	if got := jsonOf(tools["get_book"].OutputSchema); !strings.Contains(got, `"id":{"examples":[7],"format":"int64","readOnly":true,"type":"integer"}`) {
		t.Errorf("get_book: outputSchema %s", got)
	}
}

// TestOpenAPIHandleServesEveryMethod: a route that serves every method
// (Handle) serves the operations of any method at its path: no warning.
func TestOpenAPIHandleServesEveryMethod(t *testing.T) {
	r := chi.NewRouter()
	r.Handle("/api/feed", jsonAnswer(`[]`))
	r.Post("/api/notes", jsonAnswer(`{}`))
	var logs bytes.Buffer
	cfg := enabled(MCPConfig{REST: &REST{}})
	cfg.OpenAPI = []byte("openapi: 3.1.0\npaths:\n  /api/feed:\n    get: {summary: The feed}\n  /api/notes:\n    post: {summary: Add a note}\n")
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	if _, err := Install(r, cfg); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "no route serves it") {
		t.Errorf("warned:\n%s", logs.String())
	}
}
