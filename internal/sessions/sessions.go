// Package sessions is the implementation of package session: the signed
// session cookie, the session of a request, and its state in the store.
// Package session exports what a server uses (New, the middleware, ID,
// Load, Save, Update, End); mcpdoor's own packages reach the rest here.
//
// A Manager is the one maker of sessions of a server: the Door's, which
// the router's middleware shares (autoexpose's Config.UseSessions). A
// session is registered in the store only when a seed holds it for a
// rollout (Session.Seed), or when a handler first saves in it: the
// middleware hands a client without a cookie a new id and its cookie, and
// nothing else, so that a request that saves nothing costs the store
// nothing.
//
// A session is a rollout's (made by /seed_session, named by a token or by
// a cookie the seed set) or not (a cookie the middleware minted). The
// difference is what a session the store does not hold means: a rollout's
// is lost or ended, and its requests are refused (421) rather than run on
// empty state; any other is simply empty, not saved in yet.
package sessions

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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

// rolloutMark begins the signed id of a rollout's cookie: "r:<id>". An id
// has no ':' (sessionkey.Check), so nothing else begins so.
const rolloutMark = "r:"

// MaxKeep bounds how long an ended session is remembered as ended: longer
// than a call that was running when its rollout ended may still try to
// save, and short enough that what an ended rollout leaves in the store is
// gone soon after.
const MaxKeep = 10 * time.Minute

// Options configures a Manager, as session.Options documents them. A nil
// *Options means the defaults.
type Options struct {
	CookieName string        // default DefaultCookieName
	Secure     bool          // mark the cookie Secure
	NewID      func() string // default crypto/rand.Text
	// Store holds the sessions and their state; default a fresh in-memory
	// store of the Manager's own.
	Store store.Backend
	// Idle is the sessions' idle TTL; default store.DefaultIdle.
	Idle time.Duration
	// OnEnd, when set, is told once of each session End ends while the
	// store holds it (a memory store tells its own hook of the sessions it
	// drops for idleness: NewMemory).
	OnEnd func(ctx context.Context, sid string)
	// Logger receives what the Manager cannot tell a client: why the store
	// failed. Default slog.Default().
	Logger *slog.Logger
}

// A Manager makes, signs and reads sessions. It is safe for concurrent
// use.
type Manager struct {
	keys   keyring.Keys
	codecs []securecookie.Codec
	name   string
	secure bool
	newID  func() string
	store  store.Backend
	idle   time.Duration
	keep   time.Duration // how long an ended session is remembered
	onEnd  func(ctx context.Context, sid string)
	log    *slog.Logger
	handle *Handle

	// door is what the Door serving the Manager's sessions tells of
	// itself (ServeDoor); the zero doorInfo for a Manager served without
	// one.
	door doorInfo

	// hot are the keys the server's handlers load, which a request's
	// first read of its session fetches with it.
	hot hotKeys
	// writes count the writes of this process by shard of session id, so
	// that a request knows when what it read when it began may have
	// changed since (Session.cached).
	writes [256]atomic.Uint64
	seed   maphash.Seed

	adoptWarned atomic.Bool

	// signed keeps recent ids' signed values: the middleware sets a
	// session's cookie on every response, and a value, having no maximum
	// age, stays valid for as long as the keys do.
	mu     sync.Mutex
	signed map[string]string
}

// doorInfo is what a Door tells the Manager of the requests it serves.
type doorInfo struct {
	mcpPath  string // the MCP endpoint's path ("": none)
	seedPath string // /seed_session, where the rollout contract is on
	rollout  bool   // the rollout contract is on
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
		idle:   store.DefaultIdle,
		log:    slog.Default(),
		seed:   maphash.MakeSeed(),
	}
	if opts != nil {
		if opts.CookieName != "" {
			m.name = opts.CookieName
		}
		if opts.NewID != nil {
			m.newID = opts.NewID
		}
		if opts.Idle > 0 {
			m.idle = opts.Idle
		}
		if opts.Logger != nil {
			m.log = opts.Logger
		}
		m.secure, m.store, m.onEnd = opts.Secure, opts.Store, opts.OnEnd
	}
	if m.store == nil {
		m.store = store.NewMemory(0, nil)
	}
	m.keep = min(m.idle, MaxKeep)
	m.handle = &Handle{m: m}
	return m
}

// ServeDoor tells m of the Door that serves its sessions: its MCP
// endpoint's path, and whether the rollout contract is on (then seedPath
// is /seed_session). Call it before m serves.
func (m *Manager) ServeDoor(mcpPath, seedPath string, rollout bool) {
	m.door = doorInfo{mcpPath: mcpPath, seedPath: seedPath, rollout: rollout}
}

// A Handle is a Manager as a server holds it: package session's Manager
// is a Handle (type Manager sessions.Handle), so that mcpdoor's packages
// convert a *session.Manager to its *Handle, and back, and reach the
// Manager with Handle.Manager: the Manager is the one owner of its
// sessions, and the handle the one way to it.
type Handle struct{ m *Manager }

// Handle returns m's handle: the same one on every call.
func (m *Manager) Handle() *Handle { return m.handle }

// Manager returns the Manager h is the handle of.
func (h *Handle) Manager() *Manager { return h.m }

// Store returns the store that holds the Manager's sessions.
func (m *Manager) Store() store.Backend { return m.store }

// Keys returns the key ring the Manager signs with, so that other signed
// values (tokens) can share one secret.
func (m *Manager) Keys() keyring.Keys { return m.keys }

// CookieName returns the name of the session cookie.
func (m *Manager) CookieName() string { return m.name }

// onMCP reports whether r is a request of the Door's MCP endpoint, whose
// session is its token's: no session is handed out there.
func (m *Manager) onMCP(r *http.Request) bool {
	p := m.door.mcpPath
	return p != "" && (r.URL.Path == p || r.URL.Path == p+"/")
}

// onSeed reports whether r starts a rollout.
func (m *Manager) onSeed(r *http.Request) bool {
	return m.door.seedPath != "" && r.URL.Path == m.door.seedPath
}

// ErrNoCookie is returned by Read when the request carries no session cookie.
var ErrNoCookie = errors.New("mcpdoor: no session cookie")

// Read returns the session id from the request's cookie, verified.
func (m *Manager) Read(r *http.Request) (string, error) {
	id, _, err := m.ReadCookie(r)
	return id, err
}

// ReadCookie returns the session id from the request's cookie, verified,
// and whether a seed set it, for a rollout.
func (m *Manager) ReadCookie(r *http.Request) (id string, rollout bool, err error) {
	c, err := r.Cookie(m.name)
	if err != nil {
		return "", false, ErrNoCookie
	}
	return m.decode(c.Value)
}

// Decode verifies a session cookie value, "<id>.<signed>", and returns the
// id it carries: the plain one, which must be the signed one.
func (m *Manager) Decode(value string) (string, error) {
	id, _, err := m.decode(value)
	return id, err
}

func (m *Manager) decode(value string) (id string, rollout bool, err error) {
	plain, value, err := sessionkey.Split(value)
	if err != nil {
		return "", false, fmt.Errorf("mcpdoor: session cookie: %w", err)
	}
	if err := securecookie.DecodeMulti(m.name, value, &id, m.codecs...); err != nil {
		return "", false, fmt.Errorf("mcpdoor: session cookie: %w", err)
	}
	id, rollout = strings.CutPrefix(id, rolloutMark)
	if id == "" {
		return "", false, errors.New("mcpdoor: session cookie: empty id")
	}
	if err := sessionkey.Matches(plain, id); err != nil {
		return "", false, fmt.Errorf("mcpdoor: session cookie: %w", err)
	}
	return id, rollout, nil
}

// Cookie returns the signed session cookie for id, as the middleware sets
// it. Its value begins with id in plain and a dot, "<id>.<signed>", so that
// a load balancer can route on the session with no decoding.
func (m *Manager) Cookie(id string) (*http.Cookie, error) { return m.cookie(id, false) }

// RolloutCookie returns the signed session cookie for id, a rollout's, as
// /seed_session sets it: the same as Cookie's, but that it says the
// session is a rollout's.
func (m *Manager) RolloutCookie(id string) (*http.Cookie, error) { return m.cookie(id, true) }

func (m *Manager) cookie(id string, rollout bool) (*http.Cookie, error) {
	v, err := m.sign(id, rollout)
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

// setCookie sets s's cookie on w, in place of any session cookie w sets
// already. Signing a short string with a valid key does not fail; if it
// ever did, the session would last for this request alone.
func (m *Manager) setCookie(w http.ResponseWriter, s *Session) {
	c, err := m.cookie(s.ID, s.IsRollout())
	if err != nil {
		return
	}
	m.DropCookie(w.Header())
	http.SetCookie(w, c)
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
func (m *Manager) sign(id string, rollout bool) (string, error) {
	signed := id
	if rollout {
		signed = rolloutMark + id
	}
	m.mu.Lock()
	v, ok := m.signed[signed]
	m.mu.Unlock()
	if ok {
		return v, nil
	}
	if err := sessionkey.Check(id); err != nil {
		return "", fmt.Errorf("mcpdoor: session cookie: %w", err)
	}
	v, err := securecookie.EncodeMulti(m.name, signed, m.codecs...)
	if err != nil {
		return "", fmt.Errorf("mcpdoor: session cookie: %w", err)
	}
	v = sessionkey.Join(id, v)
	m.mu.Lock()
	if m.signed == nil || len(m.signed) >= maxSigned {
		m.signed = make(map[string]string)
	}
	m.signed[signed] = v
	m.mu.Unlock()
	return v, nil
}

// hotKeys are the keys a server's handlers load, at most maxHot of at
// most maxHotLen bytes, the newest in place of the oldest. It is safe for
// concurrent use; a read costs no lock.
type hotKeys struct {
	mu   sync.Mutex
	keys atomic.Pointer[[]string]
	next int
}

const (
	maxHot    = 8
	maxHotLen = 128
)

// list returns the keys; the caller does not change the slice.
func (h *hotKeys) list() []string {
	if p := h.keys.Load(); p != nil {
		return *p
	}
	return nil
}

// note adds key to the keys.
func (h *hotKeys) note(key string) {
	if len(key) > maxHotLen {
		return
	}
	for _, k := range h.list() {
		if k == key {
			return
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	keys := append([]string(nil), h.list()...)
	for _, k := range keys {
		if k == key {
			return
		}
	}
	if len(keys) < maxHot {
		keys = append(keys, key)
	} else {
		keys[h.next] = key
		h.next = (h.next + 1) % maxHot
	}
	h.keys.Store(&keys)
}

// LiveCookie returns the session id from the request's valid cookie,
// unless the Door found that no request may run in that session
// (Session.Stale): a tokenless MCP call then runs as one without a cookie.
func (m *Manager) LiveCookie(r *http.Request) (string, error) {
	id, err := m.Read(r)
	if err == nil {
		if s := Resolved(r.Context()); s != nil && s.ID == id && s.Stale() {
			return "", ErrNoCookie
		}
	}
	return id, err
}
