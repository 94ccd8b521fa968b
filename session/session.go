package session

import (
	"net/http"

	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/token"
)

// Options configures a Manager. A nil *Options means the defaults.
type Options struct {
	// CookieName is the name of the session cookie. Default "mcpdoor_session".
	CookieName string
	// Secure marks the cookie Secure (sent over HTTPS only). Default false, so
	// that a server on 127.0.0.1 works without TLS.
	Secure bool
	// NewID makes a new session id. Default: 26 random base32 characters
	// (crypto/rand.Text). An id must be 1 to 64 characters of A-Z, a-z,
	// 0-9, '-' and '_': the cookie carries it in plain.
	NewID func() string
}

// A Manager gives each client a session, named by a signed cookie. It is
// safe for concurrent use. A server that mcpdoor serves gets its Manager
// from autoexpose's Config.UseSessions, the one its Door makes and reads
// sessions with; a Manager made with New is for a server without a Door,
// and Install refuses a router whose middleware is of one.
type Manager sessions.Handle

// New returns a Manager that signs cookies with keys (the first key signs,
// every key verifies), its sessions in a fresh in-memory store of its own,
// for a server without a Door: a server that mcpdoor serves takes its
// Manager from autoexpose's Config.UseSessions instead. It panics if keys
// is the zero Keys, a setup mistake.
func New(keys token.Keys, opts *Options) *Manager {
	var o *sessions.Options
	if opts != nil {
		o = &sessions.Options{CookieName: opts.CookieName, Secure: opts.Secure, NewID: opts.NewID}
	}
	return (*Manager)(sessions.New(keys, o).Handle())
}

// Middleware puts the request's session in its context: the session of
// its valid session cookie, or a new one. The response sets the session's
// cookie every time, so a client that keeps only the cookies of the last
// response it got stays in its session. A new session is an id alone until
// a handler saves in it (Save): the store registers nothing for a request
// that saves nothing. A request whose context already carries a session id
// (mcpdoor dispatching a tool call into the session its token names) keeps
// it, whatever cookie it carries, and gets no cookie from the middleware.
//
// A cookie of a session that has ended (or of a rollout's that the store
// does not hold) gets a new session in its place; on a rollout server
// (NeMo Gym's contract on) it gets 421 instead, as its Door answers it.
func (m *Manager) Middleware(next http.Handler) http.Handler {
	return (*sessions.Handle)(m).Manager().Middleware(next)
}

// ID returns the session id of r, or "" when no session middleware ran for it.
func ID(r *http.Request) string { return sessions.ID(r) }
