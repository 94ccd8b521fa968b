package tests

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/redis/go-redis/v9"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/internal/store"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/session/redisstore"
)

// A countedStore is the session store of a test's server, which the test
// reads from the outside: how many sessions it holds (in memory), or how
// many keys its Redis has.
type countedStore struct {
	name  string
	count func() int
	redis *redisServer // nil for the memory store
}

// storeKinds are the stores a test runs against: the memory store, and a
// real Redis.
var storeKinds = []string{"memory", "redis"}

// useStore gives cfg a store of kind, which the test counts.
func useStore(t testing.TB, kind string, cfg *autoexpose.Config) *countedStore {
	t.Helper()
	if kind == "memory" {
		mem := store.NewMemory(0, nil)
		cfg.Store = mem
		return &countedStore{name: kind, count: mem.Len}
	}
	rs := startRedis(t)
	client := redis.NewClient(&redis.Options{Addr: rs.Addr})
	t.Cleanup(func() { client.Close() })
	cfg.Store = redisstore.New(client, cfg.Name)
	return &countedStore{name: kind, redis: rs, count: func() int {
		n, err := rs.Client.DBSize(context.Background()).Result()
		if err != nil {
			t.Fatalf("DBSIZE: %v", err)
		}
		return int(n)
	}}
}

// TestToolCallsMakeNoSession: a rollout's MCP tool calls carry the token and
// no cookie, as NeMo Gym's MCP agents send them. Each runs in the token's
// session and registers none: 300 calls of one rollout leave the store as
// the seed left it, over the fast path and the go-sdk alike, in memory and
// in Redis.
func TestToolCallsMakeNoSession(t *testing.T) {
	for _, kind := range storeKinds {
		for _, path := range []string{"fast path", "go-sdk"} {
			t.Run(kind+"/"+path, func(t *testing.T) {
				cfg := replicaConfig()
				cfg.MCP.DisableFastPath = path == "go-sdk"
				st := useStore(t, kind, &cfg)
				s := serve(t, newStoredNotebookDoor(t, cfg))
				start := st.count()
				_, meta := s.seedSession(`{}`)
				tok := meta.Headers[tokenHeader]
				seeded := st.count()
				if tok == "" || seeded != start+1 {
					t.Fatalf("the seed: token %q, %d sessions held after it, %d before", tok, seeded, start)
				}
				agent := s.cookieless()
				for i := range 300 {
					body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"note","arguments":{"note":"n%d"}}}`, i, i)
					if r := agent.rawMCP(t, body, raw{header: []string{tokenHeader, tok}}); r.Status != http.StatusOK || strings.Contains(string(r.Body), `"isError":true`) {
						t.Fatalf("call %d: %d %s", i, r.Status, r.Body)
					}
				}
				if got := st.count(); got != seeded {
					t.Errorf("300 tool calls of one rollout left %d sessions (%s), %d more than the seed's", got, st.name, got-seeded)
				}
			})
		}
	}
}

// TestAnonymousTrafficMakesNoSession: requests that name no session and
// save nothing — 404s, MCP pings, seeds refused with 413 — register none, in
// memory and in Redis.
func TestAnonymousTrafficMakesNoSession(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			cfg := replicaConfig()
			cfg.MCP.Rollout.MaxSeedBytes = 64
			st := useStore(t, kind, &cfg)
			s := serve(t, newStoredNotebookDoor(t, cfg))
			start := st.count()
			big := `{"pad":"` + strings.Repeat("x", 100) + `"}`
			var wg sync.WaitGroup
			for w := range 4 {
				wg.Go(func() {
					c := s.cookieless()
					for i := w; i < 3000; i += 4 {
						var r httpResponse
						var want int
						switch i % 3 {
						case 0:
							r, want = c.send(http.MethodGet, fmt.Sprintf("/nowhere/%d", i), ""), http.StatusNotFound
						case 1:
							r, want = c.rawMCP(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i), raw{}), http.StatusOK
						default:
							r, want = c.post("/seed_session", big), http.StatusRequestEntityTooLarge
						}
						if r.Status != want {
							t.Errorf("request %d: %d %s, want %d", i, r.Status, r.Body, want)
							return
						}
					}
				})
			}
			wg.Wait()
			if got := st.count(); got != start {
				t.Errorf("3000 anonymous requests left %d sessions (%s), %d before", got, st.name, start)
			}
		})
	}
}

// TestUnknownCookiePlainServer: a server without the rollout contract
// answers a cookie of a session its store does not hold (a restart emptied
// its memory store) as any web framework does: the request runs in a new
// session, whose cookie the response sets. (A rollout server refuses it
// with 421: TestMisroutedBothDoors.)
func TestUnknownCookiePlainServer(t *testing.T) {
	plain := func() http.Handler {
		cfg := replicaConfig()
		sessions, err := cfg.UseSessions()
		if err != nil {
			t.Fatal(err)
		}
		r := chi.NewRouter()
		r.Use(sessions.Middleware)
		r.Method(http.MethodPost, "/count", autoexpose.Handler(func(_ context.Context, r *http.Request, _ struct{}) (map[string]int, error) {
			var n int
			if _, err := session.Load(r, "n", &n); err != nil {
				return nil, err
			}
			n++
			return map[string]int{"n": n}, session.Save(r, "n", n)
		}))
		door, err := autoexpose.Install(r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { door.Close() })
		return door
	}
	before := serve(t, plain())
	before.post("/count", `{}`)
	if r := before.post("/count", `{}`); r.Status != http.StatusOK || string(r.Body) != `{"n":2}` {
		t.Fatalf("a session's second request: %d %s", r.Status, r.Body)
	}
	cookie := strings.Split(before.post("/count", `{}`).Header.Get("Set-Cookie"), ";")[0]
	restarted := serve(t, plain()) // the same secret, an empty store
	r := restarted.post("/count", `{}`, "Cookie", cookie)
	if r.Status != http.StatusOK || string(r.Body) != `{"n":1}` || r.Header.Get("Set-Cookie") == "" {
		t.Fatalf("the old cookie after a restart: %d %s, Set-Cookie %q; want 200 {\"n\":1} in a new session, and its cookie", r.Status, r.Body, r.Header.Get("Set-Cookie"))
	}
	fresh := strings.Split(r.Header.Get("Set-Cookie"), ";")[0]
	if r := restarted.post("/count", `{}`, "Cookie", fresh); r.Status != http.StatusOK || string(r.Body) != `{"n":2}` {
		t.Errorf("the new session's next request: %d %s, want 200 {\"n\":2}", r.Status, r.Body)
	}
}
