package detect

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpdoor/mcpdoor/internal/pattern"
)

// notesRouter is a REST server of every shape the REST reading handles:
// an auth group, Route sub-routers whose "/" routes chi.Walk reports with
// a trailing slash, a mounted router with regexp parameters, Handle, a
// mounted file server, a GET outside the API, two versions of a route,
// and the rollout contract's routes.
func notesRouter() chi.Router {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Get("/healthz", ok)
	r.Post("/get_weather", ok)
	r.Post("/seed_session", ok)
	r.Route("/api", func(r chi.Router) {
		r.Group(func(r chi.Router) {
			r.Use(authMiddleware)
			r.Route("/notes", func(r chi.Router) {
				r.Get("/", ok)
				r.Post("/", ok)
				r.Get("/search", ok)
				r.Route("/{id}", func(r chi.Router) {
					r.Get("/", ok)
					r.Patch("/", ok)
					r.Delete("/", ok)
					r.Post("/archive", ok)
				})
			})
		})
		admin := chi.NewRouter()
		admin.Use(mwA)
		admin.Get("/stats", ok)
		admin.Get("/users/{user:[a-z0-9_-]+}", ok)
		admin.Delete("/users/{user:[a-z0-9_-]+}/notes", ok)
		r.Mount("/admin", admin)
	})
	r.Handle("/any", ok)
	r.Mount("/static", http.FileServer(http.Dir(".")))
	r.Get("/files/*", ok)
	r.Get("/", ok)
	r.Delete("/\u00fc", ok)
	r.Head("/api/notes/{id}/raw", ok)
	r.Put("/v1/notes/{id}", ok)
	r.Put("/v2/notes/{id}", ok)
	return r
}

var allMethods = []string{"POST", "PUT", "PATCH", "DELETE", "GET"}

// TestInspectRESTTable pins the REST reading of notesRouter: every route of
// every method at any depth, each named, judged or skipped with a reason.
func TestInspectRESTTable(t *testing.T) {
	rep := inspect(t, notesRouter(), &Options{Reserved: gymRoutes, REST: &RESTOptions{
		Methods: allMethods,
		Names:   map[string]string{"GET /api/notes/search": "search_notes"},
	}})
	var buf bytes.Buffer
	if err := rep.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "rest_table.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestInspectRESTTable -update to write it)", err)
	}
	if got := buf.String(); got != string(want) {
		t.Errorf("WriteTable wrote\n%s\nwant (%s)\n%s", got, golden, want)
	}
}

// TestInspectRESTRoutes: what a REST tool carries besides its name.
func TestInspectRESTRoutes(t *testing.T) {
	rep := inspect(t, notesRouter(), &Options{Reserved: gymRoutes, REST: &RESTOptions{Methods: allMethods}})
	for _, tc := range []struct {
		method, pattern string
		name, from      string
		verdict         Verdict
		params          []Param
		hints           Hints
		mws             []string
	}{
		{"GET", "/api/notes/", "list_notes", NameFromRule, Replay, nil, Hints{ReadOnly: true},
			[]string{"github.com/go-chi/chi/v5/middleware.Recoverer", pkg + "authMiddleware"}},
		{"POST", "/api/notes/{id}/archive", "archive_note", NameFromRule, Replay, []Param{{Name: "id"}}, Hints{},
			[]string{"github.com/go-chi/chi/v5/middleware.Recoverer", pkg + "authMiddleware"}},
		{"DELETE", "/api/notes/{id}/", "delete_note", NameFromRule, Replay, []Param{{Name: "id"}}, Hints{Destructive: true, Idempotent: true},
			[]string{"github.com/go-chi/chi/v5/middleware.Recoverer", pkg + "authMiddleware"}},
		{"PATCH", "/api/notes/{id}/", "update_note", NameFromRule, Replay, []Param{{Name: "id"}}, Hints{},
			[]string{"github.com/go-chi/chi/v5/middleware.Recoverer", pkg + "authMiddleware"}},
		{"DELETE", "/api/admin/users/{user:[a-z0-9_-]+}/notes", "delete_admin_user_notes", NameFromRule, Replay,
			[]Param{{Name: "user", Regexp: "^[a-z0-9_-]+$"}}, Hints{Destructive: true, Idempotent: true},
			[]string{"github.com/go-chi/chi/v5/middleware.Recoverer", pkg + "mwA"}},
		{"GET", "/healthz", "get_healthz", NameFromRule, Direct, nil, Hints{ReadOnly: true},
			[]string{"github.com/go-chi/chi/v5/middleware.Recoverer"}},
		{"POST", "/get_weather", "get_weather", NameFromPath, Direct, nil, Hints{},
			[]string{"github.com/go-chi/chi/v5/middleware.Recoverer"}},
		{"POST", "/any", "any", NameFromPath, Direct, nil, Hints{},
			[]string{"github.com/go-chi/chi/v5/middleware.Recoverer"}},
	} {
		t.Run(tc.method+" "+tc.pattern, func(t *testing.T) {
			rt := rep.Lookup(tc.method, tc.pattern)
			if rt == nil {
				t.Fatalf("no route %s %s", tc.method, tc.pattern)
			}
			if rt.Kind != Tool || rt.Name != tc.name || rt.NameFrom != tc.from || rt.Verdict != tc.verdict {
				t.Errorf("Kind, Name, NameFrom, Verdict = %v, %q, %q, %v; want tool, %q, %q, %v", rt.Kind, rt.Name, rt.NameFrom, rt.Verdict, tc.name, tc.from, tc.verdict)
			}
			if !reflect.DeepEqual(rt.Params, tc.params) || rt.Hints != tc.hints {
				t.Errorf("Params, Hints = %+v, %+v; want %+v, %+v", rt.Params, rt.Hints, tc.params, tc.hints)
			}
			if !slices.Equal(rt.MiddlewareNames, tc.mws) || len(rt.Middlewares) != len(tc.mws) || rt.Endpoint == nil {
				t.Errorf("MiddlewareNames = %q (%d functions, endpoint %v), want %q", rt.MiddlewareNames, len(rt.Middlewares), rt.Endpoint, tc.mws)
			}
		})
	}
}

// TestInspectRESTMethods: GET routes are tools only when GET is among the
// methods (or the route is named); the others are reported, with the reason.
func TestInspectRESTMethods(t *testing.T) {
	rep := inspect(t, notesRouter(), &Options{Reserved: gymRoutes, REST: &RESTOptions{}})
	for _, tc := range []struct {
		method, pattern string
		kind            Kind
		reason          string
	}{
		{"GET", "/api/notes/", Skipped, "GET routes are tools only when GET is among mcp.rest.methods, or the route is named in mcp.rest.names"},
		{"GET", "/healthz", Skipped, "GET routes are tools only when GET is among mcp.rest.methods, or the route is named in mcp.rest.names"},
		{"HEAD", "/api/notes/{id}/raw", Skipped, "HEAD routes are never tools"},
		{"POST", "/api/notes/", Tool, ""},
		{"DELETE", "/api/notes/{id}/", Tool, ""},
	} {
		rt := rep.Lookup(tc.method, tc.pattern)
		if rt == nil {
			t.Errorf("no route %s %s", tc.method, tc.pattern)
			continue
		}
		var reason string
		if rt.Kind == Skipped {
			reason = rt.Reasons[0]
		}
		if rt.Kind != tc.kind || reason != tc.reason {
			t.Errorf("%s %s: %v %q, want %v %q", tc.method, tc.pattern, rt.Kind, reason, tc.kind, tc.reason)
		}
	}
	rep = inspect(t, notesRouter(), &Options{Reserved: gymRoutes, REST: &RESTOptions{Methods: []string{"get"}}})
	if rt := rep.Lookup("POST", "/api/notes/"); rt == nil || rt.Kind != Skipped || rt.Reasons[0] != "POST is not among mcp.rest.methods, and the route is not named in mcp.rest.names" {
		t.Errorf("POST /api/notes/ with only GET named: %+v", rt)
	}
	if rt := rep.Lookup("ANY", "/any"); rt == nil || rt.Reasons[0] != "serves every method (Handle, HandleFunc or Mount); it could be a tool as POST, which is not among mcp.rest.methods" {
		t.Errorf("ANY /any with only GET named: %+v", rt)
	}
	if rt := rep.Lookup("POST", "/any"); rt != nil {
		t.Errorf("POST /any reported with POST not named: %+v", rt)
	}

	for _, bad := range []string{"HEAD", "OPTIONS", "QUERY", "FETCH", ""} {
		_, err := Inspect(chi.NewRouter(), &Options{Reserved: gymRoutes, REST: &RESTOptions{Methods: []string{"GET", bad}}})
		want := `REST method "` + bad + `" is not one of POST, PUT, PATCH, DELETE, GET`
		if err == nil || err.Error() != want {
			t.Errorf("Methods [GET %q]: error %v, want %s", bad, err, want)
		}
	}
}

// TestInspectRESTNames: a name from the config wins over the OpenAPI
// operationId, which wins over the rule; keys may leave out regexps and a
// trailing slash; a bad name, whatever its source, is a refusal naming the
// route and the fix.
func TestInspectRESTNames(t *testing.T) {
	r := chi.NewRouter()
	r.Get("/notes/{id:[0-9]+}/", ok)
	r.Post("/notes/{id:[0-9]+}/archive", ok)
	r.Delete("/notes/{id:[0-9]+}/", ok)
	r.Patch("/notes/{id:[0-9]+}/", ok)
	r.Put("/notes/{id:[0-9]+}/", ok)
	r.Post("/notes/", ok)
	r.Get("/notes/", ok)
	r.Post("/seed_session", ok)
	r.Get("/", ok)
	rep := inspect(t, r, &Options{Reserved: gymRoutes, REST: &RESTOptions{
		Methods: allMethods,
		Names: map[string]string{
			"get /notes/{id}":                 "fetch_note", // loose key, lower-case method
			"POST /notes/{id:[0-9]+}/archive": "stash_note", // exact key, wins over the operationId
			"PATCH /notes/{id}":               "bad name",
			"PUT /notes/{id}/":                "verify",
			"GET /":                           "home",
			"POST /seed_session":              "seed",
			"DELETE /nowhere":                 "x",
			"OPTIONS /notes/":                 "y",
		},
		Document: operationIDs(map[string]string{
			"POST /notes/{id}/archive": "archiveNote",
			"DELETE /notes/{id}":       "removeNote",
			"POST /notes":              "notes.create",
			"GET /elsewhere":           "ignored",
		}),
	}})
	for _, tc := range []struct {
		method, pattern, name, from string
		refusal                     string
	}{
		{"GET", "/notes/{id:[0-9]+}/", "fetch_note", NameFromConfig, ""},
		{"POST", "/notes/{id:[0-9]+}/archive", "stash_note", NameFromConfig, ""},
		{"DELETE", "/notes/{id:[0-9]+}/", "removeNote", NameFromOperationID, ""},
		{"GET", "/notes/", "list_notes", NameFromRule, ""},
		{"GET", "/", "home", NameFromConfig, ""},
		{"PATCH", "/notes/{id:[0-9]+}/", "bad name", NameFromConfig,
			`mcpdoor: PATCH /notes/{id:[0-9]+}/: tool name "bad name" does not match ^[A-Za-z0-9_-]+$; fix: name the route in mcp.rest.names, e.g. "PATCH /notes/{id:[0-9]+}/": bad_name_tool`},
		{"PUT", "/notes/{id:[0-9]+}/", "verify", NameFromConfig,
			`mcpdoor: PUT /notes/{id:[0-9]+}/: tool name "verify" is reserved (aggregate_metrics, seed_session, verify, mcp); fix: name the route in mcp.rest.names, e.g. "PUT /notes/{id:[0-9]+}/": verify_tool`},
		{"POST", "/notes/", "notes.create", NameFromOperationID,
			`mcpdoor: POST /notes/: tool name "notes.create" does not match ^[A-Za-z0-9_-]+$ (the OpenAPI operationId); fix: name the route in mcp.rest.names, e.g. "POST /notes/": notes_create_tool`},
	} {
		t.Run(tc.method+" "+tc.pattern, func(t *testing.T) {
			rt := rep.Lookup(tc.method, tc.pattern)
			if rt == nil {
				t.Fatalf("no route %s %s", tc.method, tc.pattern)
			}
			if rt.Kind != Tool || rt.Name != tc.name || rt.NameFrom != tc.from {
				t.Errorf("Kind, Name, NameFrom = %v, %q, %q; want tool, %q, %q", rt.Kind, rt.Name, rt.NameFrom, tc.name, tc.from)
			}
			var got string
			if err := rt.Refusal(); err != nil {
				got = err.Error()
			}
			if got != tc.refusal {
				t.Errorf("Refusal() = %s\nwant        %s", got, tc.refusal)
			}
		})
	}
	want := []string{
		`mcpdoor: DELETE /nowhere: mcp.rest.names names a route the router does not have; fix: use a route as the report lists it: the method, a space and the pattern`,
		`mcpdoor: OPTIONS /notes/: mcp.rest.names names a route the router does not have; fix: use a route as the report lists it: the method, a space and the pattern`,
		`mcpdoor: POST /seed_session: mcp.rest.names names a route that is not a tool (reserved); fix: remove the name`,
	}
	if got := problems(rep); !slices.Equal(got, want) {
		t.Errorf("Problems:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Naming a route asks for it, whatever its method: a GET route named
	// is a tool though GET is not among the methods, the other GET routes
	// are not. A route of a method that is never a tool stays a mistake.
	r.Head("/notes/{id:[0-9]+}/raw", ok)
	rep = inspect(t, r, &Options{Reserved: gymRoutes, REST: &RESTOptions{Names: map[string]string{
		"GET /notes/{id}":      "fetch_note",
		"HEAD /notes/{id}/raw": "peek_note",
	}}})
	if rt := rep.Lookup("GET", "/notes/{id:[0-9]+}/"); rt == nil || rt.Kind != Tool || rt.Name != "fetch_note" || rt.NameFrom != NameFromConfig || rt.Verdict != Direct || !rt.Hints.ReadOnly {
		t.Errorf("GET /notes/{id:[0-9]+}/, named, GET not among the methods: %+v", rt)
	}
	if rt := rep.Lookup("GET", "/notes/"); rt == nil || rt.Kind != Skipped || rt.Reasons[0] != "GET routes are tools only when GET is among mcp.rest.methods, or the route is named in mcp.rest.names" {
		t.Errorf("GET /notes/, not named: %+v", rt)
	}
	want = []string{`mcpdoor: HEAD /notes/{id}/raw: mcp.rest.names names a route that is not a tool (skipped: HEAD routes are never tools); fix: remove the name`}
	if got := problems(rep); !slices.Equal(got, want) {
		t.Errorf("Problems:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Handlers of the collisions test: top-level functions, each its own.
func getArticle(w http.ResponseWriter, r *http.Request)  {}
func listUsers(w http.ResponseWriter, r *http.Request)   {}
func listUsersV1(w http.ResponseWriter, r *http.Request) {}
func apiSummary(w http.ResponseWriter, r *http.Request)  {}
func summaryPage(w http.ResponseWriter, r *http.Request) {}

// TestInspectRESTCollisions: routes that get one name are told apart into
// distinct names, the parameter first, then the prefixes, then a number;
// a name from the config or an operationId is kept.
func TestInspectRESTCollisions(t *testing.T) {
	r := chi.NewRouter()
	r.Route("/articles", func(r chi.Router) {
		r.Route("/{articleID}", func(r chi.Router) {
			r.Get("/", getArticle)
		})
		r.Get("/{articleSlug:[a-z-]+}", getArticle)
	})
	r.Get("/api/users", listUsers)
	r.Get("/api/v1/users", listUsersV1)
	r.Get("/api/summary", apiSummary)
	r.Get("/summary/", summaryPage)
	r.With(authMiddleware).Get("/v1/notes", ok)
	r.Get("/v2/notes", ok)
	r.Get("/api/notes/{id}", ok)
	r.Get("/api/note/{id}", ok)
	r.Post("/api/tasks", ok)
	r.Get("/api/tasks/{id}", ok)
	rep := inspect(t, r, &Options{Reserved: gymRoutes, REST: &RESTOptions{
		Methods:  allMethods,
		Document: operationIDs(map[string]string{"POST /api/tasks": "get_note"}),
		Names:    map[string]string{"GET /api/tasks/{id}": "get_note_2"},
	}})
	want := map[string]string{
		"GET /articles/{articleID}/":          "get_article",
		"GET /articles/{articleSlug:[a-z-]+}": "get_article_by_slug",
		"GET /api/users":                      "list_users",
		"GET /api/v1/users":                   "list_v1_users",
		"GET /summary/":                       "get_summary",
		"GET /api/summary":                    "get_api_summary",
		"GET /v1/notes":                       "list_v1_notes",
		"GET /v2/notes":                       "list_v2_notes",
		"POST /api/tasks":                     "get_note", // the operationId's: kept
		"GET /api/tasks/{id}":                 "get_note_2",
		"GET /api/note/{id}":                  "get_note_3",
		"GET /api/notes/{id}":                 "get_note_4",
	}
	got := map[string]string{}
	for _, rt := range rep.Routes {
		if rt.Kind == Tool {
			got[rt.Method+" "+rt.Pattern] = rt.Name
			if err := rt.Refusal(); err != nil {
				t.Errorf("%s %s refused: %v", rt.Method, rt.Pattern, err)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}
}

// TestInspectRESTCollisionFixes: two routes the config gives one name are
// refused, each naming the other and a fix whose name no tool has and no
// other fix suggests.
func TestInspectRESTCollisionFixes(t *testing.T) {
	r := chi.NewRouter()
	r.Get("/articles/{id}", ok)
	r.Get("/articles/{slug}/", ok)
	r.Get("/blog/articles/{id}", ok)
	r.Post("/notes", ok)
	rep := inspect(t, r, &Options{Reserved: gymRoutes, REST: &RESTOptions{
		Methods: allMethods,
		Names: map[string]string{
			"GET /articles/{id}":      "fetch",
			"GET /articles/{slug}/":   "fetch",
			"GET /blog/articles/{id}": "fetch",
			"POST /notes":             "verify",
		},
	}})
	var fixes []string
	for _, rt := range rep.Routes {
		if rt.Kind != Tool {
			continue
		}
		err := rt.Refusal()
		if err == nil {
			t.Errorf("%s %s: not refused", rt.Method, rt.Pattern)
			continue
		}
		_, fix, _ := strings.Cut(err.Error(), " e.g. "+strconv.Quote(rt.Method+" "+rt.Pattern)+": ")
		fixes = append(fixes, fix)
	}
	slices.Sort(fixes)
	want := []string{"get_article", "get_article_by_slug", "get_blog_article", "verify_tool"}
	if !slices.Equal(fixes, want) {
		t.Errorf("the fixes suggest %q, want %q", fixes, want)
	}
}

// TestInspectRESTKeepsConvention: under REST, the tool-route convention's
// routes read as they do without it: POST /<name> is the tool <name>, POST
// /{tool} the catch-all, the rollout routes reserved; the verdict rules
// are the same.
func TestInspectRESTKeepsConvention(t *testing.T) {
	build := func() chi.Router {
		r := chi.NewRouter()
		r.Use(middleware.Logger)
		r.Post("/get_weather", ok)
		r.With(authMiddleware).Post("/secure", ok)
		r.Post("/{tool}", ok)
		r.Post("/seed_session", ok)
		r.Post("/verify", ok)
		return r
	}
	for _, mode := range []Mode{Auto, Strict, ForceReplay, ForceDirect} {
		t.Run(string(mode), func(t *testing.T) {
			classic := inspect(t, build(), &Options{Mode: mode})
			rest := inspect(t, build(), &Options{Mode: mode, REST: &RESTOptions{}})
			for i := range rest.Routes {
				rest.Routes[i].NameFrom, rest.Routes[i].Hints = "", Hints{}
			}
			strip := func(rts []Route) []Route {
				out := slices.Clone(rts)
				for i := range out {
					out[i].Endpoint, out[i].Middlewares = nil, nil
				}
				return out
			}
			if !reflect.DeepEqual(strip(classic.Routes), strip(rest.Routes)) {
				t.Errorf("REST reading\n%+v\nwant the convention's\n%+v", strip(rest.Routes), strip(classic.Routes))
			}
		})
	}
}

// operationIDs is a RESTOptions.Document that gives the operationIds of
// ids, by "METHOD pattern" with chi regexps and trailing slashes left out,
// and leaves no route off.
func operationIDs(ids map[string]string) func(rt *Route) (string, string) {
	return func(rt *Route) (string, string) { return ids[rt.Method+" "+pattern.Key(rt.Pattern)], "" }
}

// gymRoutes are NeMo Gym's route names, reserved as a server under the
// rollout contract reserves them.
var gymRoutes = []string{"aggregate_metrics", "seed_session", "verify"}

// users is a resource type whose methods are handlers.
type users struct{ table string }

func (u *users) get(w http.ResponseWriter, r *http.Request) {}

func getUser(w http.ResponseWriter, r *http.Request) {}

// TestInspectRESTAliases: one handler on several paths, the same way (its
// method, path parameters and middlewares), is one tool, served at the
// shortest path; the other paths are reported, not tools. Method values
// and closures share their code whatever they hold, so they are never
// taken for one handler.
func TestInspectRESTAliases(t *testing.T) {
	people, staff := &users{"people"}, &users{"staff"}
	r := chi.NewRouter()
	r.Get("/api/users/{id}", getUser)
	r.Get("/api/v1/users/{id}", getUser)
	r.With(authMiddleware).Get("/admin/users/{id}", getUser) // another middleware: another tool
	r.Get("/people/{id}", people.get)
	r.Get("/staff/{id}", staff.get)
	r.Get("/api/v2/people/{id}", people.get)
	rep := inspect(t, r, &Options{Reserved: gymRoutes, REST: &RESTOptions{Methods: allMethods}})
	got := map[string]string{}
	for _, rt := range rep.Routes {
		what := rt.Name
		if rt.Kind != Tool {
			what = rt.Kind.String() + ": " + strings.Join(rt.Reasons, "; ")
		}
		got[rt.Method+" "+rt.Pattern] = what
	}
	want := map[string]string{
		"GET /api/users/{id}":     "get_user",
		"GET /api/v1/users/{id}":  "skipped: the same handler as GET /api/users/{id}, the tool get_user: one handler on several paths is one tool; name this route in mcp.rest.names to make it a tool of its own",
		"GET /admin/users/{id}":   "get_admin_user",
		"GET /people/{id}":        "get_people",
		"GET /staff/{id}":         "get_staff",
		"GET /api/v2/people/{id}": "get_api_v2_people",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("routes (-want +got):\n%s", diff)
	}
}
