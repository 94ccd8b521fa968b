// Package store is where a server keeps its sessions and their state:
// the Backend interface, which is session.Store's method set, and the
// in-memory backend (NewMemory), the default. Other backends (Redis, in
// its own module, session/redisstore; a database, a cache) implement
// session.Store outside this module, and run the suite of its contracts,
// package session/storetest.
package store

import (
	"context"
	"errors"
	"time"
)

// A State is what a store knows of a session.
type State uint8

const (
	// Absent: the store holds nothing of the session. It never held it (a
	// session nobody has saved in yet), or it dropped it: idle for its idle
	// TTL, evicted, lost in a restart, or ended long enough ago.
	Absent State = iota
	// Live: the store holds the session, and its state.
	Live
	// Ended: the session has ended (End), and the store remembers so for
	// a while: no write brings it back.
	Ended
)

func (s State) String() string {
	switch s {
	case Live:
		return "live"
	case Ended:
		return "ended"
	}
	return "absent"
}

// A Backend holds sessions and their state. Its method set is
// session.Store's, whose doc is the contract every backend keeps
// (package session, which imports this one, converts between the two);
// package session/storetest checks it.
type Backend interface {
	Open(ctx context.Context, sid string, keys []string, idle time.Duration, create bool) (values map[string][]byte, held bool, err error)
	Save(ctx context.Context, sid, key string, value []byte, idle time.Duration, create bool) error
	Swap(ctx context.Context, sid, key string, old, value []byte, idle time.Duration, create bool) (swapped bool, current []byte, err error)
	End(ctx context.Context, sid string, keep time.Duration) (ended bool, err error)
}

var (
	// ErrEnded is why a session's state cannot be written, or read: it
	// has ended (End), or, for a write that may not create it, the store
	// does not hold it.
	ErrEnded = errors.New("the session has ended, or this replica's store does not hold it")
	// ErrFull is why a backend with a cap on its sessions creates no more.
	ErrFull = errors.New("session store full")
)
