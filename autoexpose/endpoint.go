package autoexpose

import (
	"net/http"
	"strconv"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/sessions"
)

// sessionIDHeader is the Streamable HTTP transport's session header.
const sessionIDHeader = "Mcp-Session-Id"

// The session policies (see MCPConfig.Stateful and Exclusive):
//
//   - stateless (the default): every POST stands alone, so any replica with
//     the same secret can serve any call;
//   - stateful: sessions with Mcp-Session-Id, at most mcp.max_sessions,
//     each closed after idle_timeout without a request, or after
//     mcp.unused_session_timeout without one since its initialize
//     (sessionlimits.go);
//   - exclusive: stateful, with at most one live session (see slot).

// An endpoint is the MCP endpoint's handler: the HTTP concerns of the MCP
// requests, in front of the go-sdk's Streamable HTTP transport.
type endpoint struct{ h http.Handler }

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) { e.h.ServeHTTP(w, r) }

// endpoint makes the Door's MCP endpoint. A request meets, in order:
//
//  1. withoutNewSession: a session cookie that a session middleware in
//     front invented for the request itself is not handed out;
//  2. the guard (guard.go): a foreign Origin, or a rebinding Host, gets 403;
//     then, unless the Door checked it already, a request of a session
//     this replica does not hold gets 421 (misroute.go);
//  3. the lifecycle (lifecycle.go): 503 once the Door is closed, and the
//     request's context ends when it closes;
//  4. the body (bodylimit.go), read whole: 413 over mcp.max_body_bytes, 503
//     past mcp.max_body_memory, 408 past mcp.body_timeout;
//  5. on an exclusive door, the slot (exclusive.go): 409 while another
//     rollout's session is live, and 403 without a valid token where tool
//     calls need one; on another stateful door, the session cap
//     (sessionlimits.go): 503 once mcp.max_sessions are live;
//  6. inflight (inflight.go): where a tool call finds its request;
//  7. on a stateless door, the fast path (fastpath.go), which serves a
//     single tools/call request itself;
//  8. noteID (inflight.go): the JSON-RPC id, for the request's span;
//  9. the batch limit (fanout.go): 413 for a JSON-RPC batch over
//     mcp.max_batch;
//  10. the go-sdk's Streamable HTTP handler (server.go), whose tool calls
//     wait for one of their session's mcp.max_concurrent_calls slots
//     (fanout.go).
func (d *Door) endpoint(m *MCPConfig) http.Handler {
	h := d.calls.inflight.track(d.withFastPath(m, d.calls.inflight.noteID(d.tel.Off, limitBatch(m.maxBatch(), d.transport(m)))))
	if m.Exclusive {
		tokenHeader := ""
		if d.calls.contract != nil {
			tokenHeader = d.calls.contract.TokenHeader()
		}
		d.slot = &slot{
			alive:    d.live,
			end:      d.end,
			identify: d.calls.identity,
			message:  exclusiveMessage(m.idleTimeout(), tokenHeader),
			wait:     claimWait,
			reserve:  m.unusedSessionTimeout(),
			cookieSID: func(h http.Header) string {
				for _, line := range h.Values("Set-Cookie") {
					if c, err := http.ParseSetCookie(line); err == nil && c.Name == d.calls.sessions.CookieName() {
						sid, _ := d.calls.sessions.Decode(c.Value)
						return sid
					}
				}
				return ""
			},
			requestSID: func(r *http.Request) string {
				sid, _ := d.calls.sessions.Read(r)
				return sid
			},
			forget: func(w http.ResponseWriter, r *http.Request) {
				if _, ok := sessions.FromContext(r.Context()); ok {
					d.calls.sessions.DropCookie(w.Header())
				}
			},
		}
		if d.calls.contract != nil && !m.Rollout.AllowTokenless {
			d.slot.tokenHeader = tokenHeader // tool calls need a token, and so does the slot
		}
		h = d.slot.wrap(h)
	} else if m.stateful() {
		h = newSessionCap(m, func() int { return len(d.calls.liveSessions()) }).wrap(h)
	}
	h = d.readBodies(d.calls.maxBody, h)
	if m.stateful() {
		d.life.unused = newUnusedSessions(m.unusedSessionTimeout())
		d.server.AddReceivingMiddleware(d.recovers(d.life.unused.middleware))
	}
	return &endpoint{d.calls.withoutNewSession(newGuard(m).wrap(d.refuseMisrouted(d.life.wrap(m.stateful(), h))))}
}

// withoutNewSession keeps the MCP endpoint from handing out sessions. A
// session middleware in front of it makes a new session for each request
// without a valid session cookie and sets that session's cookie on the
// response; a client's cookie jar would then carry it into the client's
// next tokenless calls, which would run in a session no call chose. Such a
// cookie is dropped. A request's valid session cookie, which the middleware
// sets again, is kept.
func (c *calls) withoutNewSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(w.Header()["Set-Cookie"]) > 0 { // else there is nothing to drop
			if _, err := c.sessions.Read(r); err != nil {
				c.sessions.DropCookie(w.Header())
			}
		}
		next.ServeHTTP(w, r)
	})
}

// seconds writes a duration as a config would: 600s, 1.5s, 300ms.
func seconds(d time.Duration) string {
	if d >= time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
	}
	return d.String()
}
