package call

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// clock is a settable time for the limiter.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func limiterAt(rl RateLimit, c *clock) *rateLimiter {
	l := newRateLimiter(rl)
	l.now = c.now
	return l
}

func TestRateLimiterOff(t *testing.T) {
	if l := newRateLimiter(RateLimit{}); l != nil {
		t.Errorf("per_session 0: %+v, want nil (off)", l)
	}
}

// TestRateLimiter walks one session's bucket through time: the burst, the
// refusals and their waits, the refill; another session has its own.
func TestRateLimiter(t *testing.T) {
	c := newClock()
	l := limiterAt(RateLimit{PerSession: 2, Burst: 3}, c)
	type step struct {
		advance time.Duration
		sid     string
		ok      bool
		wait    time.Duration
	}
	for i, s := range []step{
		{0, "a", true, 0},
		{0, "a", true, 0},
		{0, "a", true, 0},
		{0, "a", false, 500 * time.Millisecond}, // empty; one token per 500ms
		{0, "b", true, 0},                       // another session
		{200 * time.Millisecond, "a", false, 300 * time.Millisecond},
		{300 * time.Millisecond, "a", true, 0},
		{0, "a", false, 500 * time.Millisecond},
		{10 * time.Second, "a", true, 0}, // refilled to the burst, no more
		{0, "a", true, 0},
		{0, "a", true, 0},
		{0, "a", false, 500 * time.Millisecond},
	} {
		c.advance(s.advance)
		ok, wait := l.allow(s.sid)
		if ok != s.ok || wait != s.wait {
			t.Errorf("step %d (%s): allow = %v, %v; want %v, %v", i, s.sid, ok, wait, s.ok, s.wait)
		}
	}
}

func TestRateLimiterTinyRate(t *testing.T) {
	l := limiterAt(RateLimit{PerSession: 1e-300, Burst: 1}, newClock())
	l.allow("a")
	if ok, wait := l.allow("a"); ok || wait != 24*time.Hour {
		t.Errorf("allow = %v, %v; want false, 24h", ok, wait)
	}
}

func TestRateLimiterDefaultBurst(t *testing.T) {
	for _, tc := range []struct {
		perSession float64
		burst      int
	}{{0.5, 1}, {1, 1}, {2.5, 3}, {10, 10}} {
		if got := newRateLimiter(RateLimit{PerSession: tc.perSession}).burst; got != tc.burst {
			t.Errorf("per_session %v: burst %d, want %d", tc.perSession, got, tc.burst)
		}
	}
}

// TestRateLimiterSweep: buckets that have refilled are forgotten (a new one
// would answer the same), the others kept; the map never passes
// maxBuckets.
func TestRateLimiterSweep(t *testing.T) {
	c := newClock()
	l := limiterAt(RateLimit{PerSession: 1, Burst: 2}, c) // refills in 2s; sweeps every 2s
	l.allow("idle")                                       // the first sweep, of nothing; the next is due in 2s
	c.advance(time.Second)
	l.allow("busy")
	l.allow("busy")
	c.advance(1500 * time.Millisecond)
	l.allow("new-1") // sweeps: idle has 2 tokens (full), busy 1.5
	if got := l.size(); got != 2 {
		t.Errorf("after the first sweep: %d sessions, want 2 (busy, new-1)", got)
	}
	if ok, _ := l.allow("busy"); !ok {
		t.Error("busy lost its tokens in the sweep")
	}
	if ok, wait := l.allow("busy"); ok || wait != 500*time.Millisecond {
		t.Errorf("busy: %v %v; its bucket should have been kept (0.5 tokens left)", ok, wait)
	}
	c.advance(time.Hour)
	l.allow("new-2")
	if got := l.size(); got != 1 {
		t.Errorf("after an hour: %d sessions, want 1", got)
	}

	t.Run("bounded", func(t *testing.T) {
		c := newClock()
		l := limiterAt(RateLimit{PerSession: 0.001, Burst: 1}, c) // nothing refills
		for i := range maxBuckets + 10 {
			l.allow(fmt.Sprint("s", i))
		}
		if got := l.size(); got > maxBuckets {
			t.Errorf("%d sessions remembered, want at most %d", got, maxBuckets)
		}
	})
}

func TestRetryHint(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want string
	}{
		{time.Nanosecond, "100ms"},
		{100 * time.Millisecond, "100ms"},
		{1150 * time.Millisecond, "1.2s"},
		{1200 * time.Millisecond, "1.2s"},
		{9950 * time.Millisecond, "10s"},
		{10*time.Second + time.Millisecond, "11s"},
		{99*time.Second + 995*time.Millisecond, "1m40s"},
	} {
		if got := retryHint(tc.in).String(); got != tc.want {
			t.Errorf("retryHint(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// BenchmarkRateLimiter measures allow on its own: one session, and calls
// spread over 10,000 sessions from parallel goroutines.
func BenchmarkRateLimiter(b *testing.B) {
	b.Run("one_session", func(b *testing.B) {
		l := newRateLimiter(RateLimit{PerSession: 1e9, Burst: 1e9})
		b.ReportAllocs()
		for b.Loop() {
			l.allow("s")
		}
	})
	b.Run("10k_sessions_parallel", func(b *testing.B) {
		l := newRateLimiter(RateLimit{PerSession: 1e9, Burst: 1e9})
		sids := make([]string, 10000)
		for i := range sids {
			sids[i] = fmt.Sprint("session-", i)
			l.allow(sids[i])
		}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				l.allow(sids[i%len(sids)])
				i++
			}
		})
	})
}

// TestRateLimitClientKey: by client, a call's bucket is its request's IP,
// an IPv6 address's /64 (a host often holds the whole of one), an IPv4
// address in IPv6 form as IPv4; calls over stdio share one.
func TestRateLimitClientKey(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:5000":                 "127.0.0.1",
		"[2001:db8:1:2:aaaa::1]:443":     "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::9]:80":      "2001:db8:1:2::/64",
		"[::ffff:192.0.2.7]:80":          "192.0.2.7",
		"[fe80::1%eth0]:80":              "fe80::/64",
		"not an address":                 "not an address",
		"192.0.2.8":                      "192.0.2.8",
		"[2001:db8:1:3::1]:443":          "2001:db8:1:3::/64",
		"[2001:db8:1:2:0:0:0:1234]:1234": "2001:db8:1:2::/64",
	} {
		if got := clientKey(&http.Request{RemoteAddr: addr}); got != want {
			t.Errorf("clientKey(%q) = %q, want %q", addr, got, want)
		}
	}
	if got := clientKey(nil); got != "stdio" {
		t.Errorf("clientKey(nil) = %q", got)
	}
	l := newRateLimiter(RateLimit{PerSession: 1, By: ByServer})
	if a, b := l.key(caller{sid: "a"}), l.key(caller{sid: "b"}); a != b {
		t.Errorf("by server: keys %q and %q differ", a, b)
	}
}
