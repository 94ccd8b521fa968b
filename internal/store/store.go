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

// Lists is what a backend that keeps lists in its sessions adds to
// Backend: the execution ledger of a rollout's session is one. The memory
// backend and session/redisstore keep them; a session.Store of another
// module keeps them by having these two methods.
type Lists interface {
	// Append adds record (not empty) to the end of the list called list in
	// sid, and drops the list's oldest records past max (at least 1); a
	// backend may let a list grow by up to max/8 more between drops. A
	// list is part of its session's state, apart from its values: it goes
	// with the session. Append fails, adding nothing, with ErrEnded when
	// sid has ended or is Absent: it never creates a session.
	Append(ctx context.Context, sid, list string, record []byte, max int) error
	// List returns the records of the list called list in sid, oldest
	// first: none when sid is Absent or has no such list. It fails with
	// ErrEnded when sid has ended.
	List(ctx context.Context, sid, list string) ([][]byte, error)
}

var (
	// ErrEnded is why a session's state cannot be written, or read: it
	// has ended (End), or, for a write that may not create it, the store
	// does not hold it.
	ErrEnded = errors.New("the session has ended, or this replica's store does not hold it")
	// ErrFull is why a backend with a cap on its sessions creates no more.
	ErrFull = errors.New("session store full")
)
