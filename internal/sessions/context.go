package sessions

import (
	"context"
	"net/http"
)

type (
	idKey       struct{}
	sessionKey  struct{}
	resolvedKey struct{}
	tokenKey    struct{}
	ownerKey    struct{}
	freshKey    struct{}
)

// NewContext returns a context that carries session id.
func NewContext(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, idKey{}, id)
}

// FromContext returns the session id ctx carries.
func FromContext(ctx context.Context) (string, bool) {
	switch v := ctx.Value(idKey{}).(type) {
	case string:
		return v, v != ""
	case *Session: // WithSession's
		return v.ID, v.ID != ""
	}
	return "", false
}

// ID returns the session id of r, or "" when no session middleware ran for it.
func ID(r *http.Request) string {
	id, _ := FromContext(r.Context())
	return id
}

// WithSession returns a context that carries session s, and its id.
func WithSession(ctx context.Context, s *Session) context.Context {
	return &sessionContext{Context: ctx, s: s}
}

// A sessionContext carries a session and its id in one value, where
// NewContext and a context.WithValue would take three allocations: a tool
// call gets one on every call.
type sessionContext struct {
	context.Context
	s     *Session
	named Session // s, when ForCall made it
}

func (c *sessionContext) Value(key any) any {
	switch key.(type) {
	case idKey, sessionKey:
		return c.s // FromContext reads the id of it
	}
	return c.Context.Value(key)
}

func (c *sessionContext) String() string { return "sessions.WithSession" }

// SessionOf returns the session of the id ctx carries, or nil when ctx
// carries none, or only an id (NewContext) and no session of it.
func SessionOf(ctx context.Context) *Session {
	id, ok := FromContext(ctx)
	if !ok {
		return nil
	}
	if s, _ := ctx.Value(sessionKey{}).(*Session); s != nil && s.ID == id {
		return s
	}
	return nil
}

// WithResolved returns a context that carries the session a request's
// cookie names, as the Door has read it, for the middleware behind it to
// take up rather than read it again.
func WithResolved(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, resolvedKey{}, s)
}

// Resolved returns the session the Door read for a request's cookie (see
// WithResolved), or nil.
func Resolved(ctx context.Context) *Session {
	s, _ := ctx.Value(resolvedKey{}).(*Session)
	return s
}

// WithTokenSession returns a context that carries the session an MCP
// request's token names, as the Door has read it, for the tool calls the
// request carries (ForCall).
func WithTokenSession(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, tokenKey{}, s)
}

// WithOwner returns a context that says m, the Door's Manager, owns the
// sessions of the request: a session middleware of another Manager behind
// it defers to m. The Door's misroute check alone calls it, so that it also
// marks the request checked (see Owner).
func WithOwner(ctx context.Context, m *Manager) context.Context {
	return context.WithValue(ctx, ownerKey{}, m)
}

// Owner returns the Manager WithOwner put in ctx, or nil.
func Owner(ctx context.Context) *Manager { return ownerOf(ctx) }

func ownerOf(ctx context.Context) *Manager {
	m, _ := ctx.Value(ownerKey{}).(*Manager)
	return m
}

// WithFreshStart returns a context that lets Ensure start a new session in
// place of one no request may run in, for /seed_session.
func WithFreshStart(ctx context.Context) context.Context {
	return context.WithValue(ctx, freshKey{}, true)
}

func freshStart(ctx context.Context) bool { return ctx.Value(freshKey{}) != nil }

// ForCall returns ctx carrying session sid, for a tool call that runs in
// it: the session as from's request read it (the Door reads the session
// an MCP request's token, or else its cookie, names), or else sid unread,
// a rollout's when the call's token named it.
func (m *Manager) ForCall(ctx, from context.Context, sid string, rollout bool) context.Context {
	s, _ := from.Value(tokenKey{}).(*Session)
	if s == nil || s.ID != sid {
		s = Resolved(from)
	}
	if s == nil || s.ID != sid {
		// m.Named's session, made in the context that carries it: one
		// allocation for both.
		c := &sessionContext{Context: ctx}
		c.named = Session{ID: sid, m: m, rollout: rollout}
		c.s = &c.named
		return c
	}
	return WithSession(ctx, s)
}
