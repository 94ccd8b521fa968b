package detect

import (
	"net/http"
	"slices"
	"testing"

	"github.com/go-chi/chi/v5"
)

func TestRoutesAt(t *testing.T) {
	h := func(http.ResponseWriter, *http.Request) {}
	cases := []struct {
		name   string
		routes func(r chi.Router)
		want   []string
	}{
		{"none", func(r chi.Router) { r.Post("/other", h) }, nil},
		{"one method", func(r chi.Router) { r.Get("/admin", h) }, []string{"GET /admin"}},
		{"two methods", func(r chi.Router) { r.Put("/admin", h); r.Delete("/admin", h) }, []string{"DELETE /admin", "PUT /admin"}},
		{"inline middleware", func(r chi.Router) {
			r.With(func(next http.Handler) http.Handler { return next }).Post("/admin", h)
		}, []string{"POST /admin"}},
		{"every method", func(r chi.Router) { r.Handle("/admin", http.HandlerFunc(h)) }, []string{"ANY /admin"}},
		{"a mounted router", func(r chi.Router) { r.Route("/admin", func(a chi.Router) { a.Get("/", h) }) }, []string{"ANY /admin"}},
		{"under a sub-router", func(r chi.Router) { r.Route("/admin", func(a chi.Router) { a.Get("/x", h) }); r.Get("/y/admin", h) }, []string{"ANY /admin"}},
		{"one-segment parameters serve every name", func(r chi.Router) { r.Post("/{tool}", h); r.Get("/{page:[a-z]+}", h) }, nil},
		{"wildcards serve a prefix", func(r chi.Router) { r.Get("/*", h); r.Mount("/static", http.HandlerFunc(h)) }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := chi.NewRouter()
			c.routes(r)
			if got := RoutesAt(r, "/admin"); !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
