package tests

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
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
	// A TTL a loaded machine's pauses stay well within: busy's gaps are a
	// quarter of it.
	const ttl = time.Second
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
			for range 8 {
				time.Sleep(ttl / 4)
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

// gatedNotebook is a notebook whose state is in its session store, with two
// gates a test holds: slow_note loads the notes, waits for release (after
// telling entered), then saves; and /verify, when barrier is set, waits
// there before it answers, so that concurrent posts are all in the handler
// at once.
type gatedNotebook struct {
	entered chan struct{}
	release chan struct{}
	barrier atomic.Pointer[sync.WaitGroup]
}

// newGatedNotebookDoor returns the Door of a gated notebook over cfg.
func newGatedNotebookDoor(t testing.TB, cfg autoexpose.Config, g *gatedNotebook) *autoexpose.Door {
	t.Helper()
	sessions, err := cfg.UseSessions()
	if err != nil {
		t.Fatal(err)
	}
	load := func(r *http.Request) ([]string, error) {
		var notes []string
		_, err := session.Load(r, "notes", &notes)
		return notes, err
	}
	save := func(r *http.Request, notes []string) error { return session.Save(r, "notes", notes) }
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.With(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if b := g.barrier.Load(); b != nil {
				b.Done()
				b.Wait()
			}
			next.ServeHTTP(w, r)
		})
	}).Group(func(r chi.Router) {
		notebookRoutes(r, load, save)
	})
	r.Method(http.MethodPost, "/slow_note", autoexpose.Handler(func(_ context.Context, r *http.Request, in notesIn) (notesOut, error) {
		notes, err := load(r)
		if err != nil {
			return notesOut{}, err
		}
		g.entered <- struct{}{}
		<-g.release
		notes = append(notes, in.Note)
		return notesOut{Notes: notes}, save(r, notes)
	}, autoexpose.Describe("Note something, slowly.")))
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { door.Close() })
	return door
}

// TestEndedSessionStaysEnded: a tool call still running when /verify ends
// its rollout saves afterwards. The save fails, and nothing brings the
// session back: the token's next call is refused (421, -32003), the store
// holds nothing of it (in Redis, no hash of it, and no key without an
// expiry), and OnSessionEnd was told once.
func TestEndedSessionStaysEnded(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			var end sessionEnds
			cfg := replicaConfig()
			cfg.OnSessionEnd = end.hook
			st := useStore(t, kind, &cfg)
			g := &gatedNotebook{entered: make(chan struct{}), release: make(chan struct{})}
			s := serve(t, newGatedNotebookDoor(t, cfg, g))
			seeded, meta := s.seedSession(`{}`)
			sid, tok := seeded.Header.Get("Mcpdoor-Session"), meta.Headers[tokenHeader]
			agent := s.cookieless()
			late := make(chan httpResponse, 1)
			go func() {
				late <- agent.rawMCP(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_note","arguments":{"note":"late"}}}`, raw{header: []string{tokenHeader, tok}})
			}()
			<-g.entered
			if r := s.post("/verify", `{"expected":[]}`); r.Status != http.StatusOK {
				t.Fatalf("/verify: %d %s", r.Status, r.Body)
			}
			close(g.release)
			r := <-late
			t.Logf("the call that was running: %d %s", r.Status, r.Body)
			next := agent.rawMCP(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"note","arguments":{"note":"after"}}}`, raw{header: []string{tokenHeader, tok}})
			want := `{"jsonrpc":"2.0","id":2,"error":{"code":-32003,"message":"` + misroutedText(sid) + `"}}`
			if next.Status != http.StatusMisdirectedRequest || string(next.Body) != want {
				t.Errorf("the token's next call: %d %s; want 421 %s", next.Status, next.Body, want)
			}
			if got := end.got(); len(got) != 1 || got[0] != sid {
				t.Errorf("OnSessionEnd told %v, want [%s] once", got, sid)
			}
			if st.redis == nil {
				if n := st.count(); n != 0 {
					t.Errorf("the memory store holds %d sessions after the rollout ended, want 0", n)
				}
				return
			}
			ctx := context.Background()
			keys, _ := st.redis.Client.Keys(ctx, "*").Result()
			for _, k := range keys {
				typ, _ := st.redis.Client.Type(ctx, k).Result()
				ttl, _ := st.redis.Client.PTTL(ctx, k).Result()
				if typ == "hash" || ttl == -1 {
					t.Errorf("Redis key %s after the rollout ended: a %s, TTL %v; want no session hash, and an expiry", k, typ, ttl)
				}
			}
		})
	}
}

// TestSessionEndOnce: three /verify posts of one rollout, in the handler
// at once and each answered 200 (each scores the state its request found),
// end the rollout once: OnSessionEnd is told of its session once.
func TestSessionEndOnce(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			var end sessionEnds
			cfg := replicaConfig()
			cfg.OnSessionEnd = end.hook
			useStore(t, kind, &cfg)
			g := &gatedNotebook{}
			s := serve(t, newGatedNotebookDoor(t, cfg, g))
			seeded, _ := s.seedSession(`{}`)
			sid := seeded.Header.Get("Mcpdoor-Session")
			s.post("/note", `{"note":"one"}`)
			barrier := &sync.WaitGroup{}
			barrier.Add(3)
			g.barrier.Store(barrier)
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(func() {
					if r := s.post("/verify", `{"expected":["one"]}`); r.Status != http.StatusOK {
						t.Errorf("/verify: %d %s", r.Status, r.Body)
					}
				})
			}
			wg.Wait()
			if got := end.got(); len(got) != 1 || got[0] != sid {
				t.Errorf("3 concurrent /verify: OnSessionEnd told %v, want [%s] once", got, sid)
			}
		})
	}
}

// TestRefusedVerifyKeepsRollout: on an exclusive server, a /verify its
// handler refuses (422) ends nothing: the rollout's MCP session goes on
// serving, and the slot stays the rollout's, so another rollout's seed
// gets 503 until a /verify answers 2xx.
func TestRefusedVerifyKeepsRollout(t *testing.T) {
	cfg := replicaConfig()
	cfg.MCP.Exclusive = true
	sessions, err := cfg.UseSessions()
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	nb := &notebook{notes: map[string][]string{}}
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	})
	r.Post("/verify", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), "final") {
			http.Error(w, "not a whole trajectory", http.StatusUnprocessableEntity)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"reward":1}`)
	})
	r.Method(http.MethodPost, "/note", autoexpose.Handler(func(_ context.Context, r *http.Request, in notesIn) (notesOut, error) {
		notes, _ := nb.load(r)
		notes = append(notes, in.Note)
		return notesOut{Notes: notes}, nb.save(r, notes)
	}))
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { door.Close() })
	s := serve(t, door)
	cs := s.connectSeeded(mcpOptions{})
	defer cs.Close()
	if res := call(t, cs, "note", map[string]any{"note": "one"}); res.IsError {
		t.Fatalf("a call of the rollout: %s", resultJSON(t, res))
	}
	if r := s.post("/verify", `{"partial":true}`); r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a refused /verify: %d %s", r.Status, r.Body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "note", Arguments: map[string]any{"note": "two"}}); err != nil || res.IsError {
		t.Errorf("the rollout's call after a refused /verify: %v %v; want it served in its MCP session", err, res)
	}
	if r := s.newClient().post("/seed_session", `{}`); r.Status != http.StatusServiceUnavailable {
		t.Errorf("another rollout's seed after a refused /verify: %d %s; want 503, the slot still the rollout's", r.Status, r.Body)
	}
	if r := s.post("/verify", `{"final":true}`); r.Status != http.StatusOK {
		t.Fatalf("/verify: %d %s", r.Status, r.Body)
	}
	if r := s.newClient().post("/seed_session", `{}`); r.Status != http.StatusOK {
		t.Errorf("another rollout's seed after its /verify answered 200: %d %s", r.Status, r.Body)
	}
}
