package autoexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// seen is what a REST route saw of its request.
type seen struct {
	Method      string            `json:"method"`
	URI         string            `json:"uri"`
	Params      map[string]string `json:"params,omitempty"`
	PathValues  map[string]string `json:"path_values,omitempty"`
	Query       map[string]any    `json:"query,omitempty"`
	ContentType string            `json:"content_type,omitempty"`
	Body        string            `json:"body,omitempty"`
}

// look is a route that answers with what it saw.
func look(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s := seen{Method: r.Method, URI: r.RequestURI, ContentType: r.Header.Get("Content-Type"), Body: string(b)}
	rctx := chi.RouteContext(r.Context())
	for i, k := range rctx.URLParams.Keys {
		if s.Params == nil {
			s.Params, s.PathValues = map[string]string{}, map[string]string{}
		}
		s.Params[k] = rctx.URLParams.Values[i]
		s.PathValues[k] = r.PathValue(k)
	}
	for k, v := range r.URL.Query() {
		if s.Query == nil {
			s.Query = map[string]any{}
		}
		if len(v) == 1 {
			s.Query[k] = v[0]
		} else {
			s.Query[k] = v
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(s)
}

type newNote struct {
	Text string   `json:"text" jsonschema:"what the note says"`
	Tags []string `json:"tags,omitempty"`
}

type note struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
}

func createNote(_ context.Context, _ *http.Request, in newNote) (note, error) {
	return note{ID: 7, Text: in.Text}, nil
}

// restRouter is a small REST API: a Route sub-router, a regexp parameter,
// a typed handler, a mounted admin router behind a header check, and
// routes that answer 204 and 201 with a Location.
func restRouter() chi.Router {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Get("/healthz", look)
	r.Route("/api/notes", func(r chi.Router) {
		r.Get("/", look)
		r.Post("/", look)
		r.Method(http.MethodPost, "/typed", Handler(createNote))
		r.Get("/{id:[0-9]+}", look)
		r.Patch("/{id:[0-9]+}", look)
		r.Delete("/{id:[0-9]+}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
		r.Post("/{id:[0-9]+}/copy", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", "/api/notes/8")
			w.WriteHeader(http.StatusCreated)
		})
		r.Post("/{id:[0-9]+}/archive", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", "/api/notes/"+chi.URLParam(r, "id"))
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"archived":true}`)
		})
		r.Get("/search", look)
	})
	admin := chi.NewRouter()
	admin.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer root" {
				http.Error(w, "forbidden", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	admin.Delete("/users/{user}/files/{name}.{ext}", look)
	r.Mount("/admin", admin)
	return r
}

// restDoor installs a door in the REST mode over restRouter, with every
// method and the given config changes, for tokenless calls.
func restDoor(t testing.TB, change func(*Config)) *Door {
	t.Helper()
	return restDoorOn(t, restRouter(), change)
}

// restDoorOn is restDoor over r.
func restDoorOn(t testing.TB, r chi.Router, change func(*Config)) *Door {
	t.Helper()
	cfg := enabled(MCPConfig{REST: &REST{
		Methods: []string{"POST", "PUT", "PATCH", "DELETE", "GET"},
		Names:   map[string]string{"GET /api/notes/search": "search_notes", "POST /api/notes/typed": "create_typed_note"},
	}})
	if change != nil {
		change(&cfg)
	}
	d, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// callResult calls a tool in process, with the header Authorization when
// it is not "".
func callResult(t testing.TB, d *Door, name, args, auth string) *mcp.CallToolResult {
	t.Helper()
	tl := d.tools[name]
	if tl == nil {
		t.Fatalf("no tool %s; tools: %v", name, d.names)
	}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name, Arguments: json.RawMessage(args)}}
	if auth != "" {
		req.Extra = &mcp.RequestExtra{Header: http.Header{"Authorization": {auth}}}
	}
	return d.calls.callResult(context.Background(), tl, req)
}

// callJSON calls a tool in process and returns the result's JSON.
func callJSON(t testing.TB, d *Door, name, args string) string {
	t.Helper()
	res := callResult(t, d, name, args, "")
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRESTReport: each route of the router, what it became and which
// argument goes where.
func TestRESTReport(t *testing.T) {
	var b bytes.Buffer
	detector.WriteTable(&b, restDoor(t, nil).Report())
	want := `TOOL                    ROUTE                                          VERDICT  SCHEMA      ARGUMENTS                            REASON
archive_note            POST /api/notes/{id:[0-9]+}/archive            direct   permissive  id (path); any (body)
copy_note               POST /api/notes/{id:[0-9]+}/copy               direct   permissive  id (path); any (body)
create_note             POST /api/notes/                               direct   permissive  any (body)
create_typed_note       POST /api/notes/typed                          direct   typed       text, tags (body)
delete_admin_user_file  DELETE /admin/users/{user}/files/{name}.{ext}  replay   permissive  user, name, ext (path); any (query)  middleware github.com/mcpdoor/mcpdoor/autoexpose.restRouter.func2 must run
delete_note             DELETE /api/notes/{id:[0-9]+}                  direct   permissive  id (path); any (query)
get_healthz             GET /healthz                                   direct   permissive  any (query)
get_note                GET /api/notes/{id:[0-9]+}                     direct   permissive  id (path); any (query)
list_notes              GET /api/notes/                                direct   permissive  any (query)
search_notes            GET /api/notes/search                          direct   permissive  any (query)
update_note             PATCH /api/notes/{id:[0-9]+}                   direct   permissive  id (path); any (body)
`
	if got := b.String(); got != want {
		t.Errorf("report:\n%s\nwant\n%s", got, want)
	}
}

// TestRESTSchemas: a REST tool's input schema is its path parameters
// (required strings, a chi regexp as pattern), then its body's members, or
// for a route without a body, any member as a query parameter.
func TestRESTSchemas(t *testing.T) {
	d := restDoor(t, nil)
	for _, tc := range []struct{ tool, schema string }{
		{"get_note", `{"type":"object","properties":{"id":{"type":"string","minLength":1,"pattern":"^[0-9]+$"}},"required":["id"]}`},
		{"create_typed_note", `{"type":"object","properties":{"text":{"type":"string","description":"what the note says"},"tags":{"type":"array","items":{"type":"string"}}},"required":["text"],"additionalProperties":false}`},
		{"list_notes", `{"type":"object"}`},
	} {
		b, _ := json.Marshal(d.tools[tc.tool].InputSchema)
		if string(b) != tc.schema {
			t.Errorf("%s: %s\nwant %s", tc.tool, b, tc.schema)
		}
	}
}

// TestRESTCall: what the route sees of a call — its method, the request
// URI the arguments fill in (path values escaped, the query encoded), the
// body of the members left, chi's URL parameters and path values — is what
// it sees of the same request over HTTP.
func TestRESTCall(t *testing.T) {
	r := restRouter()
	d := restDoorOn(t, r, nil)
	srv := httptest.NewServer(r)
	defer srv.Close()
	for _, tc := range []struct {
		tool, args        string
		method, uri, body string // the same request over HTTP
	}{
		{"get_note", `{"id":"42"}`, "GET", "/api/notes/42", ""},
		{"list_notes", `{"tag":"home","limit":2,"done":false,"tags":["a","b c"],"none":null}`, "GET", "/api/notes/?done=false&limit=2&tag=home&tags=a&tags=b+c", ""},
		{"list_notes", `{}`, "GET", "/api/notes/", ""},
		{"update_note", `{"text" : "x", "id":"42", "tags":[ "a" ]}`, "PATCH", "/api/notes/42", `{"text":"x","tags":[ "a" ]}`},
		{"update_note", `{"id":"42"}`, "PATCH", "/api/notes/42", `{}`},
		{"create_note", ` {"text": "as sent",  "n": 1e2} `, "POST", "/api/notes/", ` {"text": "as sent",  "n": 1e2} `},
		{"delete_admin_user_file", `{"user":"ann","name":"caf\u00e9 menu;v=1","ext":"pdf","dry":true}`, "DELETE", "/admin/users/ann/files/caf%C3%A9%20menu;v=1.pdf?dry=true", ""},
		{"delete_admin_user_file", `{"user":"a%2Fb","name":"%","ext":"?#"}`, "DELETE", "/admin/users/a%252Fb/files/%25.%3F%23", ""},
	} {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			var mcpSaw seen
			res := callResult(t, d, tc.tool, tc.args, "Bearer root")
			if res.IsError {
				t.Fatalf("isError: %s", res.Content[0].(*mcp.TextContent).Text)
			}
			json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &mcpSaw)
			if mcpSaw.URI != tc.uri || mcpSaw.Body != tc.body {
				t.Errorf("the route got %s %s with body %q\nwant %s %s with body %q", mcpSaw.Method, mcpSaw.URI, mcpSaw.Body, tc.method, tc.uri, tc.body)
			}
			req, _ := http.NewRequest(tc.method, srv.URL+tc.uri, strings.NewReader(tc.body))
			req.Header.Set("Authorization", "Bearer root")
			if tc.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var httpSaw seen
			json.NewDecoder(resp.Body).Decode(&httpSaw)
			if !reflect.DeepEqual(mcpSaw, httpSaw) {
				t.Errorf("over MCP the route saw\n  %+v\nover HTTP\n  %+v", mcpSaw, httpSaw)
			}
		})
	}
}

// TestRESTCallRefused: a path parameter's value that cannot be sent to
// its route is refused before the route runs, naming the parameter.
func TestRESTCallRefused(t *testing.T) {
	d := restDoor(t, nil)
	const tool = "delete_admin_user_file"
	for _, tc := range []struct{ args, field, why string }{
		{`{"user":"a/b","name":"n","ext":"pdf"}`, "user", `path parameter "user" is "a/b": a value cannot contain "/"`},
		{`{"user":"..","name":"n","ext":"pdf"}`, "user", `path parameter "user" is "..": a value cannot be "." or ".."`},
		{`{"user":"ann","name":"a.b","ext":"pdf"}`, "name", `path parameter "name" is "a.b": a value cannot contain '.', which ends it in /admin/users/{user}/files/{name}.{ext}`},
	} {
		text, _ := json.Marshal(fmt.Sprintf("HTTP 422 from DELETE /admin/users/{user}/files/{name}.{ext}: Invalid arguments for %s (the route was not called): %s", tool, tc.why))
		msg, _ := json.Marshal(tc.why)
		want := fmt.Sprintf(`{"content":[{"type":"text","text":%s}],"structuredContent":{"error":{"code":"invalid_arguments","message":%s,"fields":[%q],"status":422,"effect":"not_applied"}},"isError":true}`, text, msg, tc.field)
		if got := callJSON(t, d, tool, tc.args); got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.args, got, want)
		}
	}
	// A value the schema refuses never gets that far.
	want := `{"content":[{"type":"text","text":"HTTP 422 from GET /api/notes/{id:[0-9]+}: Invalid arguments for get_note (checked against its input schema; the route was not called): id: pattern: \"../search\" does not match regular expression \"^[0-9]+$\""}],"structuredContent":{"error":{"code":"invalid_arguments","message":"id: pattern: \"../search\" does not match regular expression \"^[0-9]+$\"","fields":["id"],"status":422,"effect":"not_applied"}},"isError":true}`
	if got := callJSON(t, d, "get_note", `{"id":"../search"}`); got != want {
		t.Errorf("a value off the pattern:\n got %s\nwant %s", got, want)
	}
}

// TestRESTResults: a 2xx without a body, or with a Location, says so.
func TestRESTResults(t *testing.T) {
	d := restDoor(t, nil)
	for _, tc := range []struct{ tool, args, want string }{
		{"delete_note", `{"id":"1"}`, `{"content":[{"type":"text","text":"204 No Content"}],"structuredContent":{"status":204}}`},
		{"copy_note", `{"id":"1"}`, `{"content":[{"type":"text","text":"201 Created; Location: /api/notes/8"}],"structuredContent":{"status":201,"location":"/api/notes/8"}}`},
		{"archive_note", `{"id":"3"}`, `{"content":[{"type":"text","text":"{\"archived\":true}"},{"type":"text","text":"Location: /api/notes/3"}],"structuredContent":{"archived":true}}`},
	} {
		if got := callJSON(t, d, tc.tool, tc.args); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.tool, got, tc.want)
		}
	}
}

// TestRESTBadResponse: a REST tool's bad response is named by its route's
// method and pattern.
func TestRESTBadResponse(t *testing.T) {
	r := chi.NewRouter()
	r.Get("/notes/{id}/picture", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ContentMediaType)
		io.WriteString(w, `[]`)
	})
	d, err := Install(r, enabled(MCPConfig{REST: &REST{Methods: []string{"GET"}}}))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"content":[{"type":"text","text":"Response from GET /notes/{id}/picture is not a valid application/vnd.mcpdoor.content+json result: the body is not a JSON object."}],` +
		`"structuredContent":{"error":{"code":"bad_response","message":"the body is not a JSON object","status":200,"effect":"unknown"}},"isError":true}`
	if got := callJSON(t, d, "get_note_picture", `{"id":"1"}`); got != want {
		t.Errorf("get_note_picture:\n got %s\nwant %s", got, want)
	}
}

// TestRESTAnnotations: a REST tool's annotations come from its method,
// unless anything else says.
func TestRESTAnnotations(t *testing.T) {
	d := restDoor(t, func(c *Config) {
		c.MCP.Annotations = map[string]Annotations{"delete_note": {Destructive: ptr(false)}}
		c.Declared = map[string]Declaration{"create_note": {Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}}
	})
	for _, tc := range []struct{ tool, want string }{
		{"get_note", `{"idempotentHint":false,"readOnlyHint":true}`},
		{"list_notes", `{"idempotentHint":false,"readOnlyHint":true}`},
		{"update_note", `null`},
		{"delete_note", `{"destructiveHint":false,"idempotentHint":true,"readOnlyHint":false}`},
		{"create_note", `{"idempotentHint":true,"readOnlyHint":false}`},
	} {
		b, _ := json.Marshal(d.tools[tc.tool].Annotations)
		if string(b) != tc.want {
			t.Errorf("%s: %s, want %s", tc.tool, b, tc.want)
		}
	}
}

type notePatch struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

func patchNote(_ context.Context, _ *http.Request, in notePatch) (note, error) {
	return note{Text: in.Text}, nil
}

// TestRESTInstallErrors: every mistake a REST reading can meet is an
// Install error naming the route and the fix.
func TestRESTInstallErrors(t *testing.T) {
	const clashDoc = `openapi: 3.1.0
paths:
  /notes/{id}:
    get:
      parameters:
        - {name: id, in: query, schema: {type: string}}
    post:
      parameters:
        - {name: text, in: query, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {text: {type: string}}}
`
	for _, tc := range []struct {
		name   string
		routes func(r chi.Router)
		rest   REST
		change func(*Config)
		want   []string
	}{
		{"collision", func(r chi.Router) {
			r.Put("/v1/notes/{id}", look)
			r.Put("/v2/notes/{id}", look)
		}, REST{Names: map[string]string{"PUT /v1/notes/{id}": "replace_note", "PUT /v2/notes/{id}": "replace_note"}}, nil, []string{
			`mcpdoor: PUT /v1/notes/{id}: tool name "replace_note" is also the name of PUT /v2/notes/{id}; fix: give one of them another name in mcp.rest.names, e.g. "PUT /v1/notes/{id}": replace_v1_note`,
			`mcpdoor: PUT /v2/notes/{id}: tool name "replace_note" is also the name of PUT /v1/notes/{id}; fix: give one of them another name in mcp.rest.names, e.g. "PUT /v2/notes/{id}": replace_v2_note`,
		}},
		{"invalid name", func(r chi.Router) { r.Get("/notes/{id}", look) },
			REST{Names: map[string]string{"GET /notes/{id}": "get note"}}, nil, []string{
				`mcpdoor: GET /notes/{id}: tool name "get note" does not match ^[A-Za-z0-9_-]+$; fix: name the route in mcp.rest.names, e.g. "GET /notes/{id}": get_note_tool`,
			}},
		{"a name for a route the router does not have", func(r chi.Router) { r.Get("/notes/{id}", look) },
			REST{Names: map[string]string{"GET /notes/{note}": "get_note"}}, nil, []string{
				`mcpdoor: GET /notes/{note}: mcp.rest.names names a route the router does not have; fix: use a route as the report lists it: the method, a space and the pattern`,
			}},
		{"a body field named like a path parameter", func(r chi.Router) { r.Method(http.MethodPatch, "/notes/{id}", Handler(patchNote)) },
			REST{}, nil, []string{
				`mcpdoor: PATCH /notes/{id}: the body's field "id" (in the typed handler's input) has the name of the path parameter {id}: a tool's arguments are one object, which cannot hold both; fix: rename one of them, or keep the tool off MCP with mcp.exclude: [update_note]`,
			}},
		{"query parameters named like a path parameter or a body field", func(r chi.Router) {
			r.Get("/notes/{id}", look)
			r.Post("/notes/{id}", look)
		}, REST{Methods: []string{"GET", "POST"}}, func(c *Config) { c.OpenAPI = []byte(clashDoc) }, []string{
			`mcpdoor: GET /notes/{id}: the query parameter "id" (in the OpenAPI document) has the name of the path parameter {id}: a tool's arguments are one object, which cannot hold both; fix: rename one of them, or keep the tool off MCP with mcp.exclude: [get_note]`,
			`mcpdoor: POST /notes/{id}: the query parameter "text" (in the OpenAPI document) has the name of the body's field "text" (in the OpenAPI request body): a tool's arguments are one object, which cannot hold both; fix: rename one of them, or keep the tool off MCP with mcp.exclude: [post_note]`,
		}},
		{"a reserved name", func(r chi.Router) {
			r.Post("/seed_session", look)
			r.Post("/verify", look)
			r.Put("/notes/{id}", look)
		}, REST{Names: map[string]string{"PUT /notes/{id}": "verify"}}, nil, []string{
			`mcpdoor: PUT /notes/{id}: tool name "verify" is reserved (aggregate_metrics, seed_session, verify, mcp); fix: name the route in mcp.rest.names, e.g. "PUT /notes/{id}": verify_tool`,
		}},
		{"a declaration for no tool", func(r chi.Router) { r.Get("/notes/{id}", look) },
			REST{Methods: []string{"GET"}}, func(c *Config) { c.Declared = map[string]Declaration{"get_notes": {}} }, []string{
				`mcpdoor: Config.Declared names "get_notes", which is no tool of this server (did you mean "get_note"?); fix: name a tool the router serves, or remove the entry`,
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := chi.NewRouter()
			tc.routes(r)
			rest := tc.rest
			cfg := enabled(MCPConfig{REST: &rest})
			if tc.change != nil {
				tc.change(&cfg)
			}
			_, err := Install(r, cfg)
			if err == nil {
				t.Fatal("Install succeeded")
			}
			if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, tc.want) {
				t.Errorf("Install:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
	// A clash on a tool kept off MCP is no error: a dropped route is never
	// looked at.
	r := chi.NewRouter()
	r.Method(http.MethodPatch, "/notes/{id}", Handler(patchNote))
	r.Post("/notes", look)
	if _, err := Install(r, enabled(MCPConfig{REST: &REST{}, Exclude: []string{"update_note"}})); err != nil {
		t.Errorf("the clashing tool excluded: %v", err)
	}
}

// TestRESTSources: a REST tool's input schema from a typed handler, the
// OpenAPI document or a declaration, the path parameters first; the
// operationId names the tool, the config's name wins over it.
func TestRESTSources(t *testing.T) {
	const doc = `openapi: 3.0.3
paths:
  /notes/{id}:
    parameters:
      - {name: id, in: path, required: true, description: the note, schema: {type: integer, minimum: 1}}
    get:
      operationId: fetchNote
      summary: Read one note
      x-mcp-title: Note
      parameters:
        - {name: verbose, in: query, schema: {type: boolean}}
    delete:
      operationId: dropNote
      x-mcp-exclude: true
  /notes:
    post:
      operationId: addNote
      parameters:
        - {name: dry_run, in: query, required: true, schema: {type: boolean}}
      requestBody:
        content:
          application/json:
            schema: {type: object, required: [text], properties: {text: {type: string}}}
`
	r := chi.NewRouter()
	r.Get("/notes/{id:[0-9]+}", look)
	r.Delete("/notes/{id:[0-9]+}", look)
	r.Route("/notes", func(r chi.Router) { r.Post("/", look) }) // served at /notes, which the document describes
	r.Method(http.MethodPut, "/notes/{id:[0-9]+}", Handler(createNote))
	r.Get("/tags", look)
	cfg := enabled(MCPConfig{REST: &REST{
		Methods: []string{"GET", "POST", "PUT", "DELETE"},
		Names:   map[string]string{"POST /notes": "add_note"},
	}})
	cfg.OpenAPI = []byte(doc)
	cfg.Declared = map[string]Declaration{"list_tags": {Input: SchemaFor[struct {
		Prefix string `json:"prefix,omitempty"`
		Limit  int    `json:"limit,omitempty"`
	}]()}}
	d, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, schema, args, desc string }{
		{"fetchNote", `{"type":"object","properties":{"id":{"type":"integer","description":"the note","minimum":1},"verbose":{"type":"boolean"}},"required":["id"],"additionalProperties":false}`,
			"id (path); verbose (query)", "Read one note"},
		{"add_note", `{"type":"object","properties":{"dry_run":{"type":"boolean"},"text":{"type":"string"}},"required":["dry_run","text"]}`,
			"dry_run (query); text, any (body)", "POST /notes/"},
		{"replace_note", `{"type":"object","properties":{"id":{"type":"string","minLength":1,"pattern":"^[0-9]+$"},"text":{"type":"string","description":"what the note says"},"tags":{"type":"array","items":{"type":"string"}}},"required":["id","text"],"additionalProperties":false}`,
			"id (path); text, tags (body)", "PUT /notes/{id:[0-9]+}"},
		{"list_tags", `{"type":"object","properties":{"prefix":{"type":"string"},"limit":{"type":"integer"}},"additionalProperties":false}`,
			"limit, prefix (query)", "GET /tags"},
	} {
		tl := d.tools[tc.tool]
		if tl == nil {
			t.Errorf("no tool %s; tools %v", tc.tool, d.names)
			continue
		}
		b, _ := json.Marshal(tl.InputSchema)
		if string(b) != tc.schema || tl.REST.Arguments != tc.args || tl.Description != tc.desc {
			t.Errorf("%s:\n  %s\n  %s\n  %s\nwant\n  %s\n  %s\n  %s", tc.tool, b, tl.REST.Arguments, tl.Description, tc.schema, tc.args, tc.desc)
		}
	}
	if a := d.tools["fetchNote"].Annotations; a == nil || a.Title != "Note" || a.ReadOnlyHint {
		t.Errorf("fetchNote's annotations, the document's over the method's: %+v", a)
	}
	if _, ok := d.tools["dropNote"]; ok {
		t.Errorf("dropNote is x-mcp-exclude")
	}
	for _, tc := range []struct{ tool, args, uri, body string }{
		{"fetchNote", `{"id":3,"verbose":true}`, "/notes/3?verbose=true", ""},
		{"add_note", `{"text":"x","dry_run":false}`, "/notes/?dry_run=false", `{"text":"x"}`},
		{"list_tags", `{"prefix":"a b","limit":5}`, "/tags?limit=5&prefix=a+b", ""},
	} {
		var saw seen
		res := callResult(t, d, tc.tool, tc.args, "")
		if res.IsError {
			t.Errorf("%s: %s", tc.tool, res.Content[0].(*mcp.TextContent).Text)
			continue
		}
		json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &saw)
		if saw.URI != tc.uri || saw.Body != tc.body {
			t.Errorf("%s %s: the route got %s with body %q, want %s with body %q", tc.tool, tc.args, saw.URI, saw.Body, tc.uri, tc.body)
		}
	}
	if got := callJSON(t, d, "replace_note", `{"id":"3","text":"y"}`); got != `{"content":[{"type":"text","text":"{\"id\":7,\"text\":\"y\"}"}],"structuredContent":{"id":7,"text":"y"}}` {
		t.Errorf("replace_note: %s", got)
	}
}

// TestRESTNestedMountRoot: a router mounted at "/" inside a Route serves
// its routes at the Route's path, and so does the tool: the report shows
// the path the router serves (not the /api/*/avatar pattern chi.Walk
// gives), the route is no wildcard, and mcp.rest.names names it by either
// pattern.
func TestRESTNestedMountRoot(t *testing.T) {
	router := func() chi.Router {
		avatars := chi.NewRouter()
		avatars.Get("/avatar/{hash}.svg", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/svg+xml")
			fmt.Fprintf(w, `<svg id=%q/>`, chi.URLParam(r, "hash"))
		})
		r := chi.NewRouter()
		r.Route("/api", func(r chi.Router) { r.Mount("/", avatars) })
		return r
	}
	for _, key := range []string{"GET /api/avatar/{hash}.svg", "GET /api/*/avatar/{hash}.svg"} {
		t.Run(key, func(t *testing.T) {
			d := restDoorOn(t, router(), func(c *Config) { c.MCP.REST = &REST{Names: map[string]string{key: "avatar"}} })
			tl := d.tools["avatar"]
			if tl == nil {
				t.Fatalf("no tool avatar; report %+v", d.Report())
			}
			if tl.Route != "GET /api/avatar/{hash}.svg" {
				t.Errorf("the tool's route is %s, want GET /api/avatar/{hash}.svg", tl.Route)
			}
			res := callResult(t, d, "avatar", `{"hash":"c0ffee"}`, "")
			if text, _ := res.Content[0].(*mcp.TextContent); res.IsError || text == nil || text.Text != `<svg id="c0ffee"/>` {
				b, _ := json.Marshal(res)
				t.Errorf("avatar answered %s", b)
			}
		})
	}
}
