// Package gentest tests what Install makes of generated facts, end to
// end. It is a package of its own because autoexpose.Generated keys the
// facts it records by the directory of its caller: facts recorded here
// describe these handlers only, and no other package's tests see them.
package gentest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// Note is the body of the handlers below.
type Note struct {
	Text string   `json:"text"`
	Tags []string `json:"tags,omitempty"`
}

// Saved is what they answer.
type Saved struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
}

func saveNote(w http.ResponseWriter, r *http.Request) {
	var n Note
	json.NewDecoder(r.Body).Decode(&n)
	json.NewEncoder(w).Encode(Saved{ID: 1, Text: n.Text})
}

func moved(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }

func unlisted(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }

// bulk answers the body it was sent.
func bulk(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	io.Copy(w, r.Body)
}

func newCloser() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"closed":true}`)) }
}

var closer = newCloser()

func login(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func signupPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	w.Write([]byte("<form method=post></form>"))
}

// at returns the file:line the generator writes for function f.
func at(f any) string {
	fn := runtime.FuncForPC(reflect.ValueOf(f).Pointer())
	file, line := fn.FileLine(fn.Entry())
	return fmt.Sprintf("%s:%d", filepath.Base(file), line)
}

const pkg = "github.com/mcpdoor/mcpdoor/internal/gentest"

// The facts a generated file of this package would hold: saveNote and
// the closure as they are, moved one line off, unlisted not at all, bulk
// with a JSON array body.
func init() {
	autoexpose.Generated(fmt.Sprintf(`{"v":1,"package":%q,"handlers":[
{"func":%q,"at":%q,"doc":"saveNote saves a note.","body":{"type":0,"required":[["text"]]},"out":1,"answers":["json"]},
{"func":%q,"at":"generated_test.go:1","doc":"moved moved."},
{"func":%q,"at":%q,"doc":"bulk takes many.","body":{"type":2}},
{"at":%q,"doc":"newCloser returns the closer.","out":3},
{"func":%q,"at":%q,"doc":"login signs a user in.","answers":["redirect"],"form":true},
{"func":%q,"at":%q,"doc":"signupPage shows the form.","answers":["html"]}
]}`, pkg, pkg+".saveNote", at(saveNote), pkg+".moved", pkg+".bulk", at(bulk), at(closer),
		pkg+".login", at(login), pkg+".signupPage", at(signupPage)),
		reflect.TypeFor[Note](), reflect.TypeFor[Saved](), reflect.TypeFor[[]Note](), reflect.TypeFor[struct {
			Closed bool `json:"closed"`
		}]())
}

// serve installs r and returns the tools a client lists, by name, and the
// log.
func serve(t *testing.T, r chi.Router, cfg autoexpose.Config) (map[string]*mcp.Tool, *autoexpose.Door, string) {
	t.Helper()
	var log bytes.Buffer
	cfg.Name, cfg.ExposeToolsOverMCP, cfg.Logger = "notes", true, slog.New(slog.NewTextHandler(&log, nil))
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	t.Cleanup(func() { door.Close() })
	srv := httptest.NewServer(door)
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out, door, log.String()
}

func sorted(v any) string {
	b, _ := json.Marshal(v)
	var m any
	json.Unmarshal(b, &m)
	b, _ = json.Marshal(m)
	return string(b)
}

func schemaSource(door *autoexpose.Door, tool string) string {
	for _, row := range door.Report() {
		if row.Tool == tool {
			return row.Schema
		}
	}
	return ""
}

// TestFacts: a route whose handler the facts describe advertises its doc
// comment, its body's schema (only the member it enforces required,
// others and null admitted) and its answer's; the report names the
// source.
func TestFacts(t *testing.T) {
	r := chi.NewRouter()
	r.Post("/save_note", saveNote)
	r.Post("/close", closer)
	tools, door, _ := serve(t, r, autoexpose.Config{})
	tl := tools["save_note"]
	if tl.Description != "saveNote saves a note." {
		t.Errorf("description %q", tl.Description)
	}
	if got, want := sorted(tl.InputSchema), `{"properties":{"tags":{"items":{"type":["null","string"]},"type":["null","array"]},"text":{"type":["null","string"]}},"required":["text"],"type":"object"}`; got != want {
		t.Errorf("input schema\n  %s\nwant\n  %s", got, want)
	}
	if got, want := sorted(tl.OutputSchema), `{"properties":{"id":{"type":"integer"},"text":{"type":"string"}},"type":"object"}`; got != want {
		t.Errorf("output schema\n  %s\nwant\n  %s", got, want)
	}
	if got := schemaSource(door, "save_note"); got != "generated" {
		t.Errorf("the report's schema source is %q, want generated", got)
	}
	if got, want := sorted(tools["close"].OutputSchema), `{"properties":{"closed":{"type":"boolean"}},"type":"object"}`; got != want || tools["close"].Description != "newCloser returns the closer." {
		t.Errorf("the closure's tool: %q, output %s; want its factory's doc and %s", tools["close"].Description, got, want)
	}
}

// TestPrecedence: Config.Declared wins over the facts, the OpenAPI
// document's operation over them for what it gives, and the facts give
// the rest.
func TestPrecedence(t *testing.T) {
	r := chi.NewRouter()
	r.Post("/save_note", saveNote)
	tools, door, _ := serve(t, r, autoexpose.Config{Declared: map[string]autoexpose.Declaration{
		"save_note": {Description: "Declared.", Input: autoexpose.SchemaFor[struct {
			Body string `json:"body"`
		}]()},
	}})
	if tl := tools["save_note"]; tl.Description != "Declared." || !strings.Contains(sorted(tl.InputSchema), `"body"`) || schemaSource(door, "save_note") != "declared" {
		t.Errorf("with a declaration: %q %s (%s); want the declaration's", tl.Description, sorted(tl.InputSchema), schemaSource(door, "save_note"))
	}

	doc := `{"openapi":"3.0.3","info":{"title":"n","version":"1"},"paths":{"/save_note":{"post":{"summary":"From the document.",
		"requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"words":{"type":"string"}}}}}},"responses":{"200":{"description":"ok"}}}}}}`
	r = chi.NewRouter()
	r.Post("/save_note", saveNote)
	tools, door, _ = serve(t, r, autoexpose.Config{OpenAPI: []byte(doc)})
	tl := tools["save_note"]
	if tl.Description != "From the document." || !strings.Contains(sorted(tl.InputSchema), `"words"`) || schemaSource(door, "save_note") != "openapi" {
		t.Errorf("with an operation: %q %s (%s); want the document's", tl.Description, sorted(tl.InputSchema), schemaSource(door, "save_note"))
	}
	if !strings.Contains(sorted(tl.OutputSchema), `"id"`) {
		t.Errorf("with an operation that gives no answer's schema: output %s, want the facts'", sorted(tl.OutputSchema))
	}
}

// TestStale: a handler that moved since the file was generated, and one
// of the package that the file does not list, go without facts, and
// Install warns once, naming each tool and the command to rerun.
func TestStale(t *testing.T) {
	r := chi.NewRouter()
	r.Post("/moved", moved)
	r.Post("/unlisted", unlisted)
	tools, door, log := serve(t, r, autoexpose.Config{})
	if d := tools["moved"].Description; d != "POST /moved" {
		t.Errorf("a moved handler's tool has the description %q, want the default", d)
	}
	if got := schemaSource(door, "moved"); got != "permissive" {
		t.Errorf("a moved handler's schema source is %q, want permissive", got)
	}
	for _, want := range []string{
		`msg="mcpdoor: a generated file is stale: it does not describe these tools' handlers as they are now, so they go without its facts (description, schemas); fix: rerun go run github.com/mcpdoor/mcpdoor/cmd/mcpdoor gen ./... (or go generate ./...) from the module's root"`,
		"moved (POST /moved, moved is at " + at(moved) + ", the file has it at generated_test.go:1)",
		"unlisted (POST /unlisted, unlisted is not in the file)",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log\n%s\nwant it to say %s", log, want)
		}
	}
	if n := strings.Count(log, "is stale"); n != 1 {
		t.Errorf("%d stale warnings, want one for the file", n)
	}
}

// TestArrayBody: a handler that decodes a JSON array takes it as its one
// argument "body", advertised with the array's schema, and a call sends
// that argument's value as the route's body, for a tool route and a REST
// route alike.
func TestArrayBody(t *testing.T) {
	for _, rest := range []*autoexpose.REST{nil, {Methods: []string{"POST"}}} {
		r := chi.NewRouter()
		r.Post("/bulk", bulk)
		tools, door, _ := serve(t, r, autoexpose.Config{MCP: autoexpose.MCPConfig{REST: rest}})
		want := `{"additionalProperties":false,"properties":{"body":{"description":"The request body: a JSON array.","items":{"properties":{"tags":{"items":{"type":["null","string"]},"type":["null","array"]},"text":{"type":["null","string"]}},"type":["null","object"]},"type":["null","array"]}},"required":["body"],"type":"object"}`
		if got := sorted(tools["bulk"].InputSchema); got != want {
			t.Errorf("input schema (rest %v)\n  %s\nwant\n  %s", rest != nil, got, want)
		}
		srv := httptest.NewServer(door)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bulk", Arguments: json.RawMessage(`{"body":[{"text":"a"},{"text":"b","tags":["x"]}]}`)})
		if err != nil {
			t.Fatal(err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || text != `[{"text":"a"},{"text":"b","tags":["x"]}]` {
			t.Errorf("the route got %q (isError %v), want the array as its body", text, res.IsError)
		}
		cs.Close()
		srv.Close()
	}
}

func listNotes(w http.ResponseWriter, r *http.Request) { w.Write([]byte("[]")) }

// fields narrows what a route answers to the fields of ?fields=.
func fields(next http.Handler) http.Handler { return next }

// TestMiddlewareQuery: under mcp.rest, the query parameters a route's
// middleware reads join its handler's in the tool's input.
func TestMiddlewareQuery(t *testing.T) {
	autoexpose.Generated(fmt.Sprintf(`{"v":1,"package":%q,"handlers":[
{"func":%q,"at":%q,"doc":"listNotes lists.","query":[{"name":"limit","type":"integer"}]},
{"func":%q,"at":%q,"middleware":true,"query":[{"name":"fields","type":"array"}]}
]}`, pkg, pkg+".listNotes", at(listNotes), pkg+".fields", at(fields)))
	r := chi.NewRouter()
	r.With(fields).Get("/notes", listNotes)
	tools, _, _ := serve(t, r, autoexpose.Config{MCP: autoexpose.MCPConfig{REST: &autoexpose.REST{Methods: []string{"GET"}}}})
	tl := tools["list_notes"]
	if tl == nil {
		t.Fatalf("no tool list_notes: %v", tools)
	}
	want := `{"properties":{"fields":{"items":{"type":"string"},"type":["string","array"]},"limit":{"type":"integer"}},"type":"object"}`
	if got := sorted(tl.InputSchema); got != want {
		t.Errorf("input schema\n  %s\nwant\n  %s", got, want)
	}
}

// TestUnreadable: a generated file of another format is not read, and
// Install says so, naming the file and the command.
func TestUnreadable(t *testing.T) {
	autoexpose.Generated(`{"v":99,"package":"x","handlers":[]}`)
	r := chi.NewRouter()
	r.Post("/save_note", saveNote)
	_, _, log := serve(t, r, autoexpose.Config{})
	want := `msg="mcpdoor: a generated file cannot be read, so its handlers' tools go without its facts: written in format 99, this version of mcpdoor reads 1; fix: rerun go run github.com/mcpdoor/mcpdoor/cmd/mcpdoor gen ./... (or go generate ./...) from the module's root"`
	if !strings.Contains(log, want) {
		t.Errorf("the log\n%s\nwant it to say %s", log, want)
	}
}

// TestWrapServeMux: a net/http server's *http.ServeMux, wrapped under
// mcp.rest, has its routes' handlers found in it, and described.
func TestWrapServeMux(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /notes/{$}", saveNote)
	var log bytes.Buffer
	door, err := autoexpose.Wrap(mux, autoexpose.Config{Name: "notes", ExposeToolsOverMCP: true, Logger: slog.New(slog.NewTextHandler(&log, nil)),
		MCP: autoexpose.MCPConfig{REST: &autoexpose.REST{Names: map[string]string{"POST /notes/{$}": "save_note"}}}})
	if err != nil {
		t.Fatalf("Wrap: %v", err)
	}
	defer door.Close()
	srv := httptest.NewServer(door)
	defer srv.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != 1 {
		t.Fatalf("tools/list: %v %v", res, err)
	}
	if tl := res.Tools[0]; tl.Description != "saveNote saves a note." || !strings.Contains(sorted(tl.InputSchema), `"text"`) {
		t.Errorf("the wrapped route's tool: %q %s; want the facts'\n%s", tl.Description, sorted(tl.InputSchema), log.String())
	}
}

// TestBrowserRoutesLeftOff: under mcp.rest, a route whose handler the
// facts say reads a form, or answers a page and no JSON, is a browser's
// and is left off, with the reason in the report; a JSON route of the
// same router is a tool.
func TestBrowserRoutesLeftOff(t *testing.T) {
	r := chi.NewRouter()
	r.Post("/login", login)
	r.Get("/signup", signupPage)
	r.Post("/notes", saveNote)
	tools, door, _ := serve(t, r, autoexpose.Config{MCP: autoexpose.MCPConfig{REST: &autoexpose.REST{Methods: []string{"GET", "POST"}}}})
	if _, ok := tools["create_note"]; !ok {
		t.Errorf("tools %v, want create_note among them", keys(tools))
	}
	for _, name := range []string{"login", "get_signup"} {
		if _, ok := tools[name]; ok {
			t.Errorf("%s is a tool; its handler is a browser's", name)
		}
	}
	want := map[string]string{
		"POST /login": "mcpdoor gen read that it reads a form, a page's for a browser; name it in mcp.rest.names to make it a tool",
		"GET /signup": "mcpdoor gen read that it answers a page (text/html) and no JSON, for a browser; name it in mcp.rest.names to make it a tool",
	}
	for _, row := range door.Report() {
		if w, ok := want[row.Route]; ok {
			if row.Tool != "" || row.Reason != w {
				t.Errorf("%s: report row %+v, want no tool and the reason %q", row.Route, row, w)
			}
			delete(want, row.Route)
		}
	}
	for route := range want {
		t.Errorf("%s: no report row", route)
	}
}

func keys(m map[string]*mcp.Tool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// confirm answers what it was sent: the length of the body, its type and
// the query.
func confirm(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "%d %q %s", r.ContentLength, r.Header.Get("Content-Type"), r.URL.RawQuery)
}

// TestNoBody: a POST route whose facts say its handler reads no body (a
// confirmation link's ?tkn=) is called with no body, not {}, and every
// argument that is not a path parameter goes in the query.
func TestNoBody(t *testing.T) {
	autoexpose.Generated(fmt.Sprintf(`{"v":1,"package":%q,"handlers":[
{"func":%q,"at":%q,"doc":"confirm confirms.","query":[{"name":"tkn","required":true}]}
]}`, pkg, pkg+".confirm", at(confirm)))
	r := chi.NewRouter()
	r.Post("/subscriptions/{id}/confirm", confirm)
	_, door, _ := serve(t, r, autoexpose.Config{MCP: autoexpose.MCPConfig{REST: &autoexpose.REST{Methods: []string{"POST"}}}})
	srv := httptest.NewServer(door)
	defer srv.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "confirm_subscription", Arguments: json.RawMessage(`{"id":"7","tkn":"t0k","src":"mail"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || text != `0 "" src=mail&tkn=t0k` {
		t.Errorf("the route got %q (isError %v), want no body and the arguments in the query", text, res.IsError)
	}
}

// logged serves its requests with the handler it wraps.
type logged struct{ next http.HandlerFunc }

func (l logged) ServeHTTP(w http.ResponseWriter, r *http.Request) { l.next(w, r) }

// TestWrapperWithoutRoute: a route whose handler is a wrapper (its facts
// say it serves another handler it is given), and that no registration's
// facts describe, goes without facts, and the report says why, rather
// than describe the route by the wrapper's own code.
func TestWrapperWithoutRoute(t *testing.T) {
	autoexpose.Generated(fmt.Sprintf(`{"v":1,"package":%q,"handlers":[
{"func":%q,"at":"generated_test.go:1","delegates":true,"doc":"ServeHTTP serves the wrapped handler."}
]}`, pkg, pkg+".logged.ServeHTTP"))
	r := chi.NewRouter()
	r.Post("/wrapped", logged{next: saveNote}.ServeHTTP)
	tools, door, _ := serve(t, r, autoexpose.Config{})
	if d := tools["wrapped"].Description; d != "POST /wrapped" {
		t.Errorf("description %q, want the default: the wrapper's doc is not the route's", d)
	}
	for _, row := range door.Report() {
		if row.Tool == "wrapped" && !strings.Contains(row.Reason, "generated: the route's handler, logged.ServeHTTP, serves another handler it is given") {
			t.Errorf("the report's reason %q does not say why", row.Reason)
		}
	}
}
