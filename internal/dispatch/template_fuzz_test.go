package dispatch_test

import (
	"bufio"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/mcpdoor/mcpdoor/internal/dispatch"
)

// FuzzTemplate: whatever the value of {id} or {id:[0-9]+}, the request URI
// Expand builds, read as net/http reads a request line and served by a
// real chi router, reaches the route with the very same id; or Expand
// refuses the value. It never reaches another route. The seed corpus is in
// testdata/fuzz/FuzzTemplate.
func FuzzTemplate(f *testing.F) {
	for _, v := range hostileValues {
		f.Add(v, false)
		f.Add(v, true)
	}
	var seen struct{ pattern, id string }
	record := func(w http.ResponseWriter, r *http.Request) {
		seen.pattern, seen.id = chi.RouteContext(r.Context()).RoutePattern(), chi.URLParam(r, "id")
	}
	other := func(w http.ResponseWriter, r *http.Request) {
		seen.pattern, seen.id = "other: "+chi.RouteContext(r.Context()).RoutePattern(), ""
	}
	r := chi.NewRouter()
	r.Use(middleware.CleanPath)
	r.Route("/api", func(r chi.Router) {
		r.Get("/notes/{id}", record)
		r.Get("/notes/search", other)
		r.Get("/notes/{id}/raw", other)
		r.Get("/nums/{id:[0-9]+}", record)
		r.Get("/nums/latest", other)
		r.Get("/*", other)
	})
	r.Get("/admin", other)
	plain, err := dispatch.NewTemplate(http.MethodGet, "/api/notes/{id}", r)
	if err != nil {
		f.Fatal(err)
	}
	numeric, err := dispatch.NewTemplate(http.MethodGet, "/api/nums/{id:[0-9]+}", r)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, id string, regexp bool) {
		tpl, want := plain, "/api/notes/{id}"
		if regexp {
			tpl, want = numeric, "/api/nums/{id:[0-9]+}"
		}
		uri, err := tpl.Expand(map[string]string{"id": id}, nil)
		if err != nil {
			if _, ok := err.(*dispatch.ParamError); !ok {
				t.Fatalf("Expand(%q): %T %v, want a *ParamError", id, err, err)
			}
			return
		}
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET " + uri + " HTTP/1.1\r\nHost: localhost\r\n\r\n")))
		if err != nil {
			t.Fatalf("Expand(%q) = %q, which net/http does not read: %v", id, uri, err)
		}
		seen.pattern, seen.id = "", ""
		r.ServeHTTP(discard{}, req)
		if seen.pattern != want || seen.id != id {
			t.Fatalf("Expand(%q) = %q reached %q with id %q; want %s with the same id", id, uri, seen.pattern, seen.id, want)
		}
	})
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}
