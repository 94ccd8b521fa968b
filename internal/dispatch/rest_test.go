package dispatch_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/dispatch"
)

// routeView is what a handler can see of its routing: every URL parameter
// and path value by name, the request's pattern and chi's route pattern.
type routeView struct {
	Method, Path, RawQuery string
	Params                 map[string]string
	PathValues             map[string]string
	Pattern, RoutePattern  string
	Body                   string
}

// viewRoute is an endpoint that stores what it saw of the route in *got,
// for the parameter names given, and answers 200 "ok".
func viewRoute(got *routeView, names ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		v := routeView{
			Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery,
			Params: map[string]string{}, PathValues: map[string]string{},
			Pattern: r.Pattern, RoutePattern: chi.RouteContext(r.Context()).RoutePattern(),
			Body: string(body),
		}
		rctx := chi.RouteContext(r.Context())
		for i, k := range rctx.URLParams.Keys {
			v.Params[k] = rctx.URLParams.Values[i]
		}
		for _, n := range append(names, "*") {
			v.PathValues[n] = r.PathValue(n)
		}
		*got = v
		io.WriteString(w, "ok")
	}
}

// restShape is one way a REST route can sit in a chi router.
type restShape struct {
	name    string
	mount   func(r chi.Router, method string, h http.HandlerFunc)
	pattern string // as chi.Walk reports it
	values  map[string]string
	path    string // the request path for values
}

var restShapes = []restShape{
	{"top level", func(r chi.Router, m string, h http.HandlerFunc) { r.MethodFunc(m, "/notes/{id}", h) },
		"/notes/{id}", map[string]string{"id": "42"}, "/notes/42"},
	{"Route with a / route", func(r chi.Router, m string, h http.HandlerFunc) {
		r.Route("/api/notes/{id}", func(r chi.Router) { r.MethodFunc(m, "/", h) })
	}, "/api/notes/{id}/", map[string]string{"id": "42"}, "/api/notes/42/"},
	{"Route, nested", func(r chi.Router, m string, h http.HandlerFunc) {
		r.Route("/api", func(r chi.Router) {
			r.Route("/notes", func(r chi.Router) { r.MethodFunc(m, "/{id}/archive", h) })
		})
	}, "/api/notes/{id}/archive", map[string]string{"id": "42"}, "/api/notes/42/archive"},
	{"mounted router, regexp", func(r chi.Router, m string, h http.HandlerFunc) {
		admin := chi.NewRouter()
		admin.MethodFunc(m, "/users/{user:[a-z]+}/notes/{id:[0-9]+}", h)
		r.Mount("/api/admin", admin)
	}, "/api/admin/users/{user:[a-z]+}/notes/{id:[0-9]+}", map[string]string{"user": "ann", "id": "7"}, "/api/admin/users/ann/notes/7"},
	{"two parameters in a segment", func(r chi.Router, m string, h http.HandlerFunc) { r.MethodFunc(m, "/files/{name}.{ext}", h) },
		"/files/{name}.{ext}", map[string]string{"name": "report", "ext": "pdf"}, "/files/report.pdf"},
}

// names returns the shape's parameter names.
func (sh restShape) names() []string {
	var out []string
	for k := range sh.values {
		out = append(out, k)
	}
	return out
}

// endpointFor returns the endpoint chi.Walk reports for method and
// pattern.
func endpointFor(t testing.TB, r chi.Routes, method, pattern string) http.Handler {
	t.Helper()
	var endpoint http.Handler
	chi.Walk(r, func(m, route string, h http.Handler, _ ...func(http.Handler) http.Handler) error {
		if m == method && route == pattern {
			endpoint = h
		}
		return nil
	})
	if endpoint == nil {
		t.Fatalf("chi.Walk: no %s %s", method, pattern)
	}
	return endpoint
}

// TestDirectMatchesRouter: a route dispatched direct shows its handler
// the URL parameters, path values and patterns the router shows it, for
// every way a REST route can sit in a router.
func TestDirectMatchesRouter(t *testing.T) {
	for _, sh := range restShapes {
		t.Run(sh.name, func(t *testing.T) {
			var got routeView
			r := chi.NewRouter()
			sh.mount(r, http.MethodPost, viewRoute(&got, sh.names()...))
			call := &dispatch.Call{Path: sh.path, Body: []byte(`{"a":1}`)}
			if resp := dispatch.NewReplay(r, 0).Dispatch(context.Background(), call); resp.Status != http.StatusOK {
				t.Fatalf("replay: %d %q", resp.Status, resp.Body)
			}
			viaRouter := got
			direct := dispatch.NewDirect(endpointFor(t, r, http.MethodPost, sh.pattern), sh.pattern, r, 0)
			if resp := direct.Dispatch(context.Background(), call); resp.Status != http.StatusOK {
				t.Fatalf("direct: %d %q", resp.Status, resp.Body)
			}
			if fmt.Sprint(got) != fmt.Sprint(viaRouter) {
				t.Errorf("direct and the router disagree:\ndirect %+v\nrouter %+v", got, viaRouter)
			}
			// A Call a Template filled, whose routing direct takes from
			// it, is no different.
			tpl, err := dispatch.NewTemplate(http.MethodPost, sh.pattern, r)
			if err != nil {
				t.Fatal(err)
			}
			filled := &dispatch.Call{Body: []byte(`{"a":1}`)}
			if err := tpl.Fill(filled, sh.values, nil); err != nil {
				t.Fatal(err)
			}
			got = routeView{}
			for range 2 { // a filled Call may be dispatched again
				if resp := direct.Dispatch(context.Background(), filled); resp.Status != http.StatusOK {
					t.Fatalf("direct, filled: %d %q", resp.Status, resp.Body)
				}
				if fmt.Sprint(got) != fmt.Sprint(viaRouter) {
					t.Errorf("direct from a filled Call and the router disagree:\ndirect %+v\nrouter %+v", got, viaRouter)
				}
			}
		})
	}
}
