package tests

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// routesMux is a mounted router that checks credentials in its own
// ServeHTTP before its routes run. It embeds a chi.Router, so its routes
// can be read through it, but it is not the *chi.Mux chi would call.
type routesMux struct{ chi.Router }

func (m routesMux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer s3cret" {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	m.Router.ServeHTTP(w, r)
}

// mountedWrapperRouter is a rollout server whose /api is a routesMux, its
// session middleware of cfg's manager.
func mountedWrapperRouter(cfg *autoexpose.Config) chi.Router {
	sessions, _ := cfg.UseSessions()
	sub := chi.NewRouter()
	sub.Post("/report", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "the report ran") })
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Mount("/api", routesMux{sub})
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	r.Post("/verify", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	return r
}

// TestMountedWrapperAuth: a route under a mounted handler that checks
// credentials itself gets the same answer over both doors: 401 without the
// credential, the route's answer with it. The call replays through the
// router, where it meets the wrapper's check; dispatch: strict refuses it.
func TestMountedWrapperAuth(t *testing.T) {
	cfg := fixtureConfig(t)
	cfg.MCP.REST = &autoexpose.REST{Names: map[string]string{"POST /api/report": "report"}}
	r := mountedWrapperRouter(&cfg)
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	const (
		mounted = "/api is mounted as a github.com/mcpdoor/mcpdoor/tests.routesMux, not a *chi.Mux: its own ServeHTTP may check a request before the routes run"
		reason  = mounted + ", so every call replays through the router"
	)
	if rows := door.Report(); len(rows) == 0 || rows[0].Tool != "report" || rows[0].Verdict != "replay" || rows[0].Reason != reason {
		t.Errorf("report: %+v\nwant report replay %q", rows, reason)
	}
	s := inProcess(t, r, door)

	hr := s.post("/api/report", `{}`)
	if hr.Status != http.StatusUnauthorized {
		t.Fatalf("HTTP door without the credential: %d %s", hr.Status, hr.Body)
	}
	res := call(t, s.connectSeeded(mcpOptions{}), "report", map[string]any{})
	want := `{"content":[{"type":"text","text":"HTTP 401 from POST /api/report: unauthorized"}],"structuredContent":{"error":{"code":"unauthorized","effect":"not_applied","message":"unauthorized","status":401}},"isError":true}`
	if got := resultJSON(t, res); got != want {
		t.Errorf("MCP door without the credential:\n  %s\nwant\n  %s", got, want)
	}

	hr = s.post("/api/report", `{}`, "Authorization", "Bearer s3cret")
	if hr.Status != http.StatusOK {
		t.Fatalf("HTTP door with the credential: %d %s", hr.Status, hr.Body)
	}
	res = call(t, s.connectSeeded(mcpOptions{header: http.Header{"Authorization": {"Bearer s3cret"}}}), "report", map[string]any{})
	if got := resultJSON(t, res); got != `{"content":[{"type":"text","text":"the report ran"}]}` {
		t.Errorf("MCP door with the credential: %s", got)
	}

	cfg = fixtureConfig(t)
	cfg.MCP.REST = &autoexpose.REST{Names: map[string]string{"POST /api/report": "report"}}
	cfg.MCP.Dispatch = autoexpose.DispatchStrict
	_, err = autoexpose.Install(mountedWrapperRouter(&cfg), cfg)
	if err == nil || !strings.Contains(err.Error(), "mcpdoor: POST /api/report: "+mounted+", and a direct call would skip it; fix: mount the *chi.Mux itself") {
		t.Errorf("strict: %v", err)
	}
}
