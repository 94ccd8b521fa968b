package rollout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// mark is a middleware that appends its name to the X-Chain response
// header, so a response shows which middlewares ran, in order.
func mark(name string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("X-Chain", name)
			next.ServeHTTP(w, r)
		})
	}
}

// echoRoute answers with everything a handler can read about how it was
// routed.
func echoRoute(w http.ResponseWriter, r *http.Request) {
	rctx := chi.RouteContext(r.Context())
	params := map[string]string{}
	for i, k := range rctx.URLParams.Keys {
		params[k] = rctx.URLParams.Values[i]
	}
	pathValues := map[string]string{}
	for _, k := range append(rctx.URLParams.Keys, "rollout_id", "*") {
		pathValues[k] = r.PathValue(k)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"method":        r.Method,
		"path":          r.URL.Path,
		"raw_path":      r.URL.RawPath,
		"request_uri":   r.RequestURI,
		"query":         r.URL.RawQuery,
		"pattern":       r.Pattern,
		"route_pattern": rctx.RoutePattern(),
		"route_path":    rctx.RoutePath,
		"route_method":  rctx.RouteMethod,
		"url_params":    params,
		"path_values":   pathValues,
	})
}

// shapesRouter has a route of every shape chi offers, behind root
// middlewares that count their calls and would refuse to be re-entered
// (Throttle(1)).
func shapesRouter(calls *atomic.Int64, custom bool) chi.Router {
	r := chi.NewRouter()
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			next.ServeHTTP(w, r)
		})
	})
	r.Use(middleware.Throttle(1))
	r.Use(middleware.StripSlashes)
	r.Use(mark("root"))
	if custom {
		r.NotFound(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no such page: "+r.URL.Path, http.StatusNotFound)
		})
		r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "not with "+r.Method, http.StatusMethodNotAllowed)
		})
	}
	r.Get("/page/{id}", echoRoute)
	r.Post("/items/{id:[0-9]+}", echoRoute)
	r.With(mark("with")).Post("/guarded", echoRoute)
	r.Group(func(g chi.Router) {
		g.Use(mark("group"))
		g.Put("/grouped", echoRoute)
	})
	r.Route("/api", func(api chi.Router) {
		api.Use(mark("api"))
		api.Get("/", echoRoute)
		api.Post("/users/{uid}", echoRoute)
		api.Route("/v2", func(v2 chi.Router) {
			v2.Use(mark("v2"))
			v2.With(mark("v2-with")).Delete("/things/{tid}", echoRoute)
		})
	})
	admin := chi.NewRouter()
	admin.Use(mark("admin"))
	admin.Get("/", echoRoute)
	admin.Get("/{x}", echoRoute)
	r.With(mark("mount-with")).Mount("/admin", admin)
	r.Route("/t/{tenant:[a-z]{2}}", func(t chi.Router) { t.Get("/items/{n}", echoRoute) })
	r.Mount("/static", http.StripPrefix("/static", http.HandlerFunc(echoRoute)))
	r.Handle("/any", http.HandlerFunc(echoRoute))
	r.Get("/files/*", echoRoute)
	r.Post("/seed_session", echoRoute)
	r.Post("/verify", echoRoute)
	return r
}

// stripped serves h behind StripPrefix, as what a server serves outermost.
func stripped(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if unprefixed, ok := StripPrefix(r); ok {
			r = unprefixed
		}
		h.ServeHTTP(w, r)
	})
}

// TestRolloutPrefixRoutes: behind StripPrefix, /ng-rollout/<id>/<path> is
// served exactly as /<path> — the same route, middlewares, URL
// parameters, pattern, 404 and 405 — and the router's own middlewares run
// once for it, on the bare path.
func TestRolloutPrefixRoutes(t *testing.T) {
	requests := []struct{ method, path string }{
		{"GET", "/page/7"},
		{"GET", "/page/7?q=1&r=%2F"},
		{"POST", "/items/42"},
		{"POST", "/items/abc"},
		{"POST", "/guarded"},
		{"POST", "/guarded/"},
		{"PUT", "/grouped"},
		{"GET", "/api"},
		{"GET", "/api/"},
		{"POST", "/api/users/u1"},
		{"POST", "/api/users/u%2F1"},
		{"DELETE", "/api/v2/things/t9"},
		{"GET", "/api/v2/things/t9"},
		{"GET", "/admin"},
		{"GET", "/admin/"},
		{"GET", "/admin/7"},
		{"POST", "/admin/7"},
		{"GET", "/admin/7/8"},
		{"GET", "/t/ab/items/3"},
		{"GET", "/t/abc/items/3"},
		{"GET", "/static"},
		{"GET", "/static/css/a.css"},
		{"PATCH", "/any"},
		{"GET", "/files/a/b/c.txt"},
		{"GET", "/nowhere"},
		{"POST", "/page/7"},
		{"GET", "/mcp"},
	}
	for _, custom := range []bool{false, true} {
		t.Run(fmt.Sprintf("custom 404 and 405: %v", custom), func(t *testing.T) {
			var calls atomic.Int64
			srv := httptest.NewServer(stripped(shapesRouter(&calls, custom)))
			defer srv.Close()
			for _, q := range requests {
				before := calls.Load()
				want := fetch(t, srv, q.method, q.path)
				if n := calls.Load() - before; n != 1 {
					t.Fatalf("%s %s: root middleware ran %d times", q.method, q.path, n)
				}
				before = calls.Load()
				got := fetch(t, srv, q.method, "/ng-rollout/r-1"+q.path)
				if n := calls.Load() - before; n != 1 {
					t.Errorf("%s /ng-rollout/r-1%s: root middleware ran %d times, want 1", q.method, q.path, n)
				}
				if got != want {
					t.Errorf("%s %s under the prefix:\n%s\nunprefixed:\n%s", q.method, q.path, got, want)
				}
			}
		})
	}
}

// fetch sends a request and renders the response: status, headers but
// Date, body. The request URI in an echoed body loses the prefix, as the
// handler must see it.
func fetch(t *testing.T, srv *httptest.Server, method, path string) string {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	resp.Header.Del("Date")
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d\n", resp.StatusCode)
	resp.Header.Write(&b)
	b.WriteString("\n")
	b.Write(body)
	return b.String()
}

// TestPrefixRouteID: chi's PrefixRoute pattern lets a path through with a
// rollout_id exactly when splitRollout finds a valid id in its routing
// path, the same id (chi anchors the pattern's regexp); the only other
// paths it lets through have an empty id (/ng-rollout//x), which a route
// of the pattern must treat as no rollout's.
func TestPrefixRouteID(t *testing.T) {
	r := chi.NewRouter()
	var reached bool
	var gotID string
	r.Handle(PrefixRoute, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached, gotID = true, chi.URLParam(r, "rollout_id")
	}))
	for _, path := range []string{
		"/ng-rollout/r1/verify", "/ng-rollout/r1/", "/ng-rollout/r1", "/ng-rollout/r1//x",
		"/ng-rollout/a.b_c-d/e?x=1", "/ng-rollout/0/x", "/ng-rollout/A_-./x",
		"/ng-rollout//x", "/ng-rollout/", "/ng-rollout", "/ng-rollout//", "/ng-rollout///", "/ng-rollout//x/",
		"/ng-rollout/-x/y", "/ng-rollout/.x/y", "/ng-rollout/_x/y", "/ng-rollout/../x",
		"/ng-rollout/a%2Fb/x", "/ng-rollout/a%20b/x", "/ng-rollout/x%41/y", "/ng-rollout/%C3%A9/y",
		"/ng-rollout/a:b/x", "/ng-rollout/a~b/x", "/ng-rollout/r1/ng-rollout/r2/x",
	} {
		reached, gotID = false, ""
		req := httptest.NewRequest("GET", path, nil)
		r.ServeHTTP(httptest.NewRecorder(), req)
		routing := req.URL.RawPath
		if routing == "" {
			routing = req.URL.Path
		}
		id, _, ok := splitRollout(routing)
		if ok && (!reached || gotID != id) || !ok && reached && gotID != "" {
			t.Errorf("%s: chi reached the prefix route: %v, id %q; splitRollout: %v, %q", path, reached, gotID, ok, id)
		}
	}
}
