package edge

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A stateful session costs a goroutine and a few KiB for as long as it
// lives, and any client may open one, credentials or not. Two bounds keep
// what sessions hold in proportion, whoever opens them:
//
//   - SessionCap: at most mcp.max_sessions are live (or being opened) at
//     once; a POST that would open one more gets 503;
//   - UnusedSessions: a session that makes no request after its initialize
//     ends after mcp.unused_session_timeout, not idle_timeout, so that
//     clients that open sessions and leave (a crash before the first call,
//     a probe, a scan) free their places under the cap in seconds.
//
// A cap per client address would not hold: behind a proxy every client has
// the proxy's address, and an attacker has many. The cap bounds the memory;
// the short first timeout keeps the cap for clients that use their
// sessions.

// sessionCapCode is the JSON-RPC error code of the 503.
const sessionCapCode = -32000

// A sessionCap admits a POST that may open a session (one without
// Mcp-Session-Id) while fewer than max sessions are live or being opened.
type sessionCap struct {
	max     int
	live    func() int // the live sessions
	message string     // the 503's
	retry   string     // its Retry-After, in seconds

	mu      sync.Mutex
	opening int // admitted POSTs without a session, being served
}

// SessionCap is the step that admits a POST that may open a session
// while fewer than max (mcp.max_sessions) are live, as live counts them,
// or being opened; past the cap it answers 503 with a Retry-After of
// unused (mcp.unused_session_timeout), when sessions opened and left free
// their places.
func SessionCap(max int, unused time.Duration, live func() int) func(http.Handler) http.Handler {
	return newSessionCap(max, unused, live).wrap
}

func newSessionCap(max int, unused time.Duration, live func() int) *sessionCap {
	return &sessionCap{
		max:  max,
		live: live,
		message: fmt.Sprintf("mcpdoor: this MCP server has %d live sessions, its limit (mcp.max_sessions); "+
			"retry in %s, when sessions opened and left have ended (mcp.unused_session_timeout), or end a session with DELETE",
			max, Seconds(unused)),
		retry: strconv.Itoa(int(math.Ceil(unused.Seconds()))),
	}
}

// admit counts a POST without a session as opening one, unless the cap is
// reached. The caller calls opened once the POST's session, if it keeps
// one, is live (and counted as such): when the go-sdk writes the response,
// which the client may act on before the handler has returned.
func (c *sessionCap) admit() (opened func(), ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opening+c.live() >= c.max {
		return nil, false
	}
	c.opening++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			c.opening--
			c.mu.Unlock()
		})
	}, true
}

// wrap serves next under the cap.
func (c *sessionCap) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(SessionIDHeader) != "" {
			next.ServeHTTP(w, r)
			return
		}
		opened, ok := c.admit()
		if !ok {
			// The id of the request, for the client to match the error to.
			w.Header().Set("Retry-After", c.retry)
			wire.WriteError(w, http.StatusServiceUnavailable, requestID(HeldBody(r)), sessionCapCode, c.message)
			return
		}
		defer opened()
		next.ServeHTTP(&openingWriter{w, opened}, r)
	})
}

// An openingWriter is the response to a POST that may open a session: the
// go-sdk registers the session before it writes any of it.
type openingWriter struct {
	http.ResponseWriter
	opened func()
}

func (o *openingWriter) WriteHeader(code int) {
	o.opened()
	o.ResponseWriter.WriteHeader(code)
}

func (o *openingWriter) Write(b []byte) (int, error) {
	o.opened()
	return o.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController, with which the go-sdk flushes, the
// writer underneath.
func (o *openingWriter) Unwrap() http.ResponseWriter { return o.ResponseWriter }

// An UnusedSessions ends each session that makes no request after its
// initialize within timeout (notifications/initialized, the end of the
// handshake, is not one). It keeps a timer for each such session, and
// nothing once a session has made a request. It is safe for concurrent use.
type UnusedSessions struct {
	timeout time.Duration

	mu      sync.Mutex
	waiting map[string]*time.Timer // by session id
	stopped bool
}

// NewUnusedSessions returns the UnusedSessions of timeout
// (mcp.unused_session_timeout).
func NewUnusedSessions(timeout time.Duration) *UnusedSessions {
	return &UnusedSessions{timeout: timeout, waiting: make(map[string]*time.Timer)}
}

// Middleware is the go-sdk server's receiving middleware that sees each
// session's requests.
func (u *UnusedSessions) Middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if ss == nil || ss.ID() == "" {
			return next(ctx, method, req)
		}
		switch method {
		case "initialize":
			res, err := next(ctx, method, req)
			if err == nil {
				u.watch(ss)
			}
			return res, err
		case "notifications/initialized":
		default:
			u.used(ss.ID())
		}
		return next(ctx, method, req)
	}
}

// watch starts the timer of a session that has just initialized.
func (u *UnusedSessions) watch(ss *mcp.ServerSession) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.stopped {
		return
	}
	id := ss.ID()
	u.waiting[id] = time.AfterFunc(u.timeout, func() {
		u.mu.Lock()
		_, unused := u.waiting[id]
		delete(u.waiting, id)
		u.mu.Unlock()
		if unused {
			ss.Close()
		}
	})
}

// used stops the timer of a session that has made a request.
func (u *UnusedSessions) used(id string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if t, ok := u.waiting[id]; ok {
		t.Stop()
		delete(u.waiting, id)
	}
}

// Stop stops every timer, for Door.Close, which ends the sessions itself.
func (u *UnusedSessions) Stop() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.stopped = true
	for id, t := range u.waiting {
		t.Stop()
		delete(u.waiting, id)
	}
}
