// Package leakcheck fails a test that leaves goroutines running, with the
// standard library alone, so that the library module's own tests need no
// leak checker in its go.mod (a user's module graph would list it). The
// whole-door tests (tests/, a module of their own) use goleak.
//
// A goroutine leaks when it started during the test and still runs once
// the test is over: every server, client and session a test starts must
// end with it. A goroutine that is ending when the test ends gets a few
// seconds to do so.
package leakcheck

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// settle is how long a goroutine that started during a test may take to
// end once the test is over.
var settle = 5 * time.Second

// Check fails t, once its test and every cleanup registered after it have
// run, when a goroutine that started since the call still runs. Call it
// first in the test, before anything starts a goroutine.
func Check(t testing.TB) {
	t.Helper()
	before := ids(dump())
	t.Cleanup(func() {
		if leaked := wait(before); len(leaked) > 0 {
			t.Errorf("leakcheck: %d goroutines started by the test still run:\n\n%s", len(leaked), strings.Join(leaked, "\n\n"))
		}
	})
}

// Main runs the tests of m, as a TestMain does, and fails the run when a
// goroutine that started during it still runs at the end. It returns the
// exit code for os.Exit.
func Main(m *testing.M) int {
	before := ids(dump())
	code := m.Run()
	if code != 0 {
		return code
	}
	if leaked := wait(before); len(leaked) > 0 {
		fmt.Fprintf(os.Stderr, "leakcheck: %d goroutines started by the tests still run:\n\n%s\n", len(leaked), strings.Join(leaked, "\n\n"))
		return 1
	}
	return 0
}

// wait returns the stacks of the goroutines running that are not in
// before, once there are none or settle has passed.
func wait(before map[string]bool) []string {
	deadline := time.Now().Add(settle)
	for delay := time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		var leaked []string
		for _, g := range goroutines(dump()) {
			if !before[id(g)] && !innocent(g) {
				leaked = append(leaked, g)
			}
		}
		if len(leaked) == 0 || time.Now().After(deadline) {
			return leaked
		}
		time.Sleep(delay)
	}
}

// dump is the stack of every goroutine, as runtime.Stack writes it.
func dump() []byte {
	for n := 1 << 16; ; n *= 2 {
		buf := make([]byte, n)
		if m := runtime.Stack(buf, true); m < n {
			return buf[:m]
		}
	}
}

// goroutines splits a dump into one stack per goroutine.
func goroutines(d []byte) []string {
	var out []string
	for g := range bytes.SplitSeq(bytes.TrimSpace(d), []byte("\n\n")) {
		out = append(out, string(g))
	}
	return out
}

// ids returns the ids of the goroutines of a dump.
func ids(d []byte) map[string]bool {
	out := make(map[string]bool)
	for _, g := range goroutines(d) {
		out[id(g)] = true
	}
	return out
}

// id is a goroutine's id, from its stack's first line:
// "goroutine 7 [chan receive]:".
func id(stack string) string {
	f := strings.Fields(stack)
	if len(f) < 2 {
		return ""
	}
	return f[1]
}

// innocent reports whether a goroutine is one the testing package or the
// runtime keeps for itself: a test's own goroutine waiting for its
// subtests, the signal handler's.
func innocent(stack string) bool {
	_, frames, _ := strings.Cut(stack, "\n")
	top, _, _ := strings.Cut(frames, "(")
	return strings.HasPrefix(top, "testing.") || strings.HasPrefix(top, "os/signal.") || strings.HasPrefix(top, "runtime.ensureSigM")
}
