package autoexpose

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/mcpdoor/mcpdoor/detector"
)

// muxNotes is a REST API on Go's http.ServeMux: method patterns with
// path wildcards, which r.PathValue reads.
func muxNotes() *http.ServeMux {
	mux := http.NewServeMux()
	view := func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{
			"pattern": r.Pattern, "uri": r.RequestURI, "id": r.PathValue("id"), "body": string(b),
		})
	}
	mux.HandleFunc("GET /notes/{id}", view)
	mux.HandleFunc("PATCH /notes/{id}", view)
	mux.HandleFunc("GET /notes/search", view)
	mux.HandleFunc("DELETE /notes/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /health", view)
	return mux
}

// TestWrapREST: Wrap serves the routes mcp.rest.names declares, ServeMux
// patterns with path wildcards as REST tools, every call replayed through
// the wrapped handler, which sets r.PathValue itself.
func TestWrapREST(t *testing.T) {
	cfg := enabled(MCPConfig{REST: &REST{Names: map[string]string{
		"GET /notes/{id}":    "get_note",
		"PATCH /notes/{id}":  "update_note",
		"DELETE /notes/{id}": "delete_note",
		"GET /notes/search":  "search_notes",
	}}})
	d, err := Wrap(muxNotes(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var report bytes.Buffer
	detector.WriteTable(&report, d.Report())
	want := `TOOL          ROUTE               VERDICT  SCHEMA      ARGUMENTS               REASON
delete_note   DELETE /notes/{id}  replay   permissive  id (path); any (query)  a wrapped handler: every call replays through it
get_note      GET /notes/{id}     replay   permissive  id (path); any (query)  a wrapped handler: every call replays through it
search_notes  GET /notes/search   replay   permissive  any (query)             a wrapped handler: every call replays through it
update_note   PATCH /notes/{id}   replay   permissive  id (path); any (body)   a wrapped handler: every call replays through it
`
	if report.String() != want {
		t.Errorf("report:\n%s\nwant\n%s", report.String(), want)
	}
	for _, tc := range []struct{ tool, args, want string }{
		{"get_note", `{"id":"caf\u00e9 1"}`, `{"body":"","id":"café 1","pattern":"GET /notes/{id}","uri":"/notes/caf%C3%A9%201"}`},
		{"update_note", `{"id":"7","text":"x"}`, `{"body":"{\"text\":\"x\"}","id":"7","pattern":"PATCH /notes/{id}","uri":"/notes/7"}`},
		{"search_notes", `{"q":"a b"}`, `{"body":"","id":"","pattern":"GET /notes/search","uri":"/notes/search?q=a+b"}`},
	} {
		res := callResult(t, d, tc.tool, tc.args, "")
		if res.IsError || len(res.Content) == 0 {
			t.Errorf("%s: %s", tc.tool, callJSON(t, d, tc.tool, tc.args))
			continue
		}
		if b, _ := json.Marshal(res.StructuredContent); string(b) != tc.want {
			t.Errorf("%s: the route saw %s\nwant %s", tc.tool, b, tc.want)
		}
	}
	// A value that would reach another declared route, or leave the
	// segment, is refused.
	for args, why := range map[string]string{
		`{"id":"search"}`: `path parameter \"id\" is \"search\": /notes/search is the path of another route, GET /notes/search`,
		`{"id":"a/b"}`:    `path parameter \"id\" is \"a/b\": a value cannot contain \"/\"`,
		`{"id":".."}`:     `path parameter \"id\" is \"..\": a value cannot be \".\" or \"..\"`,
	} {
		if got := callJSON(t, d, "get_note", args); !strings.Contains(got, `"text":"HTTP 422 from GET /notes/{id}: Invalid arguments for get_note (the route was not called): `+why+`"`) {
			t.Errorf("get_note %s: %s", args, got)
		}
	}
	if got := callJSON(t, d, "delete_note", `{"id":"3"}`); got != `{"content":[{"type":"text","text":"204 No Content"}],"structuredContent":{"status":204}}` {
		t.Errorf("delete_note: %s", got)
	}
	// The HTTP door is the mux, unchanged.
	w := httptest.NewRecorder()
	d.ServeHTTP(w, httptest.NewRequest("GET", "/notes/5", nil))
	if w.Body.String() != `{"body":"","id":"5","pattern":"GET /notes/{id}","uri":"/notes/5"}`+"\n" {
		t.Errorf("GET /notes/5: %s", w.Body)
	}

	// A route the ServeMux does not serve as named is an Install error.
	cfg.MCP.REST.Names = map[string]string{"GET /notes/{id}/raw": "raw_note", "PUT /notes/{id}": "put_note"}
	_, err = Wrap(muxNotes(), cfg)
	wantErr := "mcpdoor: GET /notes/{id}/raw: mcp.rest.names names a route the wrapped http.ServeMux does not serve (it serves GET /notes/mcpdoor_sample/raw with no pattern); fix: name a route as the ServeMux's pattern has it\n" +
		"mcpdoor: PUT /notes/{id}: mcp.rest.names names a route the wrapped http.ServeMux does not serve (it serves PUT /notes/mcpdoor_sample with no pattern); fix: name a route as the ServeMux's pattern has it"
	if err == nil || err.Error() != wantErr {
		t.Errorf("Wrap:\n%v\nwant\n%s", err, wantErr)
	}
}

// TestWrapRESTPatterns: a ServeMux pattern's {$} is its path's end; a
// {name...} wildcard has no fixed path, and no tool.
func TestWrapRESTPatterns(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /notes/{$}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Pattern) })
	mux.HandleFunc("GET /files/{path...}", func(w http.ResponseWriter, r *http.Request) {})
	cfg := enabled(MCPConfig{REST: &REST{Names: map[string]string{"GET /notes/{$}": "list_notes"}}})
	d, err := Wrap(mux, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := callJSON(t, d, "list_notes", `{}`); got != `{"content":[{"type":"text","text":"GET /notes/{$}"}]}` {
		t.Errorf("list_notes: %s", got)
	}
	cfg.MCP.REST.Names = map[string]string{"GET /files/{path...}": "get_file"}
	_, err = Wrap(mux, cfg)
	if want := "mcpdoor: GET /files/{path...}: a {name...} wildcard matches any rest of a path; a tool has a fixed path to call; fix: name a route with a fixed path, its wildcards whole segments"; err == nil || err.Error() != want {
		t.Errorf("Wrap: %v\nwant %s", err, want)
	}
	// A refused route is one mistake, said once, {$} or not.
	cfg.MCP.REST.Names = map[string]string{"GET /notes/{id:(}/{$}": "list_notes"}
	_, err = Wrap(mux, cfg)
	if want := "mcpdoor: GET /notes/{id:(}/{$}: chi: invalid regexp pattern '^($' in route param; fix: name a route with a fixed path, its wildcards whole segments"; err == nil || err.Error() != want {
		t.Errorf("Wrap: %v\nwant %s", err, want)
	}
}

// TestWrapRESTChi: a wrapped chi router's tools keep its own patterns (a
// name may leave the regexp out), their path values are checked against
// the router itself, and a name the router does not serve is an error.
func TestWrapRESTChi(t *testing.T) {
	r := chi.NewRouter()
	r.Get("/notes/{id:[0-9]+}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "note "+chi.URLParam(r, "id")) })
	r.Get("/notes/{id:[0-9]+}/raw", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "raw") })
	cfg := enabled(MCPConfig{REST: &REST{Names: map[string]string{"GET /notes/{id}": "get_note"}}})
	d, err := Wrap(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := exposed(d)[0].Route; got != "GET /notes/{id:[0-9]+}" {
		t.Errorf("route: %s", got)
	}
	if got := callJSON(t, d, "get_note", `{"id":"7"}`); got != `{"content":[{"type":"text","text":"note 7"}]}` {
		t.Errorf("get_note 7: %s", got)
	}
	cfg.MCP.REST.Names = map[string]string{"GET /notes/{id}": "get_note", "GET /notes/{id}/text": "note_text"}
	_, err = Wrap(r, cfg)
	want := "mcpdoor: GET /notes/{id}/text: mcp.rest.names names a route the wrapped chi router does not serve; fix: name a route as the router's pattern has it (the startup report of Install lists them)"
	if err == nil || err.Error() != want {
		t.Errorf("Wrap: %v\nwant %s", err, want)
	}
}
