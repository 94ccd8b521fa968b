// Package store is the implementation of session.Store: where a replica
// keeps the sessions it holds and their state. A Store wraps a Backend,
// in memory (NewMemory) or in Redis (package session/redisstore); the
// Backend interface stays internal, so that session.Store is an opaque
// value a server passes on, and the backends are this module's.
package store

import (
	"context"
	"errors"
	"time"
)

// A Backend holds sessions and their state. Every method is safe for
// concurrent use. A session is held from Register (or Save) until Drop, or
// until it has been idle for the backend's idle TTL: every method that
// names a held session counts as a use of it.
type Backend interface {
	// Register holds sid; it is no error when sid is held already.
	Register(ctx context.Context, sid string) error
	// Holds reports whether sid is held.
	Holds(ctx context.Context, sid string) (bool, error)
	// Load returns the value saved under key in sid, and whether there is
	// one.
	Load(ctx context.Context, sid, key string) (value []byte, ok bool, err error)
	// Save saves value under key in sid, and holds sid.
	Save(ctx context.Context, sid, key string, value []byte) error
	// Drop forgets sid and everything saved in it.
	Drop(ctx context.Context, sid string) error
}

// A Store is a Backend as package session hands it to servers. The nil
// *Store means a fresh in-memory store.
type Store struct{ b Backend }

// New returns the Store of b.
func New(b Backend) *Store { return &Store{b: b} }

// BackendOf returns s's Backend, or nil for the nil *Store.
func BackendOf(s *Store) Backend {
	if s == nil {
		return nil
	}
	return s.b
}

// ErrNoStore is why a session's state cannot be reached from a context
// that carries no store.
var ErrNoStore = errors.New("no session store in the request's context")

// An Idler is a Backend that drops a session itself once it has been idle
// for the idle TTL it is given (0: never), such as one whose keys expire.
type Idler interface {
	SetIdle(d time.Duration)
}
