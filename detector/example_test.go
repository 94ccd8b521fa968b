package detector_test

import (
	"fmt"
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

// Print what mcpdoor would serve of a chi router over MCP, and how.
func ExampleInspect() {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})

	r := chi.NewRouter()
	r.Use(middleware.Logger, middleware.Recoverer)
	r.Post("/get_weather", handler)
	r.With(requireToken).Post("/book_flight", handler)
	r.Post("/{tool}", handler)
	r.Post("/seed_session", handler) // NeMo Gym's rollout routes: never tools
	r.Post("/verify", handler)

	rows, err := detector.Inspect(r, nil)
	detector.WriteTable(os.Stdout, rows)
	fmt.Println(err)
	// Output:
	// TOOL         ROUTE               VERDICT    SCHEMA  REASON
	// book_flight  POST /book_flight   replay     -       middleware github.com/mcpdoor/mcpdoor/detector_test.requireToken must run
	// get_weather  POST /get_weather   direct     -
	// -            POST /seed_session  reserved   -
	// -            POST /verify        reserved   -
	// -            POST /{tool}        catch-all  -
	// <nil>
}
