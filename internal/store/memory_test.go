package store_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/store"
	"github.com/mcpdoor/mcpdoor/internal/store/storetest"
)

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

func newClock() *clock { return &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

// TestMemoryContract: the memory store keeps the Backend's contracts, its
// clock forged: nothing waits.
func TestMemoryContract(t *testing.T) {
	clocks := map[store.Backend]*clock{}
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T) store.Backend {
			c := newClock()
			m := store.NewMemory(0, nil)
			m.SetClock(c.Now)
			clocks[m] = c
			return m
		},
		Advance: func(_ *testing.T, b store.Backend, d time.Duration) { clocks[b].advance(d) },
		Idle:    time.Minute,
	})
}

// TestMemoryIdleTold: the memory store tells onIdle of each session it
// drops for idleness, once: one named after its idle TTL, and those a
// sweep drops when a session is created; one in use, and an ended one,
// are not.
func TestMemoryIdleTold(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var told []string
	c := newClock()
	m := store.NewMemory(0, func(sid string) {
		mu.Lock()
		told = append(told, sid)
		mu.Unlock()
	})
	m.SetClock(c.Now)
	for _, sid := range []string{"used", "named", "swept", "ended"} {
		m.Create(ctx, sid, time.Minute)
	}
	m.End(ctx, "ended", time.Hour)
	c.advance(40 * time.Second)
	m.Open(ctx, "used", nil, time.Minute)
	c.advance(40 * time.Second) // "used" was used 40 s ago, the others 80 s ago
	if f, _ := m.Open(ctx, "named", nil, time.Minute); f.State != store.Absent || !slices.Equal(told, []string{"named"}) {
		t.Fatalf("an idle session: %v, told %v", f.State, told)
	}
	m.Create(ctx, "new", time.Minute) // sweeps
	if !slices.Equal(told, []string{"named", "swept"}) || m.Len() != 2 {
		t.Errorf("after the sweep: told %v, %d held; want named, swept and 2", told, m.Len())
	}
	if f, _ := m.Open(ctx, "used", nil, time.Minute); f.State != store.Live {
		t.Error("a session in use was dropped")
	}
}

// TestMemoryCap: a full memory store creates no session, with an error
// naming the cap's key, until one ends or idles out; ended sessions are
// remembered up to the cap, the oldest forgotten first.
func TestMemoryCap(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	m := store.NewMemory(2, nil)
	m.SetClock(c.Now)
	m.Create(ctx, "a", time.Minute)
	m.Create(ctx, "b", 2*time.Minute)
	const full = "session store full: 2 sessions are live, the most mcp.max_stored_sessions allows"
	_, err := m.Create(ctx, "c", time.Minute)
	if !errors.Is(err, store.ErrFull) || err.Error() != full {
		t.Fatalf("Create past the cap: %v, want %q", err, full)
	}
	if err := m.Save(ctx, "c", "k", []byte(`1`), store.Write{Create: true, Idle: time.Minute}); !errors.Is(err, store.ErrFull) {
		t.Errorf("a creating Save past the cap: %v", err)
	}
	if err := m.Save(ctx, "a", "k", []byte(`1`), store.Write{Create: true}); err != nil {
		t.Errorf("a Save of a live session, the store full: %v", err)
	}
	m.End(ctx, "a", time.Hour)
	if created, err := m.Create(ctx, "c", time.Minute); !created || err != nil {
		t.Errorf("Create once a session ended: %v, %v", created, err)
	}
	c.advance(90 * time.Second) // "c" idles out, "b" does not
	if created, err := m.Create(ctx, "d", time.Minute); !created || err != nil {
		t.Errorf("Create once a session idled out: %v, %v", created, err)
	}
	m.End(ctx, "b", time.Hour)
	m.End(ctx, "c", time.Hour)
	if f, _ := m.Open(ctx, "a", nil, time.Minute); f.State != store.Absent {
		t.Errorf("the oldest of 3 ended sessions, past the cap of 2: %v, want forgotten", f.State)
	}
	if f, _ := m.Open(ctx, "b", nil, time.Minute); f.State != store.Ended {
		t.Errorf("an ended session within the cap: %v, want ended", f.State)
	}
}

// TestMemoryDefaultIdle: a session given no idle TTL idles out after
// DefaultIdle, which is finite.
func TestMemoryDefaultIdle(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	m := store.NewMemory(0, nil)
	m.SetClock(c.Now)
	m.Create(ctx, "s", 0)
	c.advance(store.DefaultIdle - time.Second)
	if f, _ := m.Open(ctx, "s", nil, 0); f.State != store.Live {
		t.Fatalf("within DefaultIdle: %v", f.State)
	}
	c.advance(store.DefaultIdle + time.Second)
	if f, _ := m.Open(ctx, "s", nil, 0); f.State != store.Absent {
		t.Errorf("past DefaultIdle: %v, want absent", f.State)
	}
}
