package sessions

import (
	"context"
	"errors"
	"net/http"

	"github.com/mcpdoor/mcpdoor/internal/store"
)

// Middleware puts the request's session in its context (see Ensure). A
// request whose cookie names a session no request may run in (ended, or a
// rollout's the store does not hold) gets 421 on a rollout server (see
// Misrouted); one whose session cannot be read because the store fails
// gets 503, with StoreDownText, and the log says why.
func (m *Manager) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := r.Context().Value(probeKey{}).(*probe); ok {
			p.m = m
			return
		}
		_, r, err := m.Ensure(w, r)
		if err != nil {
			m.Refuse(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Refuse answers a request whose session Ensure refused with err: 421 and
// the Misrouted text, or 503 and StoreDownText (the log says why).
func (m *Manager) Refuse(w http.ResponseWriter, r *http.Request, err error) {
	var mis *Misrouted
	if errors.As(err, &mis) {
		http.Error(w, mis.Error(), http.StatusMisdirectedRequest)
		return
	}
	m.log.ErrorContext(r.Context(), "mcpdoor: session store: the request is refused (503)", "path", r.URL.Path, "err", err)
	http.Error(w, StoreDownText, http.StatusServiceUnavailable)
}

// Misrouted is the error of a request that names a session no request may
// run in: one the store does not hold (the request reached a replica that
// did not make it, or one that lost its state), or one that has ended.
// Served, it would run against empty state.
type Misrouted struct{ SID string }

func (e *Misrouted) Error() string {
	return "mcpdoor: session " + e.SID + " is not held by this replica (misrouted, or its state was lost): " +
		"route every request of a session to the replica that seeded it, or give every replica the same session store"
}

// Ensure returns the request's session and a request whose context
// carries it.
//
// A request whose context already has a session id (NewContext: mcpdoor
// dispatching a tool call into the session its token names, or a session
// middleware in front of this one) keeps it, whatever cookie it carries, and nothing is set on
// w. Otherwise the session is that of the request's valid session cookie,
// or a new one, and either way its cookie is set on w, on every response:
// that keeps in its session a client that replaces its cookies with those
// of each response (NeMo Gym's agents do). A new session is only an id:
// the store holds it once a handler saves in it, or a seed holds it.
//
// A cookie of a session no request may run in (Session.Stale) is refused
// with a *Misrouted error on a rollout server, and nothing is set on w;
// elsewhere, and on /seed_session (or a request whose context says it
// starts afresh, WithFreshStart), a new session takes its place. On the
// Door's MCP endpoint, whose session is its token's, no session is made.
//
// Behind a Door whose Manager is another one (a router whose middleware
// is of another Manager), the Door's Manager ensures the session. Any
// other error is the store's.
func (m *Manager) Ensure(w http.ResponseWriter, r *http.Request) (*Session, *http.Request, error) {
	ctx := r.Context()
	if owner := ownerOf(ctx); owner != nil && owner != m {
		m.adopted(owner, r)
		return owner.Ensure(w, r)
	}
	if id, ok := FromContext(ctx); ok {
		s := SessionOf(ctx)
		if s == nil {
			s = m.Named(id, false)
			r = r.WithContext(WithSession(ctx, s))
		}
		return s, r, nil
	}
	onMCP := m.onMCP(r)
	s := Resolved(ctx)
	if s == nil {
		if id, rollout, err := m.ReadCookie(r); err == nil {
			s = m.Named(id, rollout)
			// The MCP endpoint's session is its token's; the cookie's is
			// not read there.
			if !onMCP {
				if err := s.Open(ctx); err != nil {
					return nil, r, err
				}
			}
		}
	}
	if s != nil && s.Stale() {
		if m.door.rollout && !freshStart(ctx) && !m.onSeed(r) {
			return nil, r, &Misrouted{SID: s.ID}
		}
		s = nil
	}
	if s == nil {
		if onMCP {
			return nil, r, nil
		}
		s = m.fresh()
	}
	m.setCookie(w, s)
	return s, r.WithContext(WithSession(ctx, s)), nil
}

// adopted warns, once, that a session middleware of m served a request of
// owner's Door, which owner's Manager served in its place.
func (m *Manager) adopted(owner *Manager, r *http.Request) {
	if owner.adoptWarned.Swap(true) {
		return
	}
	owner.log.WarnContext(r.Context(), "mcpdoor: a session middleware of a session.Manager made by session.New serves requests of the door; "+
		"the door's own manager makes and reads their sessions in its place, with its secret, cookie and store: "+
		"use the Middleware of the manager cfg.UseSessions() returns", "path", r.URL.Path)
}

// Seed holds the session of a /seed_session request, s (Ensure's), for
// the rollout the seed starts, and sets its cookie, a rollout's, on w in
// place of the one Ensure set. When s ended meanwhile (a /verify of its
// rollout came first), a new session takes its place. It returns the
// session held, a request whose context carries it, and whether the store
// registered it now (rather than held it already).
func (m *Manager) Seed(w http.ResponseWriter, r *http.Request, s *Session) (*Session, *http.Request, bool, error) {
	created, err := s.Seed(r.Context())
	if errors.Is(err, store.ErrEnded) {
		s = m.fresh()
		r = r.WithContext(WithSession(r.Context(), s))
		created, err = s.Seed(r.Context())
	}
	if err != nil {
		return nil, r, false, err
	}
	m.setCookie(w, s)
	return s, r, created, nil
}

// RefuseSeed answers a seed whose session the store could not hold: 503,
// with Retry-After and what the cap is where a full store refused it, or
// StoreDownText (the log says why).
func (m *Manager) RefuseSeed(w http.ResponseWriter, r *http.Request, err error) {
	var full *store.FullError
	if errors.As(err, &full) {
		m.log.WarnContext(r.Context(), "mcpdoor: /seed_session refused (503): the session store is full", "err", err)
		w.Header().Set("Retry-After", "1")
		http.Error(w, "mcpdoor: "+full.Error()+"; retry once a rollout ends, or on another replica", http.StatusServiceUnavailable)
		return
	}
	m.log.ErrorContext(r.Context(), "mcpdoor: /seed_session refused (503): the session store failed; no session token minted", "err", err)
	http.Error(w, StoreDownText, http.StatusServiceUnavailable)
}

type probeKey struct{}

// A probe asks a session middleware whose Manager it is.
type probe struct{ m *Manager }

// MiddlewareNames are the names (as detect.FuncName gives them) of a
// Manager's Middleware: package session's and this package's.
var MiddlewareNames = []string{
	"github.com/mcpdoor/mcpdoor/session.(*Manager).Middleware-fm",
	"github.com/mcpdoor/mcpdoor/internal/sessions.(*Manager).Middleware-fm",
}

// ManagerOf returns the Manager whose Middleware mw is, for a middleware
// of one of MiddlewareNames: mw is asked with a request it serves nothing
// for.
func ManagerOf(mw func(http.Handler) http.Handler) *Manager {
	p := &probe{}
	r, _ := http.NewRequestWithContext(context.WithValue(context.Background(), probeKey{}, p), http.MethodGet, "/", nil)
	mw(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(discard{}, r)
	return p.m
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}
