package tests

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// adminOnly is auth in a handler wrapped around the router, the way
// http.ListenAndServe(addr, adminOnly(r)) serves it: POST /delete_all needs
// the admin's credential; everything else, /mcp included, passes.
func adminOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/delete_all" && r.Header.Get("Authorization") != "Bearer admin" {
			http.Error(w, "admin only", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// outerServer builds the fixture's kind of server: a router with a
// /delete_all tool, behind adminOnly(r); outer says whether the config
// names that handler as Config.Outer, and the server serves the Door (which
// serves it), or else adminOnly(r) itself.
func outerServer(t *testing.T, outer bool, dispatch string) (*server, *autoexpose.Door) {
	cfg := fixtureConfig(t)
	cfg.MCP.Dispatch = autoexpose.Dispatch(dispatch)
	sessions, _ := cfg.UseSessions()
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Method(http.MethodPost, "/delete_all", autoexpose.Handler(func(context.Context, *http.Request, struct{}) (cityOut, error) {
		return cityOut{Weather: "everything deleted"}, nil
	}))
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	r.Post("/verify", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	if outer {
		cfg.Outer = adminOnly
	}
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if outer {
		return inProcess(t, door, door), door
	}
	return inProcess(t, adminOnly(r), door), door
}

// TestOuterHandler: with Config.Outer naming the handler the server serves,
// every tool call replays through it, so its auth holds over MCP as over
// HTTP: without the forwarded credential a call gets the 401, with it the
// tool's answer.
func TestOuterHandler(t *testing.T) {
	for _, c := range []struct {
		dispatch string
		reasons  []string
	}{
		// The route's only middleware is the session's: it would go direct.
		{"auto", []string{"Config.Outer: calls replay through the handler the server serves"}},
		{"replay", []string{"dispatch: replay", "Config.Outer: calls replay through the handler the server serves"}},
	} {
		t.Run("dispatch "+c.dispatch, func(t *testing.T) {
			s, door := outerServer(t, true, c.dispatch)
			got := door.Report()[0]
			if got.Tool != "delete_all" || got.Verdict != "replay" {
				t.Errorf("report row %+v, want delete_all replayed", got)
			}
			if diff := cmp.Diff(strings.Join(c.reasons, "; "), got.Reason); diff != "" {
				t.Errorf("reason (-want +got):\n%s", diff)
			}
			t.Run("without the credential", func(t *testing.T) {
				hr := s.post("/delete_all", `{}`)
				if hr.Status != http.StatusUnauthorized {
					t.Fatalf("HTTP door: %d %s", hr.Status, hr.Body)
				}
				res := call(t, s.connectSeeded(mcpOptions{}), "delete_all", nil)
				want := `{"_meta":{"mcpdoor/error":{"error":{"code":"unauthorized","message":"admin only","status":401,"effect":"not_applied"}}},"content":[{"type":"text","text":"HTTP 401 from POST /delete_all: admin only"}],"isError":true}`
				if got := resultJSON(t, res); got != want {
					t.Errorf("got\n  %s\nwant\n  %s", got, want)
				}
			})
			t.Run("with the credential", func(t *testing.T) {
				cs := s.connectSeeded(mcpOptions{header: http.Header{"Authorization": {"Bearer admin"}}})
				res := call(t, cs, "delete_all", nil)
				if got := resultJSON(t, res); got != `{"content":[{"type":"text","text":"{\"weather\":\"everything deleted\"}"}],"structuredContent":{"weather":"everything deleted"}}` {
					t.Errorf("got %s", got)
				}
			})
		})
	}
}

// TestOuterHandlerUnseen: without Config.Outer the door sees the router
// only, as the README says: a handler wrapped around it does not hold over
// MCP, even with dispatch: replay.
func TestOuterHandlerUnseen(t *testing.T) {
	s, _ := outerServer(t, false, "replay")
	if hr := s.post("/delete_all", `{}`); hr.Status != http.StatusUnauthorized {
		t.Fatalf("HTTP door: %d %s", hr.Status, hr.Body)
	}
	res := call(t, s.connectSeeded(mcpOptions{}), "delete_all", nil)
	if res.IsError {
		t.Errorf("got %s; the README's caveat no longer holds: update it", resultJSON(t, res))
	}
}
