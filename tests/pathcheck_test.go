package tests

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// A REST tool's path value must not take its call to a route that is not
// the tool's: get_note with id "export_all" must not reach an undeclared
// GET /notes/export_all, for a wrapped http.ServeMux, a wrapped chi router,
// or a chi router under Install.

// exportAllRefused is the isError result of get_note {"id":"export_all"}.
const exportAllRefused = `{"content":[{"type":"text","text":"HTTP 422 from GET /notes/{id}: Invalid arguments for get_note (the route was not called): path parameter \"id\" is \"export_all\": /notes/export_all is the path of another route, GET /notes/export_all"}],` +
	`"structuredContent":{"error":{"code":"invalid_arguments","effect":"not_applied","fields":["id"],"message":"path parameter \"id\" is \"export_all\": /notes/export_all is the path of another route, GET /notes/export_all","status":422}},"isError":true}`

// notesConfig serves GET /notes/{id} alone as the tool get_note.
func notesConfig(logs io.Writer) autoexpose.Config {
	return autoexpose.Config{
		Name:               "notes",
		ExposeToolsOverMCP: true,
		MCP: autoexpose.MCPConfig{
			SessionSecret: []string{testSecret},
			REST:          &autoexpose.REST{Names: map[string]string{"GET /notes/{id}": "get_note"}},
		},
		Logger: slog.New(slog.NewTextHandler(logs, nil)),
	}
}

// TestPathValueReachesOnlyTheTool: a value that routes to another route of
// the wrapped handler is refused with invalid_arguments naming the
// parameter, the other route's handler does not run, and a value that
// routes to the tool's own route goes through.
func TestPathValueReachesOnlyTheTool(t *testing.T) {
	var exported atomic.Int32
	note := func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "note "+r.URL.Path) }
	exportAll := func(w http.ResponseWriter, r *http.Request) {
		exported.Add(1)
		io.WriteString(w, "every note, exported")
	}
	muxServer := func() http.Handler {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /notes/{id}", note)
		mux.HandleFunc("GET /notes/export_all", exportAll)
		return mux
	}
	chiServer := func() chi.Router {
		r := chi.NewRouter()
		r.Get("/notes/{id}", note)
		r.Get("/notes/export_all", exportAll)
		return r
	}
	cases := []struct {
		name  string
		serve func(t *testing.T) http.Handler
	}{
		{"Wrap http.ServeMux", func(t *testing.T) http.Handler {
			d, err := autoexpose.Wrap(muxServer(), notesConfig(io.Discard))
			if err != nil {
				t.Fatal(err)
			}
			return d
		}},
		{"Wrap chi router", func(t *testing.T) http.Handler {
			d, err := autoexpose.Wrap(chiServer(), notesConfig(io.Discard))
			if err != nil {
				t.Fatal(err)
			}
			return d
		}},
		{"Install chi router", func(t *testing.T) http.Handler {
			r := chiServer()
			if _, err := autoexpose.Install(r, notesConfig(io.Discard)); err != nil {
				t.Fatal(err)
			}
			return r
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exported.Store(0)
			s := serve(t, tc.serve(t))
			if hr := s.send(http.MethodGet, "/notes/export_all", ""); string(hr.Body) != "every note, exported" {
				t.Fatalf("HTTP door: GET /notes/export_all: %d %s", hr.Status, hr.Body)
			}
			exported.Store(0)
			cs := s.connect(mcpOptions{})
			if got := resultJSON(t, call(t, cs, "get_note", map[string]any{"id": "export_all"})); got != exportAllRefused {
				t.Errorf("get_note export_all:\n  %s\nwant\n  %s", got, exportAllRefused)
			}
			if n := exported.Load(); n != 0 {
				t.Errorf("GET /notes/export_all ran %d times for get_note", n)
			}
			if got := resultJSON(t, call(t, cs, "get_note", map[string]any{"id": "7"})); got != `{"content":[{"type":"text","text":"note /notes/7"}]}` {
				t.Errorf("get_note 7: %s", got)
			}
		})
	}
}

// TestWrapPathCheckUnknowable: a wrapped handler with no route table of its
// own (here a ServeMux behind a middleware) cannot say which route a path
// reaches; Wrap warns, naming the tools with path parameters.
func TestWrapPathCheckUnknowable(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /notes/{id}", func(w http.ResponseWriter, r *http.Request) {})
	var logs bytes.Buffer
	gated := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { mux.ServeHTTP(w, r) })
	if _, err := autoexpose.Wrap(gated, notesConfig(&logs)); err != nil {
		t.Fatal(err)
	}
	const want = `msg="mcpdoor: the wrapped handler is neither an *http.ServeMux nor a chi router, so a path value cannot be checked to reach its tool's route and no other; a value may reach a route the wrapped handler serves beside it" tools=get_note fix="wrap the *http.ServeMux or chi router itself, or name every route it serves beside those tools in mcp.rest.names, with mcp.exclude to keep it off MCP, so that the check knows it"`
	if !strings.Contains(logs.String(), want) {
		t.Errorf("log:\n%s\nwant a line with\n%s", logs.String(), want)
	}
}
