package autoexpose

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"
)

// csrfProtect stands for a CSRF middleware (gorilla/csrf's Protect): the
// forms of a server-rendered UI run behind one.
func csrfProtect(next http.Handler) http.Handler { return next }

// page answers a server-rendered page.
func page(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, "<form method=post><input name=email></form>")
}

// appRouter is a JSON API beside a server-rendered UI's forms.
func appRouter() chi.Router {
	r := chi.NewRouter()
	r.Route("/api", func(r chi.Router) {
		r.Post("/notes", jsonAnswer(`{"id":1}`))
		r.Method(http.MethodPost, "/weather", Handler(getWeather))
		r.Post("/imports", jsonAnswer(`{}`))
		r.Post("/report", page) // answers HTML, which only its call tells
	})
	r.Group(func(r chi.Router) {
		r.Use(csrfProtect)
		r.Post("/signup", page)
		r.Post("/login", page)
	})
	r.Post("/logout", page)
	r.Post("/settings/password", page)
	return r
}

// appDoc describes the API, and the /settings/password form.
const appDoc = `openapi: 3.0.3
paths:
  /api/notes:
    post:
      summary: Add a note
      requestBody: {content: {application/json: {schema: {type: object}}}}
  /api/report:
    post:
      summary: Make a report
  /settings/password:
    post:
      requestBody: {content: {application/x-www-form-urlencoded: {schema: {type: object}}}}
      responses: {"200": {description: the page, content: {text/html: {schema: {type: string}}}}}
`

// TestRESTPagesLeftOff: in REST mode, the routes Install can tell are for
// a browser are left off, each with the reason and the fix: behind a CSRF
// middleware; and with Config.OpenAPI, those the document does not
// describe, or describes as a form or a page. A typed handler, a
// declaration or a name keeps a route a tool. A route that answers a page
// is warned about at its first call.
func TestRESTPagesLeftOff(t *testing.T) {
	tools := func(cfg Config) (map[string]string, *Door) {
		t.Helper()
		door, err := Install(appRouter(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, row := range door.Report() {
			what := row.Tool
			if what == "" {
				what = row.Verdict + ": " + row.Reason
			}
			got[row.Route] = what
		}
		return got, door
	}
	const csrf = "skipped: it runs github.com/mcpdoor/mcpdoor/autoexpose.csrfProtect, a browser form's check, whose token an MCP client has not; name it in mcp.rest.names to make it a tool"
	got, door := tools(enabled(MCPConfig{REST: &REST{}}))
	want := map[string]string{
		"POST /api/notes":         "create_note",
		"POST /api/weather":       "weather",
		"POST /api/imports":       "create_import",
		"POST /api/report":        "report",
		"POST /signup":            csrf,
		"POST /login":             csrf,
		"POST /logout":            "logout",
		"POST /settings/password": "password_settings",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("without a document (-want +got):\n%s", diff)
	}

	var logs bytes.Buffer
	door.log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	door.calls.pipe.Log = door.log
	for range 2 {
		callResult(t, door, "report", `{}`, "")
	}
	const warning = `level=WARN msg="mcpdoor: a tool's route answered a page (text/html), which is for a browser, not a model; if the route is a server-rendered UI's, keep it off MCP" tool=report route="POST /api/report" fix="mcp.exclude: [report]"` + "\n"
	if logs.String() != warning {
		t.Errorf("warned\n%s\nwant, once,\n%s", logs.String(), warning)
	}

	cfg := enabled(MCPConfig{REST: &REST{Names: map[string]string{"POST /login": "login"}}})
	cfg.OpenAPI = []byte(appDoc)
	cfg.Declared = map[string]Declaration{"create_import": {Description: "Import notes."}}
	got, _ = tools(cfg)
	const undescribed = "skipped: the OpenAPI document (Config.OpenAPI) describes the API, and not this route (a page, or a route for operators); describe it there, or name it in mcp.rest.names, to make it a tool"
	want = map[string]string{
		"POST /api/notes":         "create_note",
		"POST /api/weather":       "weather",       // a typed handler
		"POST /api/imports":       "create_import", // declared
		"POST /api/report":        "report",
		"POST /signup":            csrf,
		"POST /login":             "login", // named
		"POST /logout":            undescribed,
		"POST /settings/password": "skipped: the OpenAPI document says it reads a form (application/x-www-form-urlencoded), a page's for a browser; name it in mcp.rest.names to make it a tool",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("with a document (-want +got):\n%s", diff)
	}
	if strings.Contains(logs.String(), "login") {
		t.Errorf("warned of a named route: %s", logs.String())
	}
}
