package tests

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// requireBearer is an auth middleware the detector does not know: routes
// behind it replay through the router.
func requireBearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// TestReplayRunsAuth: a replayed call runs the route's auth middleware. It
// gets the 401 the HTTP door gives without the forwarded credential, and 200
// with it.
func TestReplayRunsAuth(t *testing.T) {
	cfg := fixtureConfig(t)
	sessions, _ := cfg.UseSessions()
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.With(requireBearer).Method(http.MethodPost, "/secret", autoexpose.Handler(func(_ context.Context, r *http.Request, in cityIn) (cityOut, error) {
		return cityOut{Weather: "classified weather in " + in.City}, nil
	}))
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	r.Post("/verify", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := door.Report()[0]; got.Tool != "secret" || got.Verdict != "replay" ||
		got.Reason != "middleware github.com/mcpdoor/mcpdoor/tests.requireBearer must run" {
		t.Fatalf("report row %+v", got)
	}
	s := inProcess(t, r, door)

	t.Run("without the credential", func(t *testing.T) {
		hr := s.post("/secret", `{"city":"Paris"}`)
		if hr.Status != http.StatusUnauthorized {
			t.Fatalf("HTTP door: %d", hr.Status)
		}
		res := call(t, s.connectSeeded(mcpOptions{}), "secret", map[string]any{"city": "Paris"})
		sameJSON(t, res, expectedResult(t, "secret", hr, "unauthorized", "not_applied", true))
	})
	t.Run("with the credential", func(t *testing.T) {
		hr := s.post("/secret", `{"city":"Paris"}`, "Authorization", "Bearer s3cret")
		if hr.Status != http.StatusOK {
			t.Fatalf("HTTP door: %d", hr.Status)
		}
		cs := s.connectSeeded(mcpOptions{header: http.Header{"Authorization": {"Bearer s3cret"}}})
		res := call(t, cs, "secret", map[string]any{"city": "Paris"})
		sameJSON(t, res, expectedResult(t, "secret", hr, "", "", true))
	})
	t.Run("a wrong credential", func(t *testing.T) {
		cs := s.connectSeeded(mcpOptions{header: http.Header{"Authorization": {"Bearer guess"}}})
		res := call(t, cs, "secret", map[string]any{"city": "Paris"})
		want := `{"_meta":{"mcpdoor/error":{"error":{"code":"unauthorized","message":"unauthorized","status":401,"effect":"not_applied"}}},"content":[{"type":"text","text":"HTTP 401 from POST /secret: unauthorized"}],"isError":true}`
		if got := resultJSON(t, res); got != want {
			t.Fatalf("got\n  %s\nwant\n  %s", got, want)
		}
	})
	t.Run("forward_headers: [] forwards nothing", func(t *testing.T) {
		cfg := fixtureConfig(t)
		cfg.MCP.ForwardHeaders = []string{}
		r2 := chi.NewRouter()
		r2.With(requireBearer).Post("/secret", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
		r2.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
		r2.Post("/verify", func(w http.ResponseWriter, r *http.Request) {})
		door, err := autoexpose.Install(r2, cfg)
		if err != nil {
			t.Fatal(err)
		}
		s2 := inProcess(t, r2, door)
		cs := s2.connectSeeded(mcpOptions{header: http.Header{"Authorization": {"Bearer s3cret"}}})
		// The 401's text names the header the call carried and the door
		// did not forward.
		if got := resultJSON(t, call(t, cs, "secret", nil)); got != `{"content":[{"type":"text","text":"HTTP 401 from POST /secret: unauthorized (the call carried the header Authorization, which the door does not forward to the route; to send it, list it in mcp.forward_headers)"}],"structuredContent":{"error":{"code":"unauthorized","effect":"not_applied","message":"unauthorized","status":401}},"isError":true}` {
			t.Errorf("got %s", got)
		}
	})
}
