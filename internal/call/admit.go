package call

import (
	"crypto/rand"
	"errors"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
)

// The session a tool call runs in is decided once, here, and both the rate
// limiter and dispatch use it:
//
//   - a call with a valid token (the rollout contract's) runs in the token's
//     session, whatever cookie or context its HTTP request carries;
//   - a tokenless call on a stateful door runs in its MCP session's
//     session, fixed at that MCP session's first tokenless call: the session
//     of that request's valid session cookie, or else a new session (on an
//     exclusive door, the door's local session, so that an agent that
//     reconnects finds its state again);
//   - a tokenless call on a stateless door runs in the session of its
//     request's valid session cookie, or else in the door's local session;
//   - a call over stdio runs in the door's local session.
//
// A session middleware in front of the MCP endpoint puts a session in every
// endpoint request's context, a new one for each request without a valid
// cookie; that session is never a call's.

// A caller is who makes a tools/call: the session the call runs in, the
// rollout it runs for (see RolloutID), and the HTTP request that carried
// the call (nil over stdio).
type caller struct {
	sid     string
	token   bool // the sid is a valid token's: a rollout's
	rollout string
	req     *http.Request
}

// admit returns who makes a call, or the isError result that refuses it: a
// call whose HTTP request has ended, or a call the rollout contract refuses
// (no token, an invalid one, one of another rollout than the prefix the
// request came under, a tool the token does not list). A call runs for the
// rollout its token was minted for, else for the one its request's prefix
// names.
func (p *Pipeline) admit(t *toolset.Tool, req *mcp.CallToolRequest) (caller, *mcp.CallToolResult) {
	header := mcpcall.Header(req)
	httpReq := p.Inflight.Lookup(header)
	if httpReq == nil && header.Get(edge.RequestRefHeader) != "" {
		p.Log.Warn("mcpdoor: tool call not run: its HTTP request ended before the call could start (the client closed the connection)", "tool", t.Name)
		return caller{}, requestEnded(t)
	}
	who := caller{req: httpReq}
	if httpReq != nil {
		who.rollout = rollout.ID(httpReq)
	}
	if p.Contract != nil {
		pass, err := p.Contract.Admit(header, t.Name, who.rollout)
		if err != nil {
			return caller{}, p.refused(t, err)
		}
		who.sid, who.token = pass.SID, pass.SID != ""
		if pass.Rollout != "" {
			who.rollout = pass.Rollout
		}
	}
	if who.sid == "" {
		who.sid = p.tokenlessSession(req.Session, httpReq)
	}
	return who, nil
}

// refused is the isError result of a call the rollout contract refuses
// with err: the text and code of its *rollout.Refusal. Any other error (the
// contract returns none today) is a 500 whose details go to the log only:
// the call was not run.
func (p *Pipeline) refused(t *toolset.Tool, err error) *mcp.CallToolResult {
	var r *rollout.Refusal
	if !errors.As(err, &r) {
		p.Log.Error("mcpdoor: tool call not run: checking its session token failed", "tool", t.Name, "err", err)
		return t.Fail("The tool call's session token could not be checked, so the call was not run.",
			toolset.ErrorInfo{Code: toolset.StatusCode(http.StatusInternalServerError), Message: "checking the session token failed", Status: http.StatusInternalServerError, Effect: toolset.EffectNotApplied})
	}
	return t.Fail(r.Text, toolset.ErrorInfo{Code: r.Code, Message: r.Message, Status: r.Status, Effect: toolset.EffectNotApplied})
}

// requestEnded is the isError result of a call whose HTTP request ended
// before the call started. Nobody may be there to read it, but a client
// that is gets a reason, and the handler is not run without its request.
func requestEnded(t *toolset.Tool) *mcp.CallToolResult {
	return t.Fail("The HTTP request that carried this tool call ended before the call started, so it was not run. Call the tool again.",
		toolset.ErrorInfo{
			Code:    toolset.CodeRequestEnded,
			Message: "the client's HTTP request ended before the call started",
			Status:  499, // Client Closed Request, as proxies log it
			Effect:  toolset.EffectNotApplied,
		})
}

// tokenlessSession returns the session of a tokenless call that came in MCP
// session ss with HTTP request httpReq.
func (p *Pipeline) tokenlessSession(ss *mcp.ServerSession, httpReq *http.Request) string {
	if httpReq == nil {
		return p.localSID
	}
	if p.byMCPSession == nil || ss == nil || ss.ID() == "" {
		if cookieSID, err := p.Sessions.LiveCookie(httpReq); err == nil {
			return cookieSID
		}
		return p.localSID
	}
	// The cookie counts on the MCP session's first call only.
	return p.byMCPSession.sid(ss.ID(), func() string {
		cookieSID, err := p.Sessions.LiveCookie(httpReq)
		switch {
		case err == nil:
			return cookieSID
		case p.byMCPSession.exclusive:
			return p.localSID
		default:
			return rand.Text()
		}
	}, p.LiveSessions)
}

// Identity returns who a request that may open an MCP session comes from,
// for the exclusive slot: the session its valid token names (token is
// true), else the session its valid cookie names, else the door's one local
// session (every client with neither is the same local user). A request
// whose token does not verify is nobody (""), and takes nothing over.
func (p *Pipeline) Identity(r *http.Request) (who string, token bool) {
	if p.Contract != nil {
		if sid, ok := p.Contract.Session(r.Header); ok {
			return sid, sid != ""
		}
	}
	if sid, err := p.Sessions.LiveCookie(r); err == nil {
		return sid, false
	}
	return p.localSID, false
}

// LocalSID is the session of tokenless calls that name no other: over
// stdio, and on a door whose client sends no session cookie.
func (p *Pipeline) LocalSID() string { return p.localSID }

// LiveSessions returns the ids of the live MCP sessions.
func (p *Pipeline) LiveSessions() map[string]bool {
	live := make(map[string]bool)
	for ss := range p.server.Sessions() {
		live[ss.ID()] = true
	}
	return live
}

// mcpSessionSIDs remembers the session of each MCP session's tokenless
// calls, on a stateful door. It runs no goroutine: the entries of ended
// MCP sessions are dropped when the map has doubled since it was last
// pruned, so it holds at most about twice as many entries as there are
// live MCP sessions (and at least minPrune). It is safe for concurrent use.
type mcpSessionSIDs struct {
	exclusive bool

	mu      sync.Mutex
	sids    map[string]string // MCP session id → session id
	pruneAt int
}

// minPrune is the size below which mcpSessionSIDs is never pruned.
const minPrune = 64

// newMCPSessionSIDs returns the memory a door with m's session policy
// needs: nil for a stateless door.
func newMCPSessionSIDs(stateful, exclusive bool) *mcpSessionSIDs {
	if !stateful {
		return nil
	}
	return &mcpSessionSIDs{exclusive: exclusive, sids: make(map[string]string), pruneAt: minPrune}
}

// sid returns the session of MCP session id: the one recorded, or else
// first(), which is recorded. live lists the MCP sessions still live.
func (s *mcpSessionSIDs) sid(id string, first func() string, live func() map[string]bool) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sid, ok := s.sids[id]; ok {
		return sid
	}
	if len(s.sids) >= s.pruneAt {
		alive := live()
		for k := range s.sids {
			if !alive[k] {
				delete(s.sids, k)
			}
		}
		s.pruneAt = max(2*len(s.sids), minPrune)
	}
	sid := first()
	s.sids[id] = sid
	return sid
}

// size is the number of MCP sessions remembered.
func (s *mcpSessionSIDs) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sids)
}
