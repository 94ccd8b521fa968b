// Package sessions is the implementation of package session: the signed
// session cookie and the session id in a request's context. Package session
// exports what a server uses (New, the middleware, ID); mcpdoor's own
// packages reach the rest here: reading a cookie without setting one
// (Read), starting a session (Ensure), dropping a response's session cookie
// (DropCookie), the key ring that also signs tokens (Keys).
package sessions

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/gorilla/securecookie"

	"github.com/mcpdoor/mcpdoor/internal/keyring"
	"github.com/mcpdoor/mcpdoor/internal/sessionkey"
	"github.com/mcpdoor/mcpdoor/internal/store"
)

// DefaultCookieName is the cookie that carries the session id unless
// Options.CookieName says otherwise (session.DefaultCookieName).
const DefaultCookieName = "mcpdoor_session"

// purpose separates the session cookie's signing key from every other key
// derived from the same secrets.
const purpose = "session"

// Options configures a Manager, as session.Options documents them. A nil
// *Options means the defaults.
type Options struct {
	CookieName string        // default DefaultCookieName
	Secure     bool          // mark the cookie Secure
	NewID      func() string // default crypto/rand.Text
	// Store holds the sessions and their state; default a fresh in-memory
	// store of the Manager's own.
	Store store.Backend
}

// A Manager reads, makes and signs session cookies. It is safe for
// concurrent use.
type Manager struct {
	keys   keyring.Keys
	codecs []securecookie.Codec
	name   string
	secure bool
	newID  func() string
	store  store.Backend
	// starts, when set, reports that a request starts afresh (see
	// WithFreshStart) by its path, for a server that serves the router
	// rather than the Door: its /seed_session and MCP endpoint.
	starts func(*http.Request) bool

	// signed keeps recent ids' signed values: the middleware sets a
	// session's cookie on every response, and a value, having no maximum
	// age, stays valid for as long as the keys do.
	mu     sync.Mutex
	signed map[string]string
}

// maxSigned bounds Manager.signed; past it the cache starts over.
const maxSigned = 4096

// New returns a Manager that signs cookies with keys (the first key signs,
// every key verifies). It panics if keys is the zero Keys, a setup mistake.
func New(keys keyring.Keys, opts *Options) *Manager {
	if keyring.IsZero(keys) {
		panic("mcpdoor: session.New with zero token.Keys")
	}
	m := &Manager{
		keys:   keys,
		codecs: keyring.Codecs(keys, purpose, 0),
		name:   DefaultCookieName,
		newID:  rand.Text,
	}
	if opts != nil {
		if opts.CookieName != "" {
			m.name = opts.CookieName
		}
		if opts.NewID != nil {
			m.newID = opts.NewID
		}
		m.secure = opts.Secure
		m.store = opts.Store
	}
	if m.store == nil {
		m.store = store.NewMemory(0, nil)
	}
	return m
}

// UseStore makes b the store of the Manager's sessions. Call it before the
// Manager serves.
func (m *Manager) UseStore(b store.Backend) { m.store = b }

// StartsAfresh sets which requests start afresh by their path (see
// WithFreshStart), for a router served without its Door. Call it before
// the Manager serves.
func (m *Manager) StartsAfresh(f func(*http.Request) bool) { m.starts = f }

// Of returns the Manager behind a *session.Manager; package session sets
// it, so that mcpdoor's own packages reach what session does not export.
var Of func(manager any) *Manager

// Store returns the store that holds the Manager's sessions.
func (m *Manager) Store() store.Backend { return m.store }

// Keys returns the key ring the Manager signs with, so that other signed
// values (tokens) can share one secret.
func (m *Manager) Keys() keyring.Keys { return m.keys }

// CookieName returns the name of the session cookie.
func (m *Manager) CookieName() string { return m.name }

// Middleware puts the request's session id in its context (see Ensure):
// the session of its valid session cookie, or a new one. The response sets
// the session's cookie every time, so a client that keeps only the cookies
// of the last response it got stays in its session.
// A request whose cookie names a session the store does not hold gets 421
// (see Misrouted); one whose session cannot be made because the store
// fails gets 503.
func (m *Manager) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, r, err := m.Ensure(w, r)
		var mis *Misrouted
		switch {
		case errors.As(err, &mis):
			http.Error(w, mis.Error(), http.StatusMisdirectedRequest)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Misrouted is the error of a request that names a session the store does
// not hold: it reached a replica that did not make the session, or one
// that lost its state. Served, it would run against empty state.
type Misrouted struct{ SID string }

func (e *Misrouted) Error() string {
	return "mcpdoor: session " + e.SID + " is not held by this replica (misrouted, or its state was lost): " +
		"route every request of a session to the replica that seeded it, or give every replica the same session store"
}

// Ensure returns the request's session id and a request whose context
// carries it.
//
// A request whose context already has an id keeps it, whatever cookie it
// carries, and nothing is set on w: the layer that put the id there (an
// outer middleware, or mcpdoor dispatching a tool call into the session its
// token names) answers for the cookie. Otherwise the id is that of a valid
// session cookie of a session the store holds, or a new session is made and
// registered in the store, and either way the session's cookie is set on w.
// Setting it on every response, not only the first, is what keeps in its
// session a client that replaces its cookies with those of each response
// (NeMo Gym's agents do).
//
// A valid cookie of a session the store does not hold is a *Misrouted
// error, and nothing is set on w; but on a request whose context says it
// starts afresh (WithFreshStart: /seed_session, which starts a rollout),
// a new session is made in its place.
//
// Either way the request's context carries the Manager's store, unless it
// carries one already. Any other error is the store's.
func (m *Manager) Ensure(w http.ResponseWriter, r *http.Request) (string, *http.Request, error) {
	ctx := r.Context()
	if id, ok := FromContext(ctx); ok {
		if StoreFrom(ctx) == nil {
			r = r.WithContext(WithStore(ctx, m.store))
		}
		return id, r, nil
	}
	id, err := m.Read(r)
	if err == nil && !IsHeld(ctx, id) {
		held, err := m.store.Holds(ctx, id)
		switch {
		case err != nil:
			return "", r, fmt.Errorf("mcpdoor: session store: %w", err)
		case !held && !freshStart(ctx) && (m.starts == nil || !m.starts(r)):
			return "", r, &Misrouted{SID: id}
		case !held:
			id = ""
		}
	}
	if err != nil || id == "" {
		id = m.newID()
		if err := m.store.Register(ctx, id); err != nil {
			return "", r, fmt.Errorf("mcpdoor: session store: registering a new session: %w", err)
		}
	}
	// Signing a short string with a valid key does not fail; if it ever
	// did, a new session would last for this request alone.
	if c, err := m.Cookie(id); err == nil {
		http.SetCookie(w, c)
	}
	return id, r.WithContext(WithStore(NewContext(ctx, id), m.store)), nil
}

// ErrNoCookie is returned by Read when the request carries no session cookie.
var ErrNoCookie = errors.New("mcpdoor: no session cookie")

// Read returns the session id from the request's cookie, verified.
func (m *Manager) Read(r *http.Request) (string, error) {
	c, err := r.Cookie(m.name)
	if err != nil {
		return "", ErrNoCookie
	}
	return m.Decode(c.Value)
}

// Decode verifies a session cookie value, "<id>.<signed>", and returns the
// id it carries: the plain one, which must be the signed one.
func (m *Manager) Decode(value string) (string, error) {
	plain, value, err := sessionkey.Split(value)
	if err != nil {
		return "", fmt.Errorf("mcpdoor: session cookie: %w", err)
	}
	var id string
	if err := securecookie.DecodeMulti(m.name, value, &id, m.codecs...); err != nil {
		return "", fmt.Errorf("mcpdoor: session cookie: %w", err)
	}
	if id == "" {
		return "", errors.New("mcpdoor: session cookie: empty id")
	}
	if err := sessionkey.Matches(plain, id); err != nil {
		return "", fmt.Errorf("mcpdoor: session cookie: %w", err)
	}
	return id, nil
}

// Cookie returns the signed session cookie for id, as the middleware sets
// it. Its value begins with id in plain and a dot, "<id>.<signed>", so that
// a load balancer can route on the session with no decoding.
func (m *Manager) Cookie(id string) (*http.Cookie, error) {
	v, err := m.sign(id)
	if err != nil {
		return nil, err
	}
	return &http.Cookie{
		Name:     m.name,
		Value:    v,
		Path:     "/",
		HttpOnly: true,
		Secure:   m.secure,
		SameSite: http.SameSiteLaxMode,
	}, nil
}

// DropCookie removes from a response header the Set-Cookie lines of the
// session cookie, for a layer that must not hand a session out: a response
// that sets it no more leaves the client's cookie as it was.
func (m *Manager) DropCookie(h http.Header) {
	lines := h.Values("Set-Cookie")
	if len(lines) == 0 {
		return
	}
	kept := lines[:0:0]
	for _, line := range lines {
		if c, err := http.ParseSetCookie(line); err != nil || c.Name != m.name {
			kept = append(kept, line)
		}
	}
	if len(kept) == 0 {
		h.Del("Set-Cookie")
		return
	}
	h["Set-Cookie"] = kept
}

// sign returns id's signed cookie value, from the cache when it has one.
func (m *Manager) sign(id string) (string, error) {
	m.mu.Lock()
	v, ok := m.signed[id]
	m.mu.Unlock()
	if ok {
		return v, nil
	}
	if err := sessionkey.Check(id); err != nil {
		return "", fmt.Errorf("mcpdoor: session cookie: %w", err)
	}
	v, err := securecookie.EncodeMulti(m.name, id, m.codecs...)
	if err != nil {
		return "", fmt.Errorf("mcpdoor: session cookie: %w", err)
	}
	v = sessionkey.Join(id, v)
	m.mu.Lock()
	if m.signed == nil || len(m.signed) >= maxSigned {
		m.signed = make(map[string]string)
	}
	m.signed[id] = v
	m.mu.Unlock()
	return v, nil
}

type (
	contextKey struct{}
	storeKey   struct{}
	heldKey    struct{}
	freshKey   struct{}
)

// WithFreshStart returns a context that lets Ensure start a new session in
// place of one its store does not hold, for /seed_session.
func WithFreshStart(ctx context.Context) context.Context {
	return context.WithValue(ctx, freshKey{}, true)
}

func freshStart(ctx context.Context) bool { return ctx.Value(freshKey{}) != nil }

// WithStore returns a context that carries the store of its session's
// state, for session.Load and Save.
func WithStore(ctx context.Context, b store.Backend) context.Context {
	return context.WithValue(ctx, storeKey{}, b)
}

// StoreFrom returns the store ctx carries, or nil.
func StoreFrom(ctx context.Context) store.Backend {
	b, _ := ctx.Value(storeKey{}).(store.Backend)
	return b
}

// WithHeld returns a context that records that the store holds session id,
// as the Door has checked, so that Ensure does not ask the store again.
func WithHeld(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, heldKey{}, id)
}

// IsHeld reports whether ctx records that the store holds session id.
func IsHeld(ctx context.Context, id string) bool {
	held, _ := ctx.Value(heldKey{}).(string)
	return held != "" && held == id
}

// NewContext returns a context that carries session id.
func NewContext(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, contextKey{}, id)
}

// FromContext returns the session id ctx carries.
func FromContext(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(contextKey{}).(string)
	return id, ok && id != ""
}

// ID returns the session id of r, or "" when no session middleware ran for it.
func ID(r *http.Request) string {
	id, _ := FromContext(r.Context())
	return id
}
