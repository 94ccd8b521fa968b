package detect_test

import (
	"fmt"
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/mcpdoor/mcpdoor/internal/detect"
)

// requireToken is the kind of middleware the detector cannot know: the
// route it guards replays through the router, so the check still runs.
func requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Print the verdict table of any chi router: what mcpdoor would serve over
// MCP, and how.
func ExampleInspect() {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})

	r := chi.NewRouter()
	r.Use(middleware.Logger, middleware.Recoverer)
	r.Post("/get_weather", handler)
	r.With(requireToken).Post("/book_flight", handler)
	r.Post("/{tool}", handler)
	r.Post("/seed_session", handler)

	// seed_session is a route of NeMo Gym's rollout contract, never a tool.
	rep, err := detect.Inspect(r, &detect.Options{Reserved: []string{"seed_session"}})
	if err != nil {
		panic(err)
	}
	rep.WriteTable(os.Stdout)
	// Output:
	// TOOL          ROUTE               KIND       VERDICT  REASON
	// book_flight   POST /book_flight   tool       replay   middleware github.com/mcpdoor/mcpdoor/internal/detect_test.requireToken must run
	// get_weather   POST /get_weather   tool       direct
	// seed_session  POST /seed_session  reserved   -
	// -             POST /{tool}        catch-all  direct
}

// Read a REST server: routes of any method and depth become tools, named
// by a rule that reads well, with the annotations their methods imply.
func ExampleInspect_rest() {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})

	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Get("/metrics", handler)
	r.Route("/api/v1/notes", func(r chi.Router) {
		r.Get("/", handler)
		r.Post("/", handler)
		r.Get("/{id}", handler)
		r.Delete("/{id}", handler)
		r.With(requireToken).Post("/{id}/archive", handler)
	})

	// GET is not among the methods: the server's GET routes stay HTTP-only,
	// but for the one named.
	rep, err := detect.Inspect(r, &detect.Options{REST: &detect.RESTOptions{
		Names: map[string]string{"GET /api/v1/notes/{id}": "read_note"},
	}})
	if err != nil {
		panic(err)
	}
	rep.WriteTable(os.Stdout)
	del := rep.Lookup(http.MethodDelete, "/api/v1/notes/{id}")
	fmt.Printf("%s: params %v, hints %+v\n", del.Name, del.Params, del.Hints)
	// Output:
	// TOOL          ROUTE                            KIND     VERDICT  REASON
	// archive_note  POST /api/v1/notes/{id}/archive  tool     replay   middleware github.com/mcpdoor/mcpdoor/internal/detect_test.requireToken must run
	// create_note   POST /api/v1/notes/              tool     direct
	// delete_note   DELETE /api/v1/notes/{id}        tool     direct
	// read_note     GET /api/v1/notes/{id}           tool     direct
	// -             GET /api/v1/notes/               skipped  -        GET routes are tools only when GET is among mcp.rest.methods, or the route is named in mcp.rest.names
	// -             GET /metrics                     skipped  -        GET routes are tools only when GET is among mcp.rest.methods, or the route is named in mcp.rest.names
	// delete_note: params [{id }], hints {ReadOnly:false Destructive:true Idempotent:true}
}
