package store

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestMemoryIdle: a session unused for longer than the idle TTL is gone
// the next time it is named, and a sweep on Register drops the others;
// ended is told of each once, and a session in use stays. The clock is
// forged: nothing waits.
func TestMemoryIdle(t *testing.T) {
	ctx := context.Background()
	var ended []string
	m := NewMemory(time.Minute, func(sid string) { ended = append(ended, sid) })
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m.now = func() time.Time { return now }
	for _, sid := range []string{"used", "named", "swept"} {
		m.Register(ctx, sid)
	}
	m.Save(ctx, "used", "k", []byte(`1`))
	now = now.Add(40 * time.Second)
	if v, ok, _ := m.Load(ctx, "used", "k"); !ok || string(v) != "1" {
		t.Fatalf("Load = %q, %v", v, ok)
	}
	now = now.Add(40 * time.Second) // "used" was used 40 s ago, the others 80 s ago
	if held, _ := m.Holds(ctx, "named"); held || !slices.Equal(ended, []string{"named"}) {
		t.Fatalf("an idle session: held %v, ended %v", held, ended)
	}
	m.Register(ctx, "new") // sweeps
	if !slices.Equal(ended, []string{"named", "swept"}) || m.Len() != 2 {
		t.Errorf("after the sweep: ended %v, %d held; want named, swept and 2", ended, m.Len())
	}
	if held, _ := m.Holds(ctx, "used"); !held {
		t.Error("a session in use was dropped")
	}
	m.Drop(ctx, "used")
	if held, _ := m.Holds(ctx, "used"); held || len(ended) != 2 {
		t.Errorf("a dropped session: held %v, ended %v (Drop tells no one)", held, ended)
	}
}

// TestMemoryValuesCopied: what Save keeps and Load gives are copies.
func TestMemoryValuesCopied(t *testing.T) {
	ctx := context.Background()
	m := NewMemory(0, nil)
	v := []byte("abc")
	m.Save(ctx, "s", "k", v)
	v[0] = 'x'
	got, _, _ := m.Load(ctx, "s", "k")
	got[1] = 'y'
	if again, ok, _ := m.Load(ctx, "s", "k"); !ok || string(again) != "abc" {
		t.Errorf("Load = %q, want abc", again)
	}
	if _, ok, _ := m.Load(ctx, "other", "k"); ok {
		t.Error("a session never saved has a value")
	}
}
