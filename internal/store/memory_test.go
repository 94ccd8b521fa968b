package store_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/store"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/session/storetest"
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

// TestMemoryContract: the memory store keeps session.Store's contract
// (storetest), its clock forged: nothing waits.
func TestMemoryContract(t *testing.T) {
	clocks := map[session.Store]*clock{}
	storetest.Run(t, func(t *testing.T) session.Store {
		c := newClock()
		m := store.NewMemory(0, nil)
		m.SetClock(c.Now)
		clocks[m] = c
		return m
	}, func(_ *testing.T, s session.Store, d time.Duration) { clocks[s].advance(d) })
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
		m.Open(ctx, sid, nil, time.Minute, true)
	}
	m.End(ctx, "ended", time.Hour)
	c.advance(40 * time.Second)
	m.Open(ctx, "used", nil, time.Minute, false)
	c.advance(40 * time.Second) // "used" was used 40 s ago, the others 80 s ago
	if _, held, _ := m.Open(ctx, "named", nil, time.Minute, false); held || !slices.Equal(told, []string{"named"}) {
		t.Fatalf("an idle session: held %v, told %v", held, told)
	}
	m.Open(ctx, "new", nil, time.Minute, true) // sweeps
	if !slices.Equal(told, []string{"named", "swept"}) || m.Len() != 2 {
		t.Errorf("after the sweep: told %v, %d held; want named, swept and 2", told, m.Len())
	}
	if _, held, _ := m.Open(ctx, "used", nil, time.Minute, false); !held {
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
	create := func(sid string, idle time.Duration) (bool, error) {
		_, held, err := m.Open(ctx, sid, nil, idle, true)
		return !held && err == nil, err
	}
	create("a", time.Minute)
	create("b", 2*time.Minute)
	const full = "session store full: 2 sessions are live, the most mcp.max_stored_sessions allows"
	_, err := create("c", time.Minute)
	if !errors.Is(err, store.ErrFull) || err.Error() != full {
		t.Fatalf("creating past the cap: %v, want %q", err, full)
	}
	if _, _, err := m.Swap(ctx, "c", "k", nil, []byte(`1`), time.Minute, true); !errors.Is(err, store.ErrFull) {
		t.Errorf("a creating Swap past the cap: %v", err)
	}
	if _, _, err := m.Swap(ctx, "a", "k", nil, []byte(`1`), time.Minute, true); err != nil {
		t.Errorf("a Swap of a live session, the store full: %v", err)
	}
	m.End(ctx, "a", time.Hour)
	if created, err := create("c", time.Minute); !created || err != nil {
		t.Errorf("Create once a session ended: %v, %v", created, err)
	}
	c.advance(90 * time.Second) // "c" idles out, "b" does not
	if created, err := create("d", time.Minute); !created || err != nil {
		t.Errorf("Create once a session idled out: %v, %v", created, err)
	}
	m.End(ctx, "b", time.Hour)
	m.End(ctx, "c", time.Hour)
	if _, held, err := m.Open(ctx, "a", nil, time.Minute, false); held || err != nil {
		t.Errorf("the oldest of 3 ended sessions, past the cap of 2: held %v, %v; want forgotten", held, err)
	}
	if _, _, err := m.Open(ctx, "b", nil, time.Minute, false); !errors.Is(err, store.ErrEnded) {
		t.Errorf("an ended session within the cap: %v, want ErrEnded", err)
	}
}

// TestMemoryDefaultIdle: a session given no idle TTL idles out after
// DefaultIdle, which is finite.
func TestMemoryDefaultIdle(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	m := store.NewMemory(0, nil)
	m.SetClock(c.Now)
	m.Open(ctx, "s", nil, 0, true)
	c.advance(store.DefaultIdle - time.Second)
	if _, held, _ := m.Open(ctx, "s", nil, 0, false); !held {
		t.Fatalf("within DefaultIdle: not held")
	}
	c.advance(store.DefaultIdle + time.Second)
	if _, held, _ := m.Open(ctx, "s", nil, 0, false); held {
		t.Errorf("past DefaultIdle: held, want absent")
	}
}
