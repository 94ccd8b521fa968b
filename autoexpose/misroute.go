package autoexpose

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
)

// A replica holds the sessions registered in its session store (Config.Store):
// those /seed_session started, and those the session middleware made for a
// client without a cookie. A request that names a session the store does
// not hold — by a valid token on the MCP endpoint, by a valid session cookie
// elsewhere — reached the wrong replica, or one that lost its state (a
// restart empties an in-memory store). Served, it would run against empty
// state and answer 200: a rollout scored on the wrong state, with no error
// anywhere. So the Door refuses it, on both doors alike, before any of the
// server's code, the fast path or the go-sdk sees it: HTTP 421 Misdirected
// Request, with sessions.Misrouted's text as a text body, or on the MCP
// endpoint as a JSON-RPC error of code codeMisrouted. /seed_session is never refused: a
// seed starts its rollout, in a new session when its cookie names one the
// store does not hold.

// codeMisrouted is the JSON-RPC error code of a misrouted MCP request, in
// the range JSON-RPC leaves to servers.
const codeMisrouted = -32003

// maxIDScan bounds how much of a misrouted MCP request's body is read for
// its JSON-RPC id.
const maxIDScan = 64 << 10

type routeCheckedKey struct{}

// heldOrRefused returns r, its context recording that its session is held
// when it names one, and true; or answers a request that names a session
// the store does not hold (or whose store fails) and returns false. It
// runs in Door.ServeHTTP and again in the MCP endpoint, for a server that
// serves the router; a request is checked once.
func (d *Door) heldOrRefused(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	ctx := r.Context()
	if ctx.Value(routeCheckedKey{}) != nil {
		return r, true
	}
	// What passes here has been checked: a session middleware behind
	// starts a new session where the cookie names one the store does not
	// hold, rather than refuse it again — on /seed_session, which starts
	// its rollout, and on the MCP endpoint, where the token decides.
	ctx = sessions.WithFreshStart(context.WithValue(ctx, routeCheckedKey{}, true))
	r = r.WithContext(ctx)
	if r.URL.Path == rollout.SeedPath && d.calls.contract != nil {
		return r, true
	}
	onMCP := r.URL.Path == d.path || r.URL.Path == d.path+"/"
	if onMCP && r.Method == http.MethodDelete {
		// Ending an MCP session runs nothing of the server's, and refused,
		// it would leave the session open until its idle timeout.
		return r, true
	}
	sid := ""
	if c := d.calls.contract; c != nil && onMCP {
		// The token decides an MCP request's session; one that does not
		// verify gets the contract's own refusal.
		if tokenSID, sent := c.Session(r.Header); sent {
			if tokenSID == "" {
				return r, true
			}
			sid = tokenSID
		}
	}
	if sid == "" {
		cookieSID, err := d.calls.sessions.Read(r)
		if err != nil {
			return r, true
		}
		sid = cookieSID
	}
	held, err := d.calls.sessions.Store().Holds(ctx, sid)
	switch {
	case err != nil:
		d.log.Error("mcpdoor: session store: cannot tell whether this replica holds the session; the request is refused (503)", "sid", sid, "err", err)
		text := fmt.Sprintf("mcpdoor: session store: %v", err)
		if onMCP {
			writeRPCError(w, http.StatusServiceUnavailable, bodyID(r), codeMisrouted, text)
		} else {
			http.Error(w, text, http.StatusServiceUnavailable)
		}
		return r, false
	case held:
		return r.WithContext(sessions.WithHeld(ctx, sid)), true
	}
	d.misroutes.warn(d, sid, r)
	text := (&sessions.Misrouted{SID: sid}).Error()
	if onMCP {
		writeRPCError(w, http.StatusMisdirectedRequest, bodyID(r), codeMisrouted, text)
	} else {
		http.Error(w, text, http.StatusMisdirectedRequest)
	}
	return r, false
}

// refuseMisrouted is the MCP endpoint's check of heldOrRefused, for a
// server that serves the router rather than the Door.
func (d *Door) refuseMisrouted(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r, ok := d.heldOrRefused(w, r); ok {
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

func (m *misroutes) warn(d *Door, sid string, r *http.Request) {
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
		rollout.Logger(r.Context(), d.log).Warn("mcpdoor: refused a request of a session this replica does not hold (421 Misdirected Request); "+
			"its later requests are refused without a log line: route every request of a session to the replica that seeded it, or give every replica the same session store",
			"sid", sid, "path", r.URL.Path)
	}
}
