package autoexpose

import (
	"net/http"

	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/sdkserver"
)

// The session policies (see MCPConfig.Stateful and Exclusive):
//
//   - stateless (the default): every POST stands alone, so any replica with
//     the same secret can serve any call;
//   - stateful: sessions with Mcp-Session-Id, at most mcp.max_sessions,
//     each closed after idle_timeout without a request, or after
//     mcp.unused_session_timeout without one since its initialize
//     (internal/edge's sessionlimits.go);
//   - exclusive: stateful, with at most one live session (edge.Slot).

// An endpoint is the MCP endpoint's handler: the HTTP concerns of the MCP
// requests, in front of the go-sdk's Streamable HTTP transport.
type endpoint struct{ h http.Handler }

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) { e.h.ServeHTTP(w, r) }

// endpoint makes the Door's MCP endpoint: one chain of steps, each of
// which serves a request through the next or refuses it, in the order a
// request meets them. A request refused by two steps gets the refusal of
// the first.
func (d *Door) endpoint(m *MCPConfig) http.Handler {
	var slot, sessionCap edge.Step // nil: a step the config leaves out
	switch {
	case m.Exclusive:
		d.slot = d.newSlot(m)
		slot = d.slot.Wrap
	case m.stateful():
		sessionCap = edge.SessionCap(m.maxSessions(), m.unusedSessionTimeout(), func() int { return len(d.calls.liveSessions()) })
	}
	if m.stateful() {
		d.life.Unused = edge.NewUnusedSessions(m.unusedSessionTimeout())
		d.server.AddReceivingMiddleware(d.recovers(d.life.Unused.Middleware))
	}
	return &endpoint{edge.Chain(
		// Admission.
		// A session cookie that a session middleware in front invented for
		// the request itself is not handed out; refuses nothing.
		edge.WithoutNewSession(d.calls.sessions),
		// A foreign Origin, or a rebinding Host: 403, a one-line reason.
		edge.Guard(m.AllowedOrigins, m.AllowedHosts),
		// A session this replica does not hold: 421 and a JSON-RPC error
		// (-32003); a store that fails: 503. Unless Door.ServeHTTP checked
		// it already.
		d.misroute.Wrap,
		// A closed Door: 503. The request's context ends when it closes.
		d.life.Wrap(m.stateful()),

		// Limits.
		// The body, read whole: 413 over mcp.max_body_bytes, 503 past
		// mcp.max_body_memory, 408 past mcp.body_timeout.
		edge.ReadBodies(d.calls.maxBody, d.bodies),
		// On an exclusive door, the slot: 403 for a POST without a session
		// and without a valid token where tool calls need one, 409 while
		// another rollout's session is live.
		slot,
		// On another stateful door, the session cap: 503 for a POST that
		// would open a session once mcp.max_sessions are live.
		sessionCap,

		// Session: where a tool call finds its HTTP request; refuses
		// nothing.
		d.calls.inflight.Track,
		// On a stateless door, the fast path (fastpath.go), which serves a
		// single tools/call request itself, as the go-sdk would answer it.
		func(next http.Handler) http.Handler { return d.withFastPath(m, next) },

		// Tracing: the JSON-RPC id, for the request's span; refuses
		// nothing.
		d.calls.inflight.NoteID(d.tel.Off),

		// Dispatch.
		// A JSON-RPC batch over mcp.max_batch: 413 (internal/sdkserver).
		func(next http.Handler) http.Handler { return sdkserver.LimitBatch(m.maxBatch(), next) },
	).Handler(
		// The go-sdk's Streamable HTTP handler (server.go), whose tool calls
		// wait for one of their session's mcp.max_concurrent_calls slots
		// (fanout.go).
		d.transport(m),
	)}
}

// newSlot makes the exclusive slot of the Door's endpoint.
func (d *Door) newSlot(m *MCPConfig) *edge.Slot {
	c := edge.SlotConfig{
		Alive:    d.live,
		End:      d.end,
		Identify: d.calls.identity,
		Sessions: d.calls.sessions,
		Idle:     m.idleTimeout(),
		Reserve:  m.unusedSessionTimeout(),
	}
	if d.calls.contract != nil {
		c.TokenHeader = d.calls.contract.TokenHeader()
		c.NeedsToken = !m.Rollout.AllowTokenless
	}
	return edge.NewSlot(c)
}

// live reports whether the session with this id is live: the go-sdk lists
// a session until it has ended, however it ended.
func (d *Door) live(id string) bool {
	for ss := range d.server.Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

// end closes the session with this id, if it is live. Closing waits for the
// session's calls to return.
func (d *Door) end(id string) {
	for ss := range d.server.Sessions() {
		if ss.ID() == id {
			ss.Close()
		}
	}
}
