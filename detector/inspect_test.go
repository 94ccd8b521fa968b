package detector_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/detector"
)

var handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})

// TestInspect: the rows a router's routes make under each option, and the
// errors of a router that cannot be served and of a bad option.
func TestInspect(t *testing.T) {
	authed := func() chi.Router {
		r := chi.NewRouter()
		r.With(requireToken).Post("/book_flight", handler)
		r.Post("/get_weather", handler)
		return r
	}
	const mustRun = "middleware github.com/mcpdoor/mcpdoor/detector_test.requireToken must run"
	for _, tc := range []struct {
		name   string
		router func() chi.Router
		opts   *detector.Options
		want   []detector.Row
		err    string
	}{
		{
			name: "defaults", router: authed,
			want: []detector.Row{
				{Tool: "book_flight", Route: "POST /book_flight", Verdict: "replay", Reason: mustRun},
				{Tool: "get_weather", Route: "POST /get_weather", Verdict: "direct"},
			},
		},
		{
			name: "strict refuses what must replay, with the fix", router: authed,
			opts: &detector.Options{Dispatch: "strict"},
			want: []detector.Row{
				{Tool: "book_flight", Route: "POST /book_flight", Verdict: "refused",
					Reason: "middleware github.com/mcpdoor/mcpdoor/detector_test.requireToken is not known to be transparent; " +
						"fix: declare the middleware in mcp.transparent_middleware if a request may skip it, or set mcp.dispatch: auto to replay the route through the router"},
				{Tool: "get_weather", Route: "POST /get_weather", Verdict: "direct"},
			},
		},
		{
			name: "a transparent middleware goes direct", router: authed,
			opts: &detector.Options{Transparent: []string{"github.com/mcpdoor/mcpdoor/detector_test.requireToken"}},
			want: []detector.Row{
				{Tool: "book_flight", Route: "POST /book_flight", Verdict: "direct"},
				{Tool: "get_weather", Route: "POST /get_weather", Verdict: "direct"},
			},
		},
		{
			name: "REST reads routes of any method and depth",
			router: func() chi.Router {
				r := chi.NewRouter()
				r.Get("/api/notes/{id}", handler)
				r.Delete("/api/notes/{id}", handler)
				return r
			},
			opts: &detector.Options{REST: true},
			want: []detector.Row{
				{Tool: "delete_note", Route: "DELETE /api/notes/{id}", Verdict: "direct"},
				{Route: "GET /api/notes/{id}", Verdict: "skipped", Reason: "GET routes are tools only when GET is among mcp.rest.methods, or the route is named in mcp.rest.names"},
			},
		},
		{
			name: "a router that serves /mcp already",
			router: func() chi.Router {
				r := chi.NewRouter()
				r.Post("/get_weather", handler)
				r.Handle("/mcp", handler)
				return r
			},
			want: []detector.Row{
				{Tool: "get_weather", Route: "POST /get_weather", Verdict: "direct"},
				{Route: "POST /mcp", Verdict: "reserved"},
			},
			err: "mcpdoor: ANY /mcp: the server already serves /mcp, where the MCP endpoint goes; " +
				"fix: remove that route (a hand-written MCP mount would be shadowed), or set mcp.path to another path",
		},
		{
			name: "a bad dispatch", router: authed,
			opts: &detector.Options{Dispatch: "sometimes"},
			err:  `mcpdoor: detector.Options.Dispatch: dispatch "sometimes" is not one of auto, direct, replay, strict`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := detector.Inspect(tc.router(), tc.opts)
			if got := errText(err); got != tc.err {
				t.Errorf("error %q, want %q", got, tc.err)
			}
			if diff := cmp.Diff(tc.want, rows); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestInspectIsTheReport: for a router and a config that sets nothing the
// router does not show, Inspect's rows are the Door's startup report, but
// for the Schema column, which only Install reads.
func TestInspectIsTheReport(t *testing.T) {
	r := chi.NewRouter()
	r.Use(requireToken)
	r.Post("/get_weather", handler)
	r.Group(func(g chi.Router) {
		g.Use(requireToken)
		g.Post("/book_flight", handler)
	})
	r.Post("/{tool}", handler)
	r.Post("/seed_session", handler)
	r.Post("/verify", handler)
	r.Post("/files/*", handler)

	rows, err := detector.Inspect(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	door, err := autoexpose.Install(r, autoexpose.Config{
		Name: "weather", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler),
		MCP: autoexpose.MCPConfig{SessionSecret: []string{"a detector test secret, 32 bytes or more"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	report := door.Report()
	for i := range report {
		report[i].Schema = ""
	}
	if diff := cmp.Diff(report, rows); diff != "" {
		t.Errorf("Inspect's rows differ from the Door's report (-report +Inspect):\n%s", diff)
	}
	var a, b bytes.Buffer
	detector.WriteTable(&a, rows)
	detector.WriteTable(&b, report)
	if a.String() != b.String() {
		t.Errorf("tables differ:\n%s\nvs\n%s", a.String(), b.String())
	}
}
