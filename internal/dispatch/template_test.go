package dispatch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/mcpdoor/mcpdoor/internal/dispatch"
)

// TestTemplateExpand: the request URI for each value, or the refusal.
func TestTemplateExpand(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		values  map[string]string
		query   url.Values
		want    string
		err     string
	}{
		{"/api/notes/{id}", map[string]string{"id": "42"}, nil, "/api/notes/42", ""},
		{"/api/notes/{id}/archive", map[string]string{"id": "42", "other": "x"}, nil, "/api/notes/42/archive", ""},
		{"/api/notes/{id}/", map[string]string{"id": "42"}, nil, "/api/notes/42/", ""},
		{"/api/notes/", nil, url.Values{"tag": {"a b", "c&d"}, "limit": {"5"}}, "/api/notes/?limit=5&tag=a+b&tag=c%26d", ""},
		{"/api/notes/{id}", map[string]string{"id": "42"}, url.Values{}, "/api/notes/42", ""},
		{"/u/{user}/n/{id:[0-9]+}", map[string]string{"user": "ann", "id": "7"}, nil, "/u/ann/n/7", ""},
		{"/files/{name}.{ext}", map[string]string{"name": "report", "ext": "pdf"}, nil, "/files/report.pdf", ""},
		// The escaping rule: as net/url escapes a whole path.
		{"/n/{id}", map[string]string{"id": "a b"}, nil, "/n/a%20b", ""},
		{"/n/{id}", map[string]string{"id": "%2F"}, nil, "/n/%252F", ""},
		{"/n/{id}", map[string]string{"id": "%252F"}, nil, "/n/%25252F", ""},
		{"/n/{id}", map[string]string{"id": "a?b#c"}, nil, "/n/a%3Fb%23c", ""},
		{"/n/{id}", map[string]string{"id": "a;b,c:d@e&f=g+h$"}, nil, "/n/a;b,c:d@e&f=g+h$", ""},
		{"/n/{id}", map[string]string{"id": "caf\u00e9"}, nil, "/n/caf%C3%A9", ""},
		{"/n/{id}", map[string]string{"id": "..."}, nil, "/n/...", ""},
		{"/n/{id}", map[string]string{"id": "a\x00b\x7f"}, nil, "/n/a%00b%7F", ""},
		// Refusals.
		{"/n/{id}", map[string]string{}, nil, "", `path parameter "id" is missing`},
		{"/n/{id}", map[string]string{"id": ""}, nil, "", `path parameter "id" is empty`},
		{"/n/{id}", map[string]string{"id": "a/b"}, nil, "", `path parameter "id" is "a/b": a value cannot contain "/"`},
		{"/n/{id}", map[string]string{"id": "/"}, nil, "", `path parameter "id" is "/": a value cannot contain "/"`},
		{"/n/{id}", map[string]string{"id": ".."}, nil, "", `path parameter "id" is "..": a value cannot be "." or ".."`},
		{"/n/{id}", map[string]string{"id": "."}, nil, "", `path parameter "id" is ".": a value cannot be "." or ".."`},
		{"/n/{id:[0-9]+}", map[string]string{"id": "4a"}, nil, "", `path parameter "id" is "4a": it does not match ^[0-9]+$`},
		{"/files/{name}.{ext}", map[string]string{"name": "a.b", "ext": "pdf"}, nil, "", `path parameter "name" is "a.b": a value cannot contain '.', which ends it in /files/{name}.{ext}`},
	} {
		t.Run(fmt.Sprint(tc.pattern, tc.values, tc.query), func(t *testing.T) {
			tpl, err := dispatch.NewTemplate(http.MethodGet, tc.pattern, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tpl.Expand(tc.values, tc.query)
			if tc.err != "" {
				var pe *dispatch.ParamError
				if err == nil || err.Error() != tc.err || !errors.As(err, &pe) {
					t.Fatalf("Expand = %q, %v; want the *ParamError %s", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Expand = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestNewTemplateErrors(t *testing.T) {
	for _, tc := range []struct{ pattern, err string }{
		{"/static/*", "route GET /static/*: the pattern ends in a * wildcard"},
		{"notes", `route GET notes: pattern "notes" does not begin with /`},
		{"/n/{id:[}", "route GET /n/{id:[}: parameter \"id\": error parsing regexp: missing closing ]: `[$`"},
	} {
		if _, err := dispatch.NewTemplate(http.MethodGet, tc.pattern, nil); err == nil || err.Error() != tc.err {
			t.Errorf("NewTemplate(%s) error %v, want %s", tc.pattern, err, tc.err)
		}
	}
}

// hostileRouter is a notes API whose routes a value could reach by
// accident: a static sibling of {id}, a route below it, a CleanPath that
// would resolve "..", and a catch-all under the prefix.
func hostileRouter(got *routeView) chi.Router {
	r := chi.NewRouter()
	r.Use(middleware.CleanPath)
	other := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			*got = routeView{Pattern: "OTHER " + name}
			w.Write([]byte("other route " + name))
		}
	}
	r.Route("/api/notes", func(r chi.Router) {
		r.Get("/", other("list"))
		r.Get("/search", other("search"))
		r.Get("/{id}", viewRoute(got, "id"))
		r.Get("/{id}/raw", other("raw"))
	})
	r.Get("/api/admin", other("admin"))
	r.Get("/*", other("everything"))
	return r
}

// hostileValues are path parameter values that try to reach another route.
var hostileValues = []string{
	"..", ".", "/", "a/b", "../admin", "..%2Fadmin", "%2F", "%2f", "%252F", "", " ", "search",
	"42/raw", "42?x=1", "42#frag", "42;x", "%", "%zz", "caf\u00e9", "\u202e", "\x00", "a\nb",
	"./42", "%2E%2E", "\\..\\admin", "?", "#", ";", "*", "{id}",
}

// TestTemplateHostileValues: every hostile value either reaches GET
// /api/notes/{id} with the very same id, through direct and replayed
// dispatch, or is refused with a *ParamError; none reaches another route.
func TestTemplateHostileValues(t *testing.T) {
	var got routeView
	r := hostileRouter(&got)
	const pattern = "/api/notes/{id}"
	tpl, err := dispatch.NewTemplate(http.MethodGet, pattern, r)
	if err != nil {
		t.Fatal(err)
	}
	dispatchers := map[string]dispatch.Dispatcher{
		"direct": dispatch.NewDirect(endpointFor(t, r, http.MethodGet, pattern), pattern, r, 0),
		"replay": dispatch.NewReplay(r, 0),
	}
	refused := map[string]string{
		"..":       `path parameter "id" is "..": a value cannot be "." or ".."`,
		".":        `path parameter "id" is ".": a value cannot be "." or ".."`,
		"/":        `path parameter "id" is "/": a value cannot contain "/"`,
		"a/b":      `path parameter "id" is "a/b": a value cannot contain "/"`,
		"../admin": `path parameter "id" is "../admin": a value cannot contain "/"`,
		"":         `path parameter "id" is empty`,
		"search":   `path parameter "id" is "search": /api/notes/search is the path of another route, GET /api/notes/search`,
		"42/raw":   `path parameter "id" is "42/raw": a value cannot contain "/"`,
		"./42":     `path parameter "id" is "./42": a value cannot contain "/"`,
	}
	for _, v := range hostileValues {
		uri, err := tpl.Expand(map[string]string{"id": v}, nil)
		if want, ok := refused[v]; ok {
			if err == nil || err.Error() != want {
				t.Errorf("Expand(%q) = %q, %v; want the refusal %s", v, uri, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("Expand(%q): %v; want a path", v, err)
			continue
		}
		for name, d := range dispatchers {
			got = routeView{}
			resp := d.Dispatch(context.Background(), &dispatch.Call{Method: http.MethodGet, Path: uri})
			if resp.Status != http.StatusOK || got.Pattern != pattern || got.Params["id"] != v || got.PathValues["id"] != v {
				t.Errorf("%s: id %q as %s: %d %q, handler saw pattern %q, id %q, path value %q; want 200 at %s with the same id",
					name, v, uri, resp.Status, resp.Body, got.Pattern, got.Params["id"], got.PathValues["id"], pattern)
			}
		}
	}
}

// TestRESTDispatch: a REST call of each method, direct and replayed,
// reaches its route with its method, values and query, and the handler
// sees the same route context either way.
func TestRESTDispatch(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodPost} {
		for _, sh := range restShapes {
			t.Run(method+"/"+sh.name, func(t *testing.T) {
				var got routeView
				r := chi.NewRouter()
				sh.mount(r, method, viewRoute(&got, sh.names()...))
				tpl, err := dispatch.NewTemplate(method, sh.pattern, r)
				if err != nil {
					t.Fatal(err)
				}
				values := sh.values
				uri, err := tpl.Expand(values, url.Values{"limit": {"5"}, "tag": {"a b"}})
				if err != nil {
					t.Fatal(err)
				}
				call := &dispatch.Call{Method: method, Path: uri, Body: []byte(`{"text":"hi"}`)}
				if resp := dispatch.NewReplay(r, 0).Dispatch(context.Background(), call); resp.Status != http.StatusOK {
					t.Fatalf("replay %s: %d %q", uri, resp.Status, resp.Body)
				}
				viaRouter := got
				if viaRouter.Method != method || viaRouter.RawQuery != "limit=5&tag=a+b" || viaRouter.Body != `{"text":"hi"}` {
					t.Errorf("router: method %s, query %q, body %q", viaRouter.Method, viaRouter.RawQuery, viaRouter.Body)
				}
				for p, v := range values {
					if viaRouter.Params[p] != v || viaRouter.PathValues[p] != v {
						t.Errorf("router: %s = %q, path value %q; want %q", p, viaRouter.Params[p], viaRouter.PathValues[p], v)
					}
				}
				direct := dispatch.NewDirect(endpointFor(t, r, method, sh.pattern), sh.pattern, r, 0)
				if resp := direct.Dispatch(context.Background(), call); resp.Status != http.StatusOK {
					t.Fatalf("direct %s: %d %q", uri, resp.Status, resp.Body)
				}
				if fmt.Sprint(got) != fmt.Sprint(viaRouter) {
					t.Errorf("direct and the router disagree:\ndirect %+v\nrouter %+v", got, viaRouter)
				}
			})
		}
	}
}

// TestDirectRefusesOtherRoute: a direct dispatcher does not serve a call
// whose path the router routes elsewhere.
func TestDirectRefusesOtherRoute(t *testing.T) {
	var got routeView
	r := hostileRouter(&got)
	d := dispatch.NewDirect(endpointFor(t, r, http.MethodGet, "/api/notes/{id}"), "/api/notes/{id}", r, 0)
	resp := d.Dispatch(context.Background(), &dispatch.Call{Method: http.MethodGet, Path: "/api/notes/search"})
	const want = "mcpdoor: GET /api/notes/search is not routed to GET /api/notes/{id}"
	if resp.Status != http.StatusBadRequest || string(resp.Body) != want || got.Pattern != "" {
		t.Errorf("Dispatch = %d %q (handler saw %q), want 400 %q and no handler", resp.Status, resp.Body, got.Pattern, want)
	}
}

// TestTemplateRegexpWithRouter: with the router, a value its regexp does
// not match is refused with the same words as without.
func TestTemplateRegexpWithRouter(t *testing.T) {
	r := chi.NewRouter()
	r.Get("/n/{id:[0-9]+}", func(http.ResponseWriter, *http.Request) {})
	r.Get("/n/{slug:[a-z]+}", func(http.ResponseWriter, *http.Request) {})
	tpl, err := dispatch.NewTemplate(http.MethodGet, "/n/{id:[0-9]+}", r)
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]string{
		"4a":  `path parameter "id" is "4a": it does not match ^[0-9]+$`,
		"abc": `path parameter "id" is "abc": it does not match ^[0-9]+$`,
		"42":  "",
	} {
		_, err := tpl.Expand(map[string]string{"id": v}, nil)
		if got := fmt.Sprint(err); want != "" && got != want || want == "" && err != nil {
			t.Errorf("Expand(%q): %v, want %q", v, err, want)
		}
	}
}
