package storetest_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/session/storetest"
)

// mapStore is a session store of a few lines, outside mcpdoor, as a
// store in a database or a cache would be: a map under a lock, each
// session with its expiry, and the sessions that ended, remembered until
// their keep has passed.
type mapStore struct {
	mu    sync.Mutex
	now   func() time.Time
	live  map[string]*entry
	ended map[string]time.Time // until when
}

type entry struct {
	values  map[string][]byte
	expires time.Time
}

func newMapStore(now func() time.Time) *mapStore {
	return &mapStore{now: now, live: map[string]*entry{}, ended: map[string]time.Time{}}
}

// get returns sid's entry, made when create is set and it is absent, and
// whether it was held; a use pushes its expiry out by idle. The caller
// holds s.mu.
func (s *mapStore) get(sid string, idle time.Duration, create bool) (*entry, bool, error) {
	now := s.now()
	if until, ok := s.ended[sid]; ok && now.Before(until) {
		return nil, false, session.ErrEnded
	}
	e, held := s.live[sid]
	if held && !now.Before(e.expires) {
		delete(s.live, sid)
		e, held = nil, false
	}
	switch {
	case !held && !create:
		return nil, false, nil
	case !held:
		e = &entry{values: map[string][]byte{}}
		s.live[sid] = e
	}
	e.expires = now.Add(idle)
	return e, held, nil
}

// writable returns sid's entry for a write.
func (s *mapStore) writable(sid string, idle time.Duration, create bool) (*entry, error) {
	e, _, err := s.get(sid, idle, create)
	if err == nil && e == nil {
		err = session.ErrEnded
	}
	return e, err
}

func (s *mapStore) Open(_ context.Context, sid string, keys []string, idle time.Duration, create bool) (map[string][]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, held, err := s.get(sid, idle, create)
	if e == nil {
		return nil, held, err
	}
	var values map[string][]byte
	for _, k := range keys {
		if v, ok := e.values[k]; ok {
			if values == nil {
				values = map[string][]byte{}
			}
			values[k] = slices.Clone(v)
		}
	}
	return values, held, nil
}

func (s *mapStore) Save(_ context.Context, sid, key string, value []byte, idle time.Duration, create bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.writable(sid, idle, create)
	if err == nil {
		e.values[key] = slices.Clone(value)
	}
	return err
}

func (s *mapStore) Swap(_ context.Context, sid, key string, old, value []byte, idle time.Duration, create bool) (bool, []byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.writable(sid, idle, create)
	if err != nil {
		return false, nil, err
	}
	if cur := e.values[key]; !bytes.Equal(cur, old) {
		return false, slices.Clone(cur), nil
	}
	e.values[key] = slices.Clone(value)
	return true, nil, nil
}

func (s *mapStore) End(_ context.Context, sid string, keep time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, _, err := s.get(sid, 0, false); err != nil {
		return false, nil // ended already
	}
	_, held := s.live[sid]
	delete(s.live, sid)
	delete(s.ended, sid)
	if keep > 0 {
		s.ended[sid] = s.now().Add(keep)
	}
	maps.DeleteFunc(s.ended, func(_ string, until time.Time) bool { return !s.now().Before(until) })
	return held, nil
}

// A store written outside mcpdoor passes the contract suite: here on a
// forged clock, which the suite moves; a store on a clock of its own (a
// database's) passes nil, and the suite sleeps.
func TestMapStore(t *testing.T) {
	clocks := map[session.Store]*clock{}
	storetest.Run(t, func(t *testing.T) session.Store {
		c := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		s := newMapStore(c.Now)
		clocks[s] = c
		return s
	}, func(_ *testing.T, s session.Store, d time.Duration) { clocks[s].advance(d) })
}

// clock is a forged clock a test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// A server keeps its sessions in a store of its own: its Config.Store,
// which the Door and the middleware of UseSessions share. What a handler
// saves, the store holds.
func Example() {
	store := newMapStore(time.Now)
	cfg := autoexpose.Config{Name: "weather", ExposeToolsOverMCP: true, Store: store,
		MCP:    autoexpose.MCPConfig{SessionSecret: []string{"an example secret of at least 32 bytes"}},
		Logger: slog.New(slog.DiscardHandler)}
	sessions, err := cfg.UseSessions()
	if err != nil {
		log.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Post("/add_city", func(w http.ResponseWriter, r *http.Request) {
		if err := session.Save(r, "cities", []string{"Paris"}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		io.WriteString(w, session.ID(r))
	})
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/add_city", nil))
	values, held, err := store.Open(context.Background(), rec.Body.String(), []string{"cities"}, time.Hour, false)
	fmt.Println(held, string(values["cities"]), err)
	// Output: true ["Paris"] <nil>
}
