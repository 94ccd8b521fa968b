// Package store is the implementation of session.Store: where a server
// keeps its sessions and their state. A Store wraps a Backend, in memory
// (NewMemory) or in Redis (package session/redisstore).
//
// The Backend interface is small on purpose, so that it can be exported as
// it stands and other stores (a database, a cache) implemented outside
// this module; storetest holds the suite of its contracts, which every
// backend runs.
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

// A Backend holds sessions and their state: values, opaque bytes under
// string keys, never empty (an empty value is the same as none). Every
// method is safe for concurrent use, and each is atomic: a concurrent
// reader sees a write whole or not at all.
//
// Every session a backend holds has an end: it is dropped once it has gone
// unused for its idle TTL (the idle a call gives), and an ended one is
// remembered as ended for at most the keep End gives. A backend never
// holds a session it was not asked to create.
type Backend interface {
	// Open reads session sid: its State and, when it is Live, the values
	// of keys that it has (a key without a value is left out of Values).
	// Opening a Live session is a use: a session ends once it has gone
	// unused for idle, no sooner than 7/8 idle and no later than idle
	// after its last use (a backend may restart its TTL on every use, or
	// less often within that bound).
	Open(ctx context.Context, sid string, keys []string, idle time.Duration) (Found, error)
	// Load returns the value of key in sid, nil when it has none (or sid
	// is Absent). It fails with ErrEnded when sid has ended.
	Load(ctx context.Context, sid, key string) ([]byte, error)
	// Create makes sid Live and empty, with the idle TTL idle, and reports
	// true; a sid Live already is kept as it is (its idle TTL restarted),
	// and Create reports false. It fails with ErrEnded when sid has ended,
	// and with an error wrapping ErrFull when the backend holds as many
	// sessions as it may.
	Create(ctx context.Context, sid string, idle time.Duration) (created bool, err error)
	// Save sets key in sid to value. It fails, saving nothing, with
	// ErrEnded when sid has ended, or when sid is Absent and w.Create is
	// not set; with w.Create set, an Absent sid is created first, as Create
	// does (with w.Idle), and may fail as it does.
	Save(ctx context.Context, sid, key string, value []byte, w Write) error
	// Swap sets key in sid to value if its value is still old (nil: none),
	// and reports whether it did. When it did not, it returns the value
	// key has instead (nil: none). It fails as Save does, and an Absent
	// sid it may create has no value yet.
	Swap(ctx context.Context, sid, key string, old, value []byte, w Write) (swapped bool, current []byte, err error)
	// End ends sid for good, with all its state: from then on Open reports
	// it Ended, Load, Save and Swap fail with ErrEnded, and Create fails,
	// until keep has passed (then it may be Absent; keep 0: forget it at
	// once). It reports whether this call ended a Live session: of
	// concurrent Ends of one sid, at most one reports true, and an End of
	// a sid Absent or Ended already reports false (an Absent sid is ended
	// all the same).
	End(ctx context.Context, sid string, keep time.Duration) (ended bool, err error)
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

// Found is what Open found of a session.
type Found struct {
	State  State
	Values map[string][]byte // the values of the keys asked, while Live
}

// Write says how a Save or Swap treats a session the backend does not hold.
type Write struct {
	// Create creates an Absent session (a session's first save), rather
	// than fail.
	Create bool
	// Idle is the idle TTL of a session the write creates.
	Idle time.Duration
}

var (
	// ErrEnded is why a session's state cannot be written, or read: it
	// has ended (End), or, for a write that may not create it, the store
	// does not hold it.
	ErrEnded = errors.New("the session has ended, or this replica's store does not hold it")
	// ErrFull is why a backend with a cap on its sessions creates no more.
	ErrFull = errors.New("session store full")
)

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
