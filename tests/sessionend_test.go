package tests

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdoor/mcpdoor/session/redisstore"
)

// sessionEnds records the sessions Config.OnSessionEnd is told of.
type sessionEnds struct {
	mu   sync.Mutex
	sids []string
}

func (e *sessionEnds) hook(_ context.Context, sid string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sids = append(e.sids, sid)
}

func (e *sessionEnds) got() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.sids)
}

// TestSessionEndAfterVerify: when /verify has answered 2xx, the rollout has
// sessionEnds: OnSessionEnd is told its session once, and the store drops it, so
// that the session's next request is refused (421) rather than served from
// state nobody scores. A /verify the handler refuses ends nothing, so that
// the agent may post it again.
func TestSessionEndAfterVerify(t *testing.T) {
	var end sessionEnds
	cfg := replicaConfig()
	cfg.OnSessionEnd = end.hook
	s := serve(t, newStoredNotebookDoor(t, cfg))
	seeded, _ := s.seedSession(`{}`)
	sid := seeded.Header.Get("Mcpdoor-Session")
	s.post("/note", `{"note":"one"}`)
	if r := s.post("/verify", `not json`); r.Status != http.StatusBadRequest || len(end.got()) != 0 {
		t.Fatalf("a refused /verify: %d %s, sessionEnds %v; want 400 and no session sessionEnds", r.Status, r.Body, end.got())
	}
	if r := s.post("/verify", `{"expected":["one"]}`); r.Status != http.StatusOK {
		t.Fatalf("/verify: %d %s", r.Status, r.Body)
	}
	if got := end.got(); !slices.Equal(got, []string{sid}) {
		t.Errorf("OnSessionEnd told %v, want [%s]", got, sid)
	}
	if r := s.post("/note", `{"note":"after"}`); r.Status != http.StatusMisdirectedRequest || string(r.Body) != misroutedText(sid)+"\n" {
		t.Errorf("a call after /verify: %d %q; want 421, the session dropped", r.Status, r.Body)
	}
}

// TestSessionEndIdle: a session unused for longer than
// mcp.session_idle_ttl is dropped by the store: in memory, OnSessionEnd is
// told of it; in Redis, the key expires. Either way its next request is
// refused (421), and a session in use is kept.
func TestSessionEndIdle(t *testing.T) {
	const ttl = 200 * time.Millisecond
	for _, store := range []string{"memory", "redis"} {
		t.Run(store, func(t *testing.T) {
			var end sessionEnds
			cfg := replicaConfig()
			cfg.OnSessionEnd = end.hook
			cfg.MCP.SessionIdleTTL = ttl
			if store == "redis" {
				client := redis.NewClient(&redis.Options{Addr: startRedis(t).Addr})
				t.Cleanup(func() { client.Close() })
				cfg.Store = redisstore.New(client, "notebook")
			}
			s := serve(t, newStoredNotebookDoor(t, cfg))
			idle, busy := s.newClient(), s.newClient()
			seeded, _ := idle.seedSession(`{}`)
			sid := seeded.Header.Get("Mcpdoor-Session")
			busy.seedSession(`{}`)
			// busy keeps using its session across more than the TTL; idle
			// does not.
			for range 6 {
				time.Sleep(ttl / 2)
				if r := busy.post("/note", `{"note":"busy"}`); r.Status != http.StatusOK {
					t.Fatalf("a session in use: %d %s", r.Status, r.Body)
				}
			}
			if r := idle.post("/note", `{"note":"late"}`); r.Status != http.StatusMisdirectedRequest || string(r.Body) != misroutedText(sid)+"\n" {
				t.Errorf("an idle session's call: %d %q; want 421", r.Status, r.Body)
			}
			if store == "memory" && !slices.Contains(end.got(), sid) {
				t.Errorf("OnSessionEnd told %v, want %s among them", end.got(), sid)
			}
		})
	}
}
