package edge

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"sync"

	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/wire"
)

// A replica holds the sessions registered in its session store
// (Config.Store): those /seed_session started, and those a handler saved
// in. A request that names a rollout's session the store does not hold —
// by a valid token on the MCP endpoint, by a valid session cookie a seed
// set elsewhere — reached the wrong replica, or one that lost its state (a
// restart empties an in-memory store); one that names a session that has
// ended (its /verify answered 2xx, or session.End) comes too late. Served,
// either would run against empty state and answer 200: a rollout scored on
// the wrong state, with no error anywhere. So on a rollout server the Door
// refuses it, on both doors alike, before any of the server's code, the
// fast path or the go-sdk sees it: HTTP 421 Misdirected Request, with
// sessions.Misrouted's text as a text body, or on the MCP endpoint as a
// JSON-RPC error of code codeMisrouted. A session the session middleware
// made for a client without a cookie is no rollout's: until a handler
// saves in it the store holds nothing of it, and it is simply empty. On a
// server without the rollout contract, a cookie of a session no request
// may run in gets a new session in its place (the session middleware
// makes it), as any web framework does. /seed_session is never refused: a
// seed starts its rollout, in a new session when its cookie names one no
// request may run in.
//
// The Door reads the request's session once, here, with the values its
// handlers load (sessions.Session.Open), and hands it on in the request's
// context to the session middleware and the tool calls.

// codeMisrouted is the JSON-RPC error code of a misrouted MCP request, in
// the range JSON-RPC leaves to servers.
const codeMisrouted = -32003

// codeInternal is JSON-RPC's internal error, the code of an MCP request the
// failed session store could not serve.
const codeInternal = -32603

// maxIDScan bounds how much of a misrouted MCP request's body is read for
// its JSON-RPC id.
const maxIDScan = 64 << 10

type routeCheckedKey struct{}

// A Misroute reads the session a request names and refuses a request of a
// session no request may run in (see above). NewMisroute makes one.
type Misroute struct {
	log      *slog.Logger
	path     string            // the MCP endpoint's
	sessions *sessions.Manager // the Door's
	contract *rollout.Contract // nil while the rollout contract is off
	warned   misroutes
}

// NewMisroute returns the Misroute of a Door whose MCP endpoint is at
// path, whose sessions m makes, under contract (nil while the rollout
// contract is off), logging to log.
func NewMisroute(log *slog.Logger, path string, m *sessions.Manager, contract *rollout.Contract) *Misroute {
	return &Misroute{log: log, path: path, sessions: m, contract: contract}
}

// Check returns r, its context carrying the session it names, read, and
// true; or answers a request that names a session no request may run in
// (or whose store fails) and returns false. It runs in Door.ServeHTTP and
// again in the MCP endpoint (Wrap), for a server that serves the router; a
// request is checked once.
func (mr *Misroute) Check(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	ctx := r.Context()
	if ctx.Value(routeCheckedKey{}) != nil {
		return r, true
	}
	m := mr.sessions
	// What passes here has been checked: a session middleware behind
	// takes up the session read here, and a session middleware of
	// another manager defers to the Door's.
	ctx = sessions.WithOwner(context.WithValue(ctx, routeCheckedKey{}, true), m)
	r = r.WithContext(ctx)
	if r.URL.Path == rollout.SeedPath && mr.contract != nil {
		return r, true
	}
	onMCP := r.URL.Path == mr.path || r.URL.Path == mr.path+"/"
	if onMCP && r.Method == http.MethodDelete {
		// Ending an MCP session runs nothing of the server's, and refused,
		// it would leave the session open until its idle timeout.
		return r, true
	}
	var s *sessions.Session
	byToken := false
	if c := mr.contract; c != nil && onMCP {
		// The token decides an MCP request's session; one that does not
		// verify gets the contract's own refusal.
		if tokenSID, sent := c.Session(r.Header); sent {
			if tokenSID == "" {
				return r, true
			}
			s, byToken = m.Named(tokenSID, true), true
		}
	}
	if s == nil {
		id, rolloutCookie, err := m.ReadCookie(r)
		if err != nil {
			return r, true
		}
		s = m.Named(id, rolloutCookie)
	}
	if err := s.Open(ctx); err != nil {
		mr.log.ErrorContext(ctx, "mcpdoor: session store: cannot read the request's session; the request is refused (503)", "sid", s.ID, "err", err)
		if onMCP {
			wire.WriteError(w, http.StatusServiceUnavailable, bodyID(r), codeInternal, sessions.StoreDownText)
		} else {
			http.Error(w, sessions.StoreDownText, http.StatusServiceUnavailable)
		}
		return r, false
	}
	if byToken {
		ctx = sessions.WithTokenSession(ctx, s)
	} else {
		ctx = sessions.WithResolved(ctx, s)
	}
	r = r.WithContext(ctx)
	if !s.Stale() || !byToken && mr.contract == nil {
		return r, true
	}
	mr.warned.warn(mr.log, s.ID, r)
	text := (&sessions.Misrouted{SID: s.ID}).Error()
	if onMCP {
		wire.WriteError(w, http.StatusMisdirectedRequest, bodyID(r), codeMisrouted, text)
	} else {
		http.Error(w, text, http.StatusMisdirectedRequest)
	}
	return r, false
}

// Wrap is the step of the MCP endpoint that makes Check, for a server that
// serves the router rather than the Door: 421 for a request of a session
// this replica does not hold, 503 when the session store fails.
func (mr *Misroute) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r, ok := mr.Check(w, r); ok {
			next.ServeHTTP(w, r)
		}
	})
}

// bodyID returns the JSON-RPC id of an MCP request's body (its first
// maxIDScan bytes), or nil: a batch, a GET, a body that is no JSON object.
func bodyID(r *http.Request) json.RawMessage {
	if r.Body == nil {
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxIDScan))
	return requestID(body)
}

// misroutes logs each misrouted session once (up to maxWarned sessions,
// then it starts over), at WARN with its sid: a misrouted rollout is
// counted by its harness, and its replica says why once, not on every
// call.
type misroutes struct {
	mu     sync.Mutex
	warned map[string]bool
}

const maxWarned = 4096

func (m *misroutes) warn(log *slog.Logger, sid string, r *http.Request) {
	m.mu.Lock()
	seen := m.warned[sid]
	if !seen {
		if m.warned == nil || len(m.warned) >= maxWarned {
			m.warned = make(map[string]bool)
		}
		m.warned[sid] = true
	}
	m.mu.Unlock()
	if !seen {
		rollout.Logger(r.Context(), log).Warn("mcpdoor: refused a request of a session this replica does not hold (421 Misdirected Request); "+
			"its later requests are refused without a log line: route every request of a session to the replica that seeded it, or give every replica the same session store",
			"sid", sid, "path", r.URL.Path)
	}
}

// WithoutNewSession is the step that keeps the MCP endpoint from handing
// out sessions of m. A session middleware in front of it makes a new
// session for each request without a valid session cookie and sets that
// session's cookie on the response; a client's cookie jar would then carry
// it into the client's next tokenless calls, which would run in a session
// no call chose. Such a cookie is dropped. A request's valid session
// cookie, which the middleware sets again, is kept. It refuses nothing.
func WithoutNewSession(m *sessions.Manager) Step {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if len(w.Header()["Set-Cookie"]) > 0 { // else there is nothing to drop
				if _, err := m.Read(r); err != nil {
					m.DropCookie(w.Header())
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}
