// Package storetest checks a store.Backend against the contracts its
// methods document: every backend, in memory or in Redis, runs it, and so
// can a backend written elsewhere.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/store"
)

// A Harness is what the suite needs of a backend.
type Harness struct {
	// New returns an empty backend, for one subtest.
	New func(t *testing.T) store.Backend
	// Advance lets d pass for b: a forged clock moves, or the test sleeps.
	Advance func(t *testing.T, b store.Backend, d time.Duration)
	// Idle is the idle TTL the suite gives its sessions where it lets them
	// idle out: short where Advance sleeps.
	Idle time.Duration
}

// Run runs the suite.
func Run(t *testing.T, h Harness) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, h Harness, b store.Backend)
	}{
		{"Absent", absent},
		{"CreateOpen", createOpen},
		{"SaveLoad", saveLoad},
		{"SaveCreates", saveCreates},
		{"Swap", swap},
		{"SwapConcurrent", swapConcurrent},
		{"End", end},
		{"EndConcurrent", endConcurrent},
		{"EndForget", endForget},
		{"EndKeepPasses", endKeepPasses},
		{"Idle", idle},
		{"AppendList", appendList},
		{"ListEnds", listEnds},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, h, h.New(t)) })
	}
}

const long = time.Hour // an idle TTL or keep no subtest outlives

var bg = context.Background()

func state(t *testing.T, b store.Backend, sid string, keys ...string) store.Found {
	t.Helper()
	f, err := b.Open(bg, sid, keys, long)
	if err != nil {
		t.Fatalf("Open(%s): %v", sid, err)
	}
	return f
}

func load(t *testing.T, b store.Backend, sid, key string) string {
	t.Helper()
	v, err := b.Load(bg, sid, key)
	if err != nil {
		t.Fatalf("Load(%s, %s): %v", sid, key, err)
	}
	return string(v)
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// absent: a session nobody created is Absent, has no value, and takes no
// write that may not create it.
func absent(t *testing.T, _ Harness, b store.Backend) {
	if f := state(t, b, "nobody", "k"); f.State != store.Absent || len(f.Values) != 0 {
		t.Errorf("Open of a session never created: %v %v, want absent", f.State, f.Values)
	}
	if v := load(t, b, "nobody", "k"); v != "" {
		t.Errorf("Load of a session never created: %q", v)
	}
	if err := b.Save(bg, "nobody", "k", []byte("1"), store.Write{}); !errors.Is(err, store.ErrEnded) {
		t.Errorf("Save of an absent session, not creating: %v, want ErrEnded", err)
	}
	if _, _, err := b.Swap(bg, "nobody", "k", nil, []byte("1"), store.Write{}); !errors.Is(err, store.ErrEnded) {
		t.Errorf("Swap of an absent session, not creating: %v, want ErrEnded", err)
	}
	if f := state(t, b, "nobody"); f.State != store.Absent {
		t.Errorf("a refused write created the session: %v", f.State)
	}
}

// createOpen: Create makes a session Live once, and keeps what it holds.
func createOpen(t *testing.T, _ Harness, b store.Backend) {
	created, err := b.Create(bg, "s", long)
	if err != nil || !created {
		t.Fatalf("Create: %v, %v; want created", created, err)
	}
	if f := state(t, b, "s", "k"); f.State != store.Live || len(f.Values) != 0 {
		t.Errorf("Open after Create: %v %v, want live and empty", f.State, f.Values)
	}
	must(t, "Save", b.Save(bg, "s", "k", []byte(`"v"`), store.Write{}))
	if created, err := b.Create(bg, "s", long); err != nil || created {
		t.Errorf("Create of a live session: %v, %v; want kept", created, err)
	}
	if v := load(t, b, "s", "k"); v != `"v"` {
		t.Errorf("a second Create lost a value: %q", v)
	}
}

// saveLoad: what Save saved, Load and Open read, as copies; Open leaves
// out the keys without a value.
func saveLoad(t *testing.T, _ Harness, b store.Backend) {
	must(t, "Create", errOf(b.Create(bg, "s", long)))
	v := []byte(`{"a":1}`)
	must(t, "Save", b.Save(bg, "s", "k", v, store.Write{}))
	v[0] = 'x'
	got, err := b.Load(bg, "s", "k")
	if err != nil || string(got) != `{"a":1}` {
		t.Fatalf("Load: %q, %v", got, err)
	}
	got[0] = 'y'
	f := state(t, b, "s", "k", "none")
	if string(f.Values["k"]) != `{"a":1}` || len(f.Values) != 1 {
		t.Errorf("Open's values: %q", f.Values)
	}
	f.Values["k"][0] = 'z'
	if v := load(t, b, "s", "k"); v != `{"a":1}` {
		t.Errorf("the store's value changed with a caller's copy: %q", v)
	}
	must(t, "Save", b.Save(bg, "s", "k", []byte(`2`), store.Write{}))
	if v := load(t, b, "s", "k"); v != `2` {
		t.Errorf("a second Save: %q, want 2", v)
	}
	if v := load(t, b, "s", "other"); v != "" {
		t.Errorf("a key never saved: %q", v)
	}
}

// saveCreates: a creating write makes an Absent session Live.
func saveCreates(t *testing.T, _ Harness, b store.Backend) {
	must(t, "Save", b.Save(bg, "lazy", "k", []byte(`1`), store.Write{Create: true, Idle: long}))
	if f := state(t, b, "lazy", "k"); f.State != store.Live || string(f.Values["k"]) != `1` {
		t.Errorf("after a creating Save: %v %q", f.State, f.Values)
	}
	swapped, _, err := b.Swap(bg, "lazy2", "k", nil, []byte(`1`), store.Write{Create: true, Idle: long})
	if err != nil || !swapped {
		t.Fatalf("a creating Swap: %v, %v", swapped, err)
	}
	if v := load(t, b, "lazy2", "k"); v != `1` {
		t.Errorf("after a creating Swap: %q", v)
	}
}

// swap: Swap writes only over the value it was given, and returns the
// one there instead.
func swap(t *testing.T, _ Harness, b store.Backend) {
	must(t, "Create", errOf(b.Create(bg, "s", long)))
	if ok, cur, err := b.Swap(bg, "s", "k", nil, []byte(`1`), store.Write{}); err != nil || !ok || cur != nil {
		t.Fatalf("Swap over none: %v %q %v", ok, cur, err)
	}
	if ok, cur, err := b.Swap(bg, "s", "k", nil, []byte(`2`), store.Write{}); err != nil || ok || string(cur) != `1` {
		t.Errorf("Swap over none, when there is 1: %v %q %v; want refused, 1", ok, cur, err)
	}
	if ok, cur, err := b.Swap(bg, "s", "k", []byte(`3`), []byte(`2`), store.Write{}); err != nil || ok || string(cur) != `1` {
		t.Errorf("Swap over 3, when there is 1: %v %q %v; want refused, 1", ok, cur, err)
	}
	if ok, _, err := b.Swap(bg, "s", "k", []byte(`1`), []byte(`2`), store.Write{}); err != nil || !ok {
		t.Errorf("Swap over 1: %v %v", ok, err)
	}
	if v := load(t, b, "s", "k"); v != `2` {
		t.Errorf("after the swaps: %q, want 2", v)
	}
}

// swapConcurrent: concurrent read-change-write loops over Swap lose no
// update.
func swapConcurrent(t *testing.T, _ Harness, b store.Backend) {
	must(t, "Create", errOf(b.Create(bg, "s", long)))
	const writers, each = 8, 25
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range each {
				cur, err := b.Load(bg, "s", "n")
				for err == nil {
					n, _ := strconv.Atoi(string(cur))
					var ok bool
					if ok, cur, err = b.Swap(bg, "s", "n", cur, []byte(strconv.Itoa(n+1)), store.Write{}); ok {
						break
					}
				}
				if err != nil {
					t.Errorf("Swap: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if v := load(t, b, "s", "n"); v != strconv.Itoa(writers*each) {
		t.Errorf("%d increments by Swap: %s", writers*each, v)
	}
}

// end: an ended session stays ended; nothing reads or writes it, or
// creates it again.
func end(t *testing.T, _ Harness, b store.Backend) {
	must(t, "Create", errOf(b.Create(bg, "s", long)))
	must(t, "Save", b.Save(bg, "s", "k", []byte(`1`), store.Write{}))
	if ended, err := b.End(bg, "s", long); err != nil || !ended {
		t.Fatalf("End: %v, %v", ended, err)
	}
	if f := state(t, b, "s", "k"); f.State != store.Ended || len(f.Values) != 0 {
		t.Errorf("Open of an ended session: %v %q", f.State, f.Values)
	}
	if ended, err := b.End(bg, "s", long); err != nil || ended {
		t.Errorf("a second End: %v, %v; want false", ended, err)
	}
	if _, err := b.Load(bg, "s", "k"); !errors.Is(err, store.ErrEnded) {
		t.Errorf("Load: %v, want ErrEnded", err)
	}
	for _, w := range []store.Write{{}, {Create: true, Idle: long}} {
		if err := b.Save(bg, "s", "k", []byte(`2`), w); !errors.Is(err, store.ErrEnded) {
			t.Errorf("Save %+v: %v, want ErrEnded", w, err)
		}
		if _, _, err := b.Swap(bg, "s", "k", nil, []byte(`2`), w); !errors.Is(err, store.ErrEnded) {
			t.Errorf("Swap %+v: %v, want ErrEnded", w, err)
		}
	}
	if _, err := b.Create(bg, "s", long); !errors.Is(err, store.ErrEnded) {
		t.Errorf("Create: %v, want ErrEnded", err)
	}
	if f := state(t, b, "s"); f.State != store.Ended {
		t.Errorf("after the refused writes: %v", f.State)
	}
	if ended, err := b.End(bg, "never", long); err != nil || ended {
		t.Errorf("End of a session never created: %v, %v; want false", ended, err)
	}
	if err := b.Save(bg, "never", "k", []byte(`1`), store.Write{Create: true, Idle: long}); !errors.Is(err, store.ErrEnded) {
		t.Errorf("a creating Save after End: %v, want ErrEnded", err)
	}
}

// endConcurrent: of concurrent Ends of one live session, one ends it.
func endConcurrent(t *testing.T, _ Harness, b store.Backend) {
	for round := range 20 {
		sid := fmt.Sprint("s", round)
		must(t, "Create", errOf(b.Create(bg, sid, long)))
		var mu sync.Mutex
		ends := 0
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				ended, err := b.End(bg, sid, long)
				if err != nil {
					t.Errorf("End: %v", err)
				}
				if ended {
					mu.Lock()
					ends++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if ends != 1 {
			t.Fatalf("4 concurrent Ends: %d reported ending it, want 1", ends)
		}
	}
}

// endForget: End with keep 0 forgets the session at once.
func endForget(t *testing.T, _ Harness, b store.Backend) {
	must(t, "Create", errOf(b.Create(bg, "s", long)))
	must(t, "Save", b.Save(bg, "s", "k", []byte(`1`), store.Write{}))
	if _, err := b.End(bg, "s", 0); err != nil {
		t.Fatal(err)
	}
	if f := state(t, b, "s", "k"); f.State == store.Live {
		t.Errorf("after End with keep 0: %v %q", f.State, f.Values)
	}
}

// endKeepPasses: an ended session is forgotten once its keep has passed.
func endKeepPasses(t *testing.T, h Harness, b store.Backend) {
	must(t, "Create", errOf(b.Create(bg, "s", long)))
	if _, err := b.End(bg, "s", h.Idle); err != nil {
		t.Fatal(err)
	}
	h.Advance(t, b, 2*h.Idle)
	if f := state(t, b, "s"); f.State != store.Absent {
		t.Errorf("Open after the keep has passed: %v, want absent", f.State)
	}
}

// idle: a session unused for its idle TTL is dropped; one in use is not.
func idle(t *testing.T, h Harness, b store.Backend) {
	for _, sid := range []string{"used", "idle"} {
		must(t, "Create", errOf(b.Create(bg, sid, h.Idle)))
		must(t, "Save", b.Save(bg, sid, "k", []byte(`1`), store.Write{}))
	}
	for range 4 {
		h.Advance(t, b, 3*h.Idle/10)
		if f, err := b.Open(bg, "used", []string{"k"}, h.Idle); err != nil || f.State != store.Live || !bytes.Equal(f.Values["k"], []byte(`1`)) {
			t.Fatalf("a session in use: %v %q %v", f.State, f.Values, err)
		}
	}
	if f := state(t, b, "idle"); f.State != store.Absent {
		t.Errorf("a session idle for 1.2 times its idle TTL: %v, want absent", f.State)
	}
	h.Advance(t, b, 3*h.Idle/2)
	if f := state(t, b, "used"); f.State != store.Absent {
		t.Errorf("the used session, idle for 1.5 times its idle TTL: %v, want absent", f.State)
	}
}

func errOf(_ bool, err error) error { return err }

func list(t *testing.T, b store.Backend, sid, name string) []string {
	t.Helper()
	l, err := b.List(bg, sid, name)
	if err != nil {
		t.Fatalf("List(%s, %s): %v", sid, name, err)
	}
	var out []string
	for _, r := range l {
		out = append(out, string(r))
	}
	return out
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// appendList: a list keeps its newest records in order, apart from the
// session's values and other lists; Append never creates a session.
func appendList(t *testing.T, _ Harness, b store.Backend) {
	if err := b.Append(bg, "s1", "ledger", []byte("r0"), 3); !errors.Is(err, store.ErrEnded) {
		t.Fatalf("Append to an absent session: %v, want ErrEnded", err)
	}
	if f := state(t, b, "s1"); f.State != store.Absent {
		t.Fatalf("Append created the session: %v", f.State)
	}
	if got := list(t, b, "s1", "ledger"); got != nil {
		t.Fatalf("List of an absent session: %q", got)
	}
	must(t, "Create", errOf(b.Create(bg, "s1", long)))
	if got := list(t, b, "s1", "ledger"); got != nil {
		t.Fatalf("List of no list: %q", got)
	}
	for i := 1; i <= 5; i++ {
		must(t, "Append", b.Append(bg, "s1", "ledger", []byte(fmt.Sprintf(`{"n":%d}`, i)), 3))
	}
	// With max 16, a list holds the newest 16 to 18 (max/8 more).
	for i := 1; i <= 40; i++ {
		must(t, "Append", b.Append(bg, "s1", "long", []byte(strconv.Itoa(i)), 16))
	}
	if got := list(t, b, "s1", "long"); len(got) < 16 || len(got) > 18 || got[len(got)-1] != "40" || got[0] != strconv.Itoa(41-len(got)) {
		t.Errorf("a list of max 16 after 40 appends: %q, want the newest 16 to 18 in order", got)
	}
	must(t, "Append", b.Append(bg, "s1", "other", []byte("x"), 3))
	must(t, "Save", b.Save(bg, "s1", "ledger", []byte("value"), store.Write{}))
	if got, want := list(t, b, "s1", "ledger"), []string{`{"n":3}`, `{"n":4}`, `{"n":5}`}; !sameStrings(got, want) {
		t.Errorf("List = %q, want the newest 3 %q", got, want)
	}
	if got := list(t, b, "s1", "other"); !sameStrings(got, []string{"x"}) {
		t.Errorf("the other list = %q", got)
	}
	if got := load(t, b, "s1", "ledger"); got != "value" {
		t.Errorf("the value beside the list = %q", got)
	}
	if f := state(t, b, "s1", "ledger"); string(f.Values["ledger"]) != "value" || len(f.Values) != 1 {
		t.Errorf("Open's values = %q", f.Values)
	}
}

// listEnds: a session's lists go when it ends.
func listEnds(t *testing.T, _ Harness, b store.Backend) {
	for _, keep := range []time.Duration{long, 0} {
		sid := "s-" + strconv.FormatInt(int64(keep), 10)
		must(t, "Create", errOf(b.Create(bg, sid, long)))
		must(t, "Append", b.Append(bg, sid, "ledger", []byte("r"), 10))
		must(t, "End", errOf(b.End(bg, sid, keep)))
		_, err := b.List(bg, sid, "ledger")
		switch {
		case keep > 0 && !errors.Is(err, store.ErrEnded):
			t.Errorf("List of an ended session: %v, want ErrEnded", err)
		case keep == 0 && err != nil:
			t.Errorf("List of a forgotten session: %v", err)
		}
		if err := b.Append(bg, sid, "ledger", []byte("r"), 10); !errors.Is(err, store.ErrEnded) {
			t.Errorf("Append to an ended session: %v, want ErrEnded", err)
		}
		if keep == 0 {
			// Made again, it has no list.
			must(t, "Create", errOf(b.Create(bg, sid, long)))
			if got := list(t, b, sid, "ledger"); got != nil {
				t.Errorf("a session made again has the old list: %q", got)
			}
		}
	}
}
