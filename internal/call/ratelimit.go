package call

import (
	"cmp"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/toolset"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"
)

// rateLimit returns the isError result refusing a call from who over
// mcp.rate_limit, or nil when the call may go on. Only MCP calls count;
// the HTTP door is not limited.
func (p *Pipeline) rateLimit(t *toolset.Tool, who caller) *mcp.CallToolResult {
	if p.limiter == nil {
		return nil
	}
	ok, wait := p.limiter.allow(p.limiter.key(who))
	if ok {
		return nil
	}
	wait = retryHint(wait)
	whose, message := "this session", "the session has made more calls than mcp.rate_limit allows"
	switch p.limiter.by {
	case ByClient:
		whose, message = "this client address", "calls from this client address exceed mcp.rate_limit (by: client)"
	case ByServer:
		whose, message = "this server", "the server's calls exceed mcp.rate_limit (by: server)"
	}
	return t.Fail(fmt.Sprintf("Rate limit exceeded for %s; retry in %s.", whose, wait),
		toolset.ErrorInfo{
			Code:         toolset.CodeRateLimited,
			Message:      message,
			Status:       http.StatusTooManyRequests,
			Effect:       toolset.EffectNotApplied,
			RetryAfterMs: wait.Milliseconds(),
		})
}

// key returns the bucket a call from who takes from (see RateLimit.By).
func (l *rateLimiter) key(who caller) string {
	switch l.by {
	case ByServer:
		return ""
	case ByClient:
		return clientKey(who.req)
	}
	return who.sid
}

// clientKey returns the client address a request comes from, for a
// bucket: the IP of its RemoteAddr, or for IPv6 the /64 it is in. A call
// over stdio (no request) is the one local client.
func clientKey(r *http.Request) string {
	if r == nil {
		return "stdio"
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	addr = addr.Unmap()
	if addr.Is6() {
		p, _ := addr.WithZone("").Prefix(64)
		return p.String()
	}
	return addr.String()
}

// RateLimit is a door's mcp.rate_limit: PerSession calls a second, in
// bursts of Burst (0: PerSession rounded up), to each bucket that By names;
// off when PerSession is 0.
type RateLimit struct {
	PerSession float64
	Burst      int
	By         string // BySession (""), ByClient or ByServer
}

// What a rate limit's buckets are counted by (RateLimit.By).
const (
	BySession = "session" // the session each call runs in
	ByClient  = "client"  // the client address of the call's HTTP request
	ByServer  = "server"  // one bucket for every call
)

// maxBuckets bounds the rate limiter's memory: the number of sessions (or
// client addresses) it remembers. Beyond it, those closest to a full bucket
// are forgotten first (they start again with a full burst).
const maxBuckets = 1 << 16

// rateLimiter is mcp.rate_limit: one token bucket (golang.org/x/time/rate)
// per key — session id, client address, or the one server-wide key, as
// mcp.rate_limit.by says — shared by every tool. It is safe for concurrent
// use.
//
// It runs no goroutine. Buckets are swept lazily, on the call path: a bucket
// that has refilled to its burst behaves exactly like a new one, so it is
// dropped without changing any answer. The map thus holds the sessions that
// called within about one refill period, and never more than maxBuckets.
type rateLimiter struct {
	limit rate.Limit
	burst int
	by    string        // BySession, ByClient or ByServer
	every time.Duration // how often to sweep: the time a bucket takes to refill
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
	nextSweep time.Time
}

// newRateLimiter returns the limiter for rl, or nil when rl is off.
func newRateLimiter(rl RateLimit) *rateLimiter {
	if rl.PerSession <= 0 {
		return nil
	}
	burst := rl.Burst
	if burst == 0 {
		burst = int(math.Ceil(rl.PerSession))
	}
	refill := min(float64(burst)/rl.PerSession, maxWait.Seconds()) // seconds
	return &rateLimiter{
		limit:   rate.Limit(rl.PerSession),
		burst:   burst,
		by:      cmp.Or(rl.By, BySession),
		every:   max(time.Duration(refill*float64(time.Second)), time.Second),
		now:     time.Now,
		buckets: make(map[string]*rate.Limiter),
	}
}

// allow takes one call from the bucket of sid (a session id, or another
// key: see key). When the bucket is empty it takes
// nothing and returns how long until a call would be allowed.
func (l *rateLimiter) allow(sid string) (ok bool, retryAfter time.Duration) {
	now := l.now()
	l.mu.Lock()
	b := l.buckets[sid]
	if b == nil {
		if !now.Before(l.nextSweep) || len(l.buckets) >= maxBuckets {
			l.sweep(now)
		}
		b = rate.NewLimiter(l.limit, l.burst)
		l.buckets[sid] = b
	}
	l.mu.Unlock()
	if b.AllowN(now, 1) {
		return true, 0
	}
	wait := (1 - b.TokensAt(now)) / float64(l.limit) // seconds
	// A rate so low that the wait overflows a Duration says a day.
	return false, time.Duration(min(wait, maxWait.Seconds()) * float64(time.Second))
}

// maxWait caps the wait allow reports.
const maxWait = 24 * time.Hour

// sweep drops the buckets that have refilled, and, if that leaves the map
// at maxBuckets, the fullest quarter of the rest. l.mu is held.
func (l *rateLimiter) sweep(now time.Time) {
	l.nextSweep = now.Add(l.every)
	full := float64(l.burst)
	for sid, b := range l.buckets {
		if b.TokensAt(now) >= full {
			delete(l.buckets, sid)
		}
	}
	if len(l.buckets) < maxBuckets {
		return
	}
	type bucket struct {
		sid    string
		tokens float64
	}
	all := make([]bucket, 0, len(l.buckets))
	for sid, b := range l.buckets {
		all = append(all, bucket{sid, b.TokensAt(now)})
	}
	slices.SortFunc(all, func(a, b bucket) int { return cmp.Compare(b.tokens, a.tokens) })
	for _, b := range all[:len(all)/4] {
		delete(l.buckets, b.sid)
	}
}

// size is the number of sessions the limiter remembers.
func (l *rateLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// retryHint rounds a wait up to what a reader wants to see: tenths of a
// second under ten seconds, whole seconds above.
func retryHint(d time.Duration) time.Duration {
	unit := 100 * time.Millisecond
	if d >= 10*time.Second {
		unit = time.Second
	}
	return (d + unit - 1) / unit * unit
}

// Limiter returns the rate limit the pipeline's calls are held to, its
// burst and buckets filled in; false when mcp.rate_limit is off.
func (p *Pipeline) Limiter() (RateLimit, bool) {
	l := p.limiter
	if l == nil {
		return RateLimit{}, false
	}
	return RateLimit{PerSession: float64(l.limit), Burst: l.burst, By: l.by}, true
}
