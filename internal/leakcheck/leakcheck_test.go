package leakcheck

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// recorder is the testing.TB a Check reports to: it keeps the cleanups
// and the errors.
type recorder struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (r *recorder) Helper()          {}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(format string, a ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, a...))
}

// end runs the cleanups, as the end of a test does.
func (r *recorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// blocked waits on ch: a goroutine the tests leave running.
func blocked(ch chan struct{}) { <-ch }

// TestCheck: a goroutine left running is reported with its stack; one that
// ends, even a moment after the test, is not; neither is one that ran
// before the test started.
func TestCheck(t *testing.T) {
	defer func(d time.Duration) { settle = d }(settle)
	settle = 200 * time.Millisecond

	older := make(chan struct{})
	defer close(older)
	go blocked(older)

	t.Run("leaked", func(t *testing.T) {
		rec := &recorder{}
		Check(rec)
		ch := make(chan struct{})
		defer close(ch)
		go blocked(ch)
		rec.end()
		if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "leakcheck: 1 goroutines started by the test still run") || !strings.Contains(rec.errors[0], "leakcheck.blocked") {
			t.Errorf("errors %q, want the blocked goroutine's stack", rec.errors)
		}
	})
	t.Run("ends late", func(t *testing.T) {
		rec := &recorder{}
		Check(rec)
		ch := make(chan struct{})
		go blocked(ch)
		time.AfterFunc(20*time.Millisecond, func() { close(ch) })
		rec.end()
		if len(rec.errors) != 0 {
			t.Errorf("errors %q, want none", rec.errors)
		}
	})
}
