package detect

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// routesMux is a mounted router with a check of its own: it embeds a
// chi.Router, so chi.Walk reads the routes through it, but its ServeHTTP
// refuses a request without credentials before any route runs.
type routesMux struct{ chi.Router }

func (m routesMux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer good" {
		http.Error(w, "no", http.StatusUnauthorized)
		return
	}
	m.Router.ServeHTTP(w, r)
}

// gatedMux is routesMux behind a pointer, nested once more.
type gatedMux struct{ chi.Router }

func (m *gatedMux) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.Router.ServeHTTP(w, r) }

// TestInspectOpaqueMount: a route under a mounted handler that is not a
// *chi.Mux itself replays, the reason naming the handler's type and mount;
// dispatch: strict refuses it with a fix; a mounted *chi.Mux (Mount, Route)
// stays direct.
func TestInspectOpaqueMount(t *testing.T) {
	build := func() chi.Router {
		sub := chi.NewRouter()
		sub.Post("/report", ok)
		inner := chi.NewRouter()
		inner.Post("/deep", ok)
		sub.Mount("/inner", &gatedMux{inner})
		plain := chi.NewRouter()
		plain.Post("/open", ok)

		r := chi.NewRouter()
		r.Mount("/api", routesMux{sub})
		r.Mount("/plain", plain)
		r.Route("/grouped", func(r chi.Router) { r.Post("/too", ok) })
		return r
	}
	rest := &RESTOptions{Methods: []string{http.MethodPost}}

	rep := inspect(t, build(), &Options{REST: rest})
	const (
		base = " is mounted as a github.com/mcpdoor/mcpdoor/internal/detect.routesMux, not a *chi.Mux: its own ServeHTTP may check a request before the routes run"
		why  = base + ", so every call replays through the router"
	)
	for pattern, want := range map[string][]string{
		"/api/report":     {"/api" + why},
		"/api/inner/deep": {"/api" + why, "/api/inner is mounted as a *github.com/mcpdoor/mcpdoor/internal/detect.gatedMux, not a *chi.Mux: its own ServeHTTP may check a request before the routes run, so every call replays through the router"},
		"/plain/open":     nil,
		"/grouped/too":    nil,
	} {
		rt := route(t, rep, pattern)
		wantVerdict := Direct
		if want != nil {
			wantVerdict = Replay
		}
		if rt.Verdict != wantVerdict || strings.Join(rt.Reasons, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %v %q\nwant %v %q", pattern, rt.Verdict, rt.Reasons, wantVerdict, want)
		}
	}

	rep = inspect(t, build(), &Options{REST: rest, Mode: Strict})
	rt := route(t, rep, "/api/report")
	wantErr := "mcpdoor: POST /api/report: /api" + base + ", and a direct call would skip it; fix: mount the *chi.Mux itself and make the check a middleware (r.Route(\"/api\", func(r chi.Router) { r.Use(check); ... })), or set mcp.dispatch: auto to replay the route through the router"
	if err := rt.Refusal(); err == nil || err.Error() != wantErr {
		t.Errorf("strict: %v\nwant %s", err, wantErr)
	}
	if rt := route(t, rep, "/plain/open"); rt.Verdict != Direct {
		t.Errorf("strict, a mounted *chi.Mux: %v %q", rt.Verdict, rt.Reasons)
	}

	// The tool-route convention reads a mount at "/" the same way.
	sub := chi.NewRouter()
	sub.Post("/report", ok)
	r := chi.NewRouter()
	r.Mount("/", routesMux{sub})
	if rt := route(t, inspect(t, r, nil), "/report"); rt.Verdict != Replay || len(rt.Reasons) != 1 || rt.Reasons[0] != "/"+why {
		t.Errorf("POST /report under Mount(\"/\"): %v %q", rt.Verdict, rt.Reasons)
	}
}
