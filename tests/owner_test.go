package tests

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
)

// foreignManagerText is Install's refusal of a router whose session
// middleware is of another session.Manager than the door's.
const foreignManagerText = "the router's session middleware is of another session.Manager than the door's (one session.New made, or UseSessions on another copy of the Config): " +
	"the door would hold none of its sessions, and refuse their requests (421); fix: use the Middleware of the manager that UseSessions returns for the Config given to Install"

// TestOneSessionOwner: the door's session manager is the only maker of
// sessions. A router built with a manager of its own (session.New and its
// middleware) is refused at Install, wherever the middleware is, with what
// to use instead; a handler the door cannot read (Wrap) has its manager
// adopted, so that its client's second request is served in its session,
// never refused as misrouted (421) by the replica that made the session.
func TestOneSessionOwner(t *testing.T) {
	routes := func(r chi.Router) {
		nb := &notebook{notes: map[string][]string{}}
		notebookRoutes(r, nb.load, nb.save)
		r.Post("/whoami", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(session.ID(r))) })
	}
	for _, where := range []string{"", "POST /whoami"} {
		t.Run("Install, "+where, func(t *testing.T) {
			foreign := session.New(testKeys(t), nil)
			r := chi.NewRouter()
			if where == "" {
				r.Use(foreign.Middleware)
				routes(r)
			} else {
				nb := &notebook{notes: map[string][]string{}}
				notebookRoutes(r, nb.load, nb.save)
				r.With(foreign.Middleware).Post("/whoami", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(session.ID(r))) })
			}
			_, err := autoexpose.Install(r, replicaConfig())
			want := "mcpdoor: " + foreignManagerText
			if where != "" {
				want = "mcpdoor: " + where + ": " + foreignManagerText
			}
			if err == nil || err.Error() != want {
				t.Fatalf("Install of a router with session.New's middleware: %v; want %q", err, want)
			}
		})
	}
	t.Run("Wrap", func(t *testing.T) {
		foreign := session.New(testKeys(t), nil)
		mux := chi.NewRouter()
		routes(mux)
		door, err := autoexpose.Wrap(foreign.Middleware(mux), replicaConfig())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { door.Close() })
		s := serve(t, door)
		first := s.post("/whoami", `{}`)
		second := s.post("/whoami", `{}`)
		if first.Status != http.StatusOK || second.Status != http.StatusOK || string(second.Body) != string(first.Body) || len(first.Body) == 0 {
			t.Fatalf("two requests of one client: %d %q, then %d %q; want 200 twice in one session", first.Status, first.Body, second.Status, second.Body)
		}
		if r := s.post("/note", `{"note":"one"}`); r.Status != http.StatusOK || !strings.Contains(string(r.Body), "one") {
			t.Errorf("a tool route in the session: %d %s", r.Status, r.Body)
		}
	})
}
