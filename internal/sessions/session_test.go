package sessions_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/store"
)

// counting is a Backend that counts the reads (Opens) that reach it.
type counting struct {
	store.Backend
	loads atomic.Int64
}

func (c *counting) Open(ctx context.Context, sid string, keys []string, idle time.Duration, create bool) (map[string][]byte, bool, error) {
	c.loads.Add(1)
	return c.Backend.Open(ctx, sid, keys, idle, create)
}

func newManager(t *testing.T) (*sessions.Manager, *counting) {
	b := &counting{Backend: store.NewMemory(0, nil)}
	return sessions.New(keys(t, secretOld), &sessions.Options{Store: b}), b
}

// TestLoadReadsOpen: a request's load of a key its server's handlers load
// comes from what the request read of its session when it began, with no
// read of its own; once a write of this process may have changed the
// session since, the load reads the store again, and sees the write.
func TestLoadReadsOpen(t *testing.T) {
	ctx := context.Background()
	m, b := newManager(t)
	m.Store().Open(ctx, "s", nil, 0, true)
	warm := m.Named("s", false)
	if err := warm.Save(ctx, "k", []byte(`1`)); err != nil {
		t.Fatal(err)
	}
	warm.Load(ctx, "k") // the server's handlers load "k"
	a := m.Named("s", false)
	if err := a.Open(ctx); err != nil {
		t.Fatal(err)
	}
	before := b.loads.Load()
	if v, err := a.Load(ctx, "k"); string(v) != `1` || err != nil || b.loads.Load() != before {
		t.Fatalf("a load of a key Open read: %q, %v, %d reads of the store", v, err, b.loads.Load()-before)
	}
	other := m.Named("s", false) // another request of the session, on this replica
	if err := other.Save(ctx, "k", []byte(`2`)); err != nil {
		t.Fatal(err)
	}
	if v, err := a.Load(ctx, "k"); string(v) != `2` || err != nil {
		t.Errorf("a load after another request's save: %q, %v; want 2", v, err)
	}
	if err := a.Save(ctx, "k", []byte(`3`)); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.Load(ctx, "k"); string(v) != `3` {
		t.Errorf("a load after the request's own save: %q, want 3", v)
	}
}

// TestUpdateNoLostUpdate: parallel requests of one session that each
// change one value with Update lose none of the changes.
func TestUpdateNoLostUpdate(t *testing.T) {
	ctx := context.Background()
	m, _ := newManager(t)
	m.Store().Open(ctx, "s", nil, 0, true)
	const requests, each = 16, 20
	var wg sync.WaitGroup
	for range requests {
		wg.Go(func() {
			for range each {
				s := m.Named("s", true)
				err := s.Update(ctx, "n", func(old []byte) ([]byte, error) {
					n, _ := strconv.Atoi(string(old))
					return []byte(strconv.Itoa(n + 1)), nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	v, _ := m.Named("s", true).Load(ctx, "n")
	if string(v) != strconv.Itoa(requests*each) {
		t.Errorf("%d updates: %s", requests*each, v)
	}
}

// TestUpdateUnchanged: an update that leaves the value as it was writes
// nothing, and an update whose change fails writes nothing and returns the
// failure.
func TestUpdateUnchanged(t *testing.T) {
	ctx := context.Background()
	m, _ := newManager(t)
	s := m.Named("lazy", false)
	if err := s.Update(ctx, "k", func(old []byte) ([]byte, error) { return old, nil }); err != nil {
		t.Fatal(err)
	}
	if _, held, err := m.Store().Open(ctx, "lazy", nil, 0, false); held || err != nil {
		t.Errorf("an update that changed nothing registered the session: held %v, %v", held, err)
	}
	boom := errors.New("boom")
	if err := s.Update(ctx, "k", func([]byte) ([]byte, error) { return []byte(`1`), boom }); err != boom {
		t.Errorf("a failing change: %v, want it returned", err)
	}
	if err := s.Update(ctx, "k", func([]byte) ([]byte, error) { return []byte(`1`), nil }); err != nil {
		t.Fatal(err)
	}
	if v, _ := m.Named("lazy", false).Load(ctx, "k"); string(v) != `1` {
		t.Errorf("after a first update of a session not saved in yet: %q", v)
	}
}

// TestWriteAfterEnd: a request still running when its session ends saves
// nothing more: its Save and Update fail with ErrEnded, and the session
// stays ended; OnEnd is told once, however many end it at once.
func TestWriteAfterEnd(t *testing.T) {
	ctx := context.Background()
	var ends atomic.Int64
	m := sessions.New(keys(t, secretOld), &sessions.Options{OnEnd: func(context.Context, string) { ends.Add(1) }})
	m.Store().Open(ctx, "s", nil, 0, true)
	running := m.Named("s", true)
	if err := running.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { m.Named("s", true).End(ctx) })
	}
	wg.Wait()
	if n := ends.Load(); n != 1 {
		t.Errorf("4 ends at once told OnEnd %d times, want once", n)
	}
	if err := running.Save(ctx, "k", []byte(`1`)); !errors.Is(err, sessions.ErrEnded) {
		t.Errorf("a save after the end: %v, want ErrEnded", err)
	}
	err := running.Update(ctx, "k", func([]byte) ([]byte, error) { return []byte(`1`), nil })
	if !errors.Is(err, sessions.ErrEnded) {
		t.Errorf("an update after the end: %v, want ErrEnded", err)
	}
	if _, _, err := m.Store().Open(ctx, "s", nil, 0, false); !errors.Is(err, store.ErrEnded) {
		t.Errorf("after the late writes: %v, want ErrEnded", err)
	}
}

// TestRolloutCookie: a seed's cookie says its session is a rollout's, and
// reads as the same id as the middleware's cookie of it.
func TestRolloutCookie(t *testing.T) {
	m := sessions.New(keys(t, secretOld), nil)
	lazy, _ := m.Cookie("s1")
	seeded, _ := m.RolloutCookie("s1")
	if lazy.Value == seeded.Value {
		t.Fatal("the two cookies are the same")
	}
	for _, c := range []*http.Cookie{lazy, seeded} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.AddCookie(c)
		id, rollout, err := m.ReadCookie(req)
		if id != "s1" || err != nil || rollout != (c == seeded) {
			t.Errorf("ReadCookie(%s) = %q, %v, %v", c.Value, id, rollout, err)
		}
	}
}

// TestManagerOf: a Manager's middleware names its Manager when asked, and
// serves nothing then.
func TestManagerOf(t *testing.T) {
	m := sessions.New(keys(t, secretOld), nil)
	if got := sessions.ManagerOf(m.Middleware); got != m {
		t.Errorf("ManagerOf = %p, want %p", got, m)
	}
	if got := sessions.ManagerOf(func(next http.Handler) http.Handler { return next }); got != nil {
		t.Errorf("ManagerOf of another middleware = %p, want nil", got)
	}
}

// TestAdoption: behind a Door, a session middleware of another Manager
// defers to the Door's: the session, and its cookie, are the Door's.
func TestAdoption(t *testing.T) {
	door := sessions.New(keys(t, secretOld), &sessions.Options{CookieName: "door"})
	foreign := sessions.New(keys(t, secretOld), &sessions.Options{CookieName: "foreign"})
	var saw *sessions.Session
	h := foreign.Middleware(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { saw = sessions.SessionOf(r.Context()) }))
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	req = req.WithContext(sessions.WithOwner(req.Context(), door))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	set := rec.Result().Cookies()
	if saw == nil || len(set) != 1 || set[0].Name != "door" {
		t.Fatalf("session %v, cookies %v; want the door's session and cookie", saw, set)
	}
	if err := saw.Save(context.Background(), "k", []byte(`1`)); err != nil {
		t.Fatal(err)
	}
	if _, held, _ := door.Store().Open(context.Background(), saw.ID, nil, time.Minute, false); !held {
		t.Errorf("the session is not in the door's store")
	}
}
