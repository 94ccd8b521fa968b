package detector_test

import (
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/mcpdoor/mcpdoor/detector"
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
	rep, err := detector.Inspect(r, &detector.Options{Reserved: []string{"seed_session"}})
	if err != nil {
		panic(err)
	}
	rep.WriteTable(os.Stdout)
	// Output:
	// TOOL          ROUTE               KIND       VERDICT  REASON
	// book_flight   POST /book_flight   tool       replay   middleware github.com/mcpdoor/mcpdoor/detector_test.requireToken must run
	// get_weather   POST /get_weather   tool       direct
	// seed_session  POST /seed_session  reserved   -
	// -             POST /{tool}        catch-all  direct
}
