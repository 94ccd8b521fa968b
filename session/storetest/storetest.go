// Package storetest checks a session.Store against the contract its doc
// states. Every store runs it, in memory or in Redis, and so does one
// written outside this repository, from a test:
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) session.Store { return newStore(t) }, nil)
//	}
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

	"github.com/mcpdoor/mcpdoor/session"
)

// idleTTL is the idle TTL the suite gives the sessions it lets idle out.
const idleTTL = time.Second

// long is an idle TTL or keep no subtest outlives.
const long = time.Hour

// Run runs the suite: each subtest on an empty store that newStore
// returns. wait lets d pass for a store: a test's forged clock moves; nil
// means the suite sleeps, for a store on a clock of its own (a server's),
// some seconds in all.
func Run(t *testing.T, newStore func(t *testing.T) session.Store, wait func(t *testing.T, s session.Store, d time.Duration)) {
	if wait == nil {
		wait = func(_ *testing.T, _ session.Store, d time.Duration) { time.Sleep(d) }
	}
	for _, tc := range []struct {
		name string
		run  func(c *check)
	}{
		{"Absent", absent},
		{"Create", create},
		{"SaveOpen", saveOpen},
		{"WritesCreate", writesCreate},
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
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			tc.run(&check{T: t, s: s, wait: func(d time.Duration) { wait(t, s, d) }})
		})
	}
}

// Lists is what a store that keeps lists in its sessions (the execution
// ledger of a rollout's session is one) adds to session.Store; the suite
// checks a store's lists when it has them, and skips their subtests when
// it has not.
type lists interface {
	Append(ctx context.Context, sid, list string, record []byte, max int) error
	List(ctx context.Context, sid, list string) ([][]byte, error)
}

// A check is one subtest's store, and what it reads and writes with.
type check struct {
	*testing.T
	s    session.Store
	wait func(d time.Duration)
}

var bg = context.Background()

// open opens sid, not creating it, and returns its values and whether
// it is held; ended reports ErrEnded.
func (c *check) open(sid string, keys ...string) (values map[string][]byte, held, ended bool) {
	c.Helper()
	values, held, err := c.s.Open(bg, sid, keys, long, false)
	if errors.Is(err, session.ErrEnded) {
		return values, held, true
	}
	if err != nil {
		c.Fatalf("Open(%s): %v", sid, err)
	}
	return values, held, false
}

// load returns key's value in sid.
func (c *check) load(sid, key string) string {
	c.Helper()
	values, _, _ := c.open(sid, key)
	return string(values[key])
}

// create makes sid live, with the idle TTL idle.
func (c *check) create(sid string, idle time.Duration) {
	c.Helper()
	if _, _, err := c.s.Open(bg, sid, nil, idle, true); err != nil {
		c.Fatalf("Open(%s), creating: %v", sid, err)
	}
}

// put saves value under key in sid, which it does not create.
func (c *check) put(sid, key, value string) {
	c.Helper()
	if err := c.s.Save(bg, sid, key, []byte(value), long, false); err != nil {
		c.Fatalf("Save(%s, %s): %v", sid, key, err)
	}
}

// absent: a session nobody created is absent, has no value, and takes no
// write that may not create it.
func absent(c *check) {
	if values, held, ended := c.open("nobody", "k"); held || ended || len(values) != 0 {
		c.Errorf("Open of a session never created: held %v, ended %v, values %q; want absent", held, ended, values)
	}
	if err := c.s.Save(bg, "nobody", "k", []byte("1"), long, false); !errors.Is(err, session.ErrEnded) {
		c.Errorf("Save of an absent session, not creating: %v, want ErrEnded", err)
	}
	if _, _, err := c.s.Swap(bg, "nobody", "k", nil, []byte("1"), long, false); !errors.Is(err, session.ErrEnded) {
		c.Errorf("Swap of an absent session, not creating: %v, want ErrEnded", err)
	}
	if _, held, ended := c.open("nobody"); held || ended {
		c.Errorf("a refused write created the session: held %v, ended %v", held, ended)
	}
}

// create: Open with create makes a session live once, and keeps what it
// holds.
func create(c *check) {
	if _, held, err := c.s.Open(bg, "s", nil, long, true); err != nil || held {
		c.Fatalf("Open, creating: held %v, %v; want created", held, err)
	}
	if values, held, _ := c.open("s", "k"); !held || len(values) != 0 {
		c.Errorf("Open after creating: held %v, values %q; want live and empty", held, values)
	}
	c.put("s", "k", `"v"`)
	if values, held, err := c.s.Open(bg, "s", []string{"k"}, long, true); err != nil || !held || string(values["k"]) != `"v"` {
		c.Errorf("Open, creating, of a live session: held %v, values %q, %v; want it kept", held, values, err)
	}
}

// saveOpen: what Save saved, Open reads, as copies; Open leaves out the
// keys without a value.
func saveOpen(c *check) {
	c.create("s", long)
	v := []byte(`{"a":1}`)
	if err := c.s.Save(bg, "s", "k", v, long, false); err != nil {
		c.Fatalf("Save: %v", err)
	}
	v[0] = 'x'
	values, _, _ := c.open("s", "k", "none")
	if string(values["k"]) != `{"a":1}` || len(values) != 1 {
		c.Fatalf("Open's values: %q", values)
	}
	values["k"][0] = 'z'
	if v := c.load("s", "k"); v != `{"a":1}` {
		c.Errorf("the store's value changed with a caller's copy: %q", v)
	}
	c.put("s", "k", `2`)
	if v := c.load("s", "k"); v != `2` {
		c.Errorf("a second Save: %q, want 2", v)
	}
	if v := c.load("s", "other"); v != "" {
		c.Errorf("a key never saved: %q", v)
	}
}

// writesCreate: a creating Save or Swap makes an absent session live.
func writesCreate(c *check) {
	if err := c.s.Save(bg, "lazy", "k", []byte(`1`), long, true); err != nil {
		c.Fatalf("a creating Save: %v", err)
	}
	if values, held, _ := c.open("lazy", "k"); !held || string(values["k"]) != `1` {
		c.Errorf("after a creating Save: held %v, values %q", held, values)
	}
	ok, _, err := c.s.Swap(bg, "lazy2", "k", nil, []byte(`1`), long, true)
	if err != nil || !ok {
		c.Fatalf("a creating Swap: %v, %v", ok, err)
	}
	if values, held, _ := c.open("lazy2", "k"); !held || string(values["k"]) != `1` {
		c.Errorf("after a creating Swap: held %v, values %q", held, values)
	}
}

// swap: Swap writes only over the value it was given, and returns the
// one there instead.
func swap(c *check) {
	c.create("s", long)
	sw := func(old, value []byte) (bool, string, error) {
		ok, cur, err := c.s.Swap(bg, "s", "k", old, value, long, false)
		return ok, string(cur), err
	}
	if ok, cur, err := sw(nil, []byte(`1`)); err != nil || !ok || cur != "" {
		c.Fatalf("Swap over none: %v %q %v", ok, cur, err)
	}
	if ok, cur, err := sw(nil, []byte(`2`)); err != nil || ok || cur != `1` {
		c.Errorf("Swap over none, when there is 1: %v %q %v; want refused, 1", ok, cur, err)
	}
	if ok, cur, err := sw([]byte(`3`), []byte(`2`)); err != nil || ok || cur != `1` {
		c.Errorf("Swap over 3, when there is 1: %v %q %v; want refused, 1", ok, cur, err)
	}
	if ok, _, err := sw([]byte(`1`), []byte(`2`)); err != nil || !ok {
		c.Errorf("Swap over 1: %v %v", ok, err)
	}
	if v := c.load("s", "k"); v != `2` {
		c.Errorf("after the swaps: %q, want 2", v)
	}
}

// swapConcurrent: concurrent read-change-write loops over Swap lose no
// update.
func swapConcurrent(c *check) {
	c.create("s", long)
	const writers, each = 8, 25
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range each {
				values, _, err := c.s.Open(bg, "s", []string{"n"}, long, false)
				cur := values["n"]
				for err == nil {
					n, _ := strconv.Atoi(string(cur))
					var ok bool
					if ok, cur, err = c.s.Swap(bg, "s", "n", cur, []byte(strconv.Itoa(n+1)), long, false); ok {
						break
					}
				}
				if err != nil {
					c.Errorf("Swap: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if v := c.load("s", "n"); v != strconv.Itoa(writers*each) {
		c.Errorf("%d increments by Swap: %s", writers*each, v)
	}
}

// end: an ended session stays ended; nothing reads or writes it, or
// creates it again.
func end(c *check) {
	c.create("s", long)
	c.put("s", "k", `1`)
	if ended, err := c.s.End(bg, "s", long); err != nil || !ended {
		c.Fatalf("End: %v, %v", ended, err)
	}
	if values, held, ended := c.open("s", "k"); !ended || held || len(values) != 0 {
		c.Errorf("Open of an ended session: held %v, ended %v, values %q; want ErrEnded", held, ended, values)
	}
	if ended, err := c.s.End(bg, "s", long); err != nil || ended {
		c.Errorf("a second End: %v, %v; want false", ended, err)
	}
	for _, create := range []bool{false, true} {
		if err := c.s.Save(bg, "s", "k", []byte(`2`), long, create); !errors.Is(err, session.ErrEnded) {
			c.Errorf("Save (create %v): %v, want ErrEnded", create, err)
		}
		if _, _, err := c.s.Swap(bg, "s", "k", nil, []byte(`2`), long, create); !errors.Is(err, session.ErrEnded) {
			c.Errorf("Swap (create %v): %v, want ErrEnded", create, err)
		}
		if _, _, err := c.s.Swap(bg, "s", "k", []byte(`1`), []byte(`2`), long, create); !errors.Is(err, session.ErrEnded) {
			c.Errorf("Swap over the old value (create %v): %v, want ErrEnded", create, err)
		}
	}
	if _, _, err := c.s.Open(bg, "s", nil, long, true); !errors.Is(err, session.ErrEnded) {
		c.Errorf("Open, creating: %v, want ErrEnded", err)
	}
	if _, _, ended := c.open("s"); !ended {
		c.Errorf("after the refused writes: not ended")
	}
	if ended, err := c.s.End(bg, "never", long); err != nil || ended {
		c.Errorf("End of a session never created: %v, %v; want false", ended, err)
	}
	if err := c.s.Save(bg, "never", "k", []byte(`1`), long, true); !errors.Is(err, session.ErrEnded) {
		c.Errorf("a creating Save after End: %v, want ErrEnded", err)
	}
}

// endConcurrent: of concurrent Ends of one live session, one ends it.
func endConcurrent(c *check) {
	for round := range 20 {
		sid := fmt.Sprint("s", round)
		c.create(sid, long)
		var mu sync.Mutex
		ends := 0
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				ended, err := c.s.End(bg, sid, long)
				if err != nil {
					c.Errorf("End: %v", err)
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
			c.Fatalf("4 concurrent Ends: %d reported ending it, want 1", ends)
		}
	}
}

// endForget: End with keep 0 forgets the session at once.
func endForget(c *check) {
	c.create("s", long)
	c.put("s", "k", `1`)
	if _, err := c.s.End(bg, "s", 0); err != nil {
		c.Fatal(err)
	}
	if values, held, _ := c.open("s", "k"); held {
		c.Errorf("after End with keep 0: held, values %q", values)
	}
}

// endKeepPasses: an ended session is forgotten once its keep has passed.
func endKeepPasses(c *check) {
	c.create("s", long)
	if _, err := c.s.End(bg, "s", idleTTL); err != nil {
		c.Fatal(err)
	}
	c.wait(2 * idleTTL)
	if _, held, ended := c.open("s"); held || ended {
		c.Errorf("Open after the keep has passed: held %v, ended %v; want absent", held, ended)
	}
}

// idle: a session unused for its idle TTL is dropped; one in use is not.
func idle(c *check) {
	for _, sid := range []string{"used", "idle"} {
		c.create(sid, idleTTL)
		if err := c.s.Save(bg, sid, "k", []byte(`1`), idleTTL, false); err != nil {
			c.Fatalf("Save(%s): %v", sid, err)
		}
	}
	for range 4 {
		c.wait(3 * idleTTL / 10)
		if values, held, err := c.s.Open(bg, "used", []string{"k"}, idleTTL, false); err != nil || !held || !bytes.Equal(values["k"], []byte(`1`)) {
			c.Fatalf("a session in use: held %v, values %q, %v", held, values, err)
		}
	}
	if _, held, _ := c.open("idle"); held {
		c.Errorf("a session idle for 1.2 times its idle TTL is still held")
	}
	c.wait(3 * idleTTL / 2)
	if _, held, _ := c.open("used"); held {
		c.Errorf("the used session, idle for 1.5 times its idle TTL, is still held")
	}
}

// lists returns the check's store's lists, or skips the subtest.
func (c *check) lists() lists {
	c.Helper()
	l, ok := c.s.(lists)
	if !ok {
		c.Skip("the store keeps no lists (no Append and List methods)")
	}
	return l
}

// list reads the list called name in sid.
func (c *check) list(l lists, sid, name string) []string {
	c.Helper()
	recs, err := l.List(bg, sid, name)
	if err != nil {
		c.Fatalf("List(%s, %s): %v", sid, name, err)
	}
	var out []string
	for _, r := range recs {
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
func appendList(c *check) {
	l := c.lists()
	if err := l.Append(bg, "s1", "ledger", []byte("r0"), 3); !errors.Is(err, session.ErrEnded) {
		c.Fatalf("Append to an absent session: %v, want ErrEnded", err)
	}
	if _, held, _ := c.open("s1"); held {
		c.Fatalf("Append created the session")
	}
	if got := c.list(l, "s1", "ledger"); got != nil {
		c.Fatalf("List of an absent session: %q", got)
	}
	c.create("s1", long)
	if got := c.list(l, "s1", "ledger"); got != nil {
		c.Fatalf("List of no list: %q", got)
	}
	for i := 1; i <= 5; i++ {
		if err := l.Append(bg, "s1", "ledger", []byte(fmt.Sprintf(`{"n":%d}`, i)), 3); err != nil {
			c.Fatalf("Append: %v", err)
		}
	}
	// With max 16, a list holds the newest 16 to 18 (max/8 more).
	for i := 1; i <= 40; i++ {
		if err := l.Append(bg, "s1", "long", []byte(strconv.Itoa(i)), 16); err != nil {
			c.Fatalf("Append: %v", err)
		}
	}
	if got := c.list(l, "s1", "long"); len(got) < 16 || len(got) > 18 || got[len(got)-1] != "40" || got[0] != strconv.Itoa(41-len(got)) {
		c.Errorf("a list of max 16 after 40 appends: %q, want the newest 16 to 18 in order", got)
	}
	if err := l.Append(bg, "s1", "other", []byte("x"), 3); err != nil {
		c.Fatalf("Append: %v", err)
	}
	c.put("s1", "ledger", "value")
	if got, want := c.list(l, "s1", "ledger"), []string{`{"n":3}`, `{"n":4}`, `{"n":5}`}; !sameStrings(got, want) {
		c.Errorf("List = %q, want the newest 3 %q", got, want)
	}
	if got := c.list(l, "s1", "other"); !sameStrings(got, []string{"x"}) {
		c.Errorf("the other list = %q", got)
	}
	if values, _, _ := c.open("s1", "ledger"); string(values["ledger"]) != "value" || len(values) != 1 {
		c.Errorf("Open's values beside the lists = %q", values)
	}
}

// listEnds: a session's lists go when it ends.
func listEnds(c *check) {
	l := c.lists()
	for _, keep := range []time.Duration{long, 0} {
		sid := "s-" + strconv.FormatInt(int64(keep), 10)
		c.create(sid, long)
		if err := l.Append(bg, sid, "ledger", []byte("r"), 10); err != nil {
			c.Fatalf("Append: %v", err)
		}
		if _, err := c.s.End(bg, sid, keep); err != nil {
			c.Fatalf("End: %v", err)
		}
		_, err := l.List(bg, sid, "ledger")
		switch {
		case keep > 0 && !errors.Is(err, session.ErrEnded):
			c.Errorf("List of an ended session: %v, want ErrEnded", err)
		case keep == 0 && err != nil:
			c.Errorf("List of a forgotten session: %v", err)
		}
		if err := l.Append(bg, sid, "ledger", []byte("r"), 10); !errors.Is(err, session.ErrEnded) {
			c.Errorf("Append to an ended session: %v, want ErrEnded", err)
		}
		if keep == 0 {
			// Made again, it has no list.
			c.create(sid, long)
			if got := c.list(l, sid, "ledger"); got != nil {
				c.Errorf("a session made again has the old list: %q", got)
			}
		}
	}
}
