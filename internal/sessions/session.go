package sessions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcpdoor/mcpdoor/internal/store"
)

// A Session is a request's session: its id, whether it is a rollout's,
// and what the store held of it when the request first read it. Every
// request reads its session from the store at most once for that (Open);
// its loads of the keys the server's handlers load come from that read,
// unless a write of this process may have changed them since, and its
// writes go straight to the store. It is safe for concurrent use: the tool
// calls of a batch share one.
type Session struct {
	ID string
	m  *Manager

	mu      sync.Mutex
	rollout bool
	opened  bool
	openErr error
	state   store.State
	asked   []string          // the keys Open read
	values  map[string][]byte // their values
	epoch   uint64            // the shard's writes when Open began
}

// Named returns the session id names, a rollout's or not, unread.
func (m *Manager) Named(id string, rollout bool) *Session {
	return &Session{ID: id, m: m, rollout: rollout}
}

// fresh returns a new session, not a rollout's, which the store certainly
// does not hold: it is not read.
func (m *Manager) fresh() *Session {
	id := m.newID()
	return &Session{ID: id, m: m, opened: true, state: store.Absent, epoch: m.writesOf(id).Load()}
}

// writes returns the write counter of sid's shard.
func (m *Manager) writesOf(sid string) *atomic.Uint64 {
	return &m.writes[maphash.String(m.seed, sid)%uint64(len(m.writes))]
}

// ErrUnavailable is why a session's state could not be read or written:
// the store failed. The error that wraps it says how; a client is told
// StoreDownText alone.
var ErrUnavailable = errors.New("the session store is unavailable")

// StoreDownText is what a client is told of a request the failed session
// store could not serve.
const StoreDownText = "mcpdoor: the session store is unavailable; retry later"

// ErrEnded is store.ErrEnded, the error of a read or write of a session
// that has ended (or that the store, for a rollout's, no longer holds).
var ErrEnded = store.ErrEnded

// failed wraps a store's error: ErrEnded and ErrFull as they are, any
// other as ErrUnavailable.
func failed(what string, err error) error {
	if errors.Is(err, store.ErrEnded) || errors.Is(err, store.ErrFull) {
		return fmt.Errorf("mcpdoor: session store: %s: %w", what, err)
	}
	return fmt.Errorf("mcpdoor: session store: %s: %w: %w", what, ErrUnavailable, err)
}

// Open reads the session from the store, once: its state, and the values
// of the keys the server's handlers load. Its error, a failed store's,
// is the same on every call.
func (s *Session) Open(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open(ctx)
}

func (s *Session) open(ctx context.Context) error {
	if s.opened {
		return s.openErr
	}
	s.opened = true
	s.epoch = s.m.writesOf(s.ID).Load()
	s.asked = s.m.hot.list()
	values, held, err := s.m.store.Open(ctx, s.ID, s.asked, s.m.idle, false)
	switch {
	case errors.Is(err, store.ErrEnded):
		s.state = store.Ended
	case err != nil:
		s.openErr = failed("reading the session", err)
		return s.openErr
	case held:
		s.state, s.values = store.Live, values
	default:
		s.state = store.Absent
	}
	return nil
}

// read returns the value of key as the store holds it now, nil when it
// has none.
func (s *Session) read(ctx context.Context, key string) ([]byte, error) {
	values, _, err := s.m.store.Open(ctx, s.ID, []string{key}, s.m.idle, false)
	return values[key], err
}

// IsRollout reports whether the session is a rollout's.
func (s *Session) IsRollout() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rollout
}

// Stale reports, once the session is open, that no request may run in it:
// it has ended, or it is a rollout's and the store no longer holds it.
func (s *Session) Stale() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened && s.openErr == nil && (s.state == store.Ended || s.state == store.Absent && s.rollout)
}

// writable reports whether a write of the session creates it in the
// store, or returns ErrEnded when it may not write; the caller holds s.mu
// and has opened s.
func (s *Session) writable() (create bool, err error) {
	switch {
	case s.state == store.Ended, s.state == store.Absent && s.rollout:
		return false, store.ErrEnded
	}
	return s.state == store.Absent, nil
}

// cached returns key's value as the session held it when Open read it,
// when that still stands: no write of this process to the session's
// shard came since, and Open read the key (or found the session absent);
// the caller holds s.mu.
func (s *Session) cached(key string) (v []byte, ok bool) {
	if s.m.writesOf(s.ID).Load() != s.epoch {
		return nil, false
	}
	switch s.state {
	case store.Absent:
		return nil, true
	case store.Live:
		if slices.Contains(s.asked, key) {
			return s.values[key], true
		}
	}
	return nil, false
}

// wrote records that the request wrote value under key; the caller holds
// s.mu.
func (s *Session) wrote(key string, value []byte) {
	s.state = store.Live
	if n := s.m.writesOf(s.ID).Add(1); n == s.epoch+1 {
		s.epoch = n // no other write since: what Open read still stands
	}
	if !slices.Contains(s.asked, key) {
		s.asked = append(slices.Clip(s.asked), key)
	}
	if s.values == nil {
		s.values = map[string][]byte{}
	}
	s.values[key] = value
}

// Load returns the value of key, nil when it has none.
func (s *Session) Load(ctx context.Context, key string) ([]byte, error) {
	s.m.hot.note(key)
	s.mu.Lock()
	if err := s.open(ctx); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if _, err := s.writable(); err != nil {
		s.mu.Unlock()
		return nil, failed(fmt.Sprintf("loading %q", key), err)
	}
	if v, ok := s.cached(key); ok {
		s.mu.Unlock()
		return v, nil
	}
	s.mu.Unlock()
	v, err := s.read(ctx, key)
	if err != nil {
		return nil, failed(fmt.Sprintf("loading %q", key), err)
	}
	return v, nil
}

// Save saves value under key, registering the session in the store when
// it is not a rollout's and holds nothing yet.
func (s *Session) Save(ctx context.Context, key string, value []byte) error {
	s.mu.Lock()
	create, err := s.begin(ctx, fmt.Sprintf("saving %q", key))
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if err := s.m.store.Save(ctx, s.ID, key, value, s.m.idle, create); err != nil {
		return failed(fmt.Sprintf("saving %q", key), err)
	}
	s.mu.Lock()
	s.wrote(key, value)
	s.mu.Unlock()
	return nil
}

// begin opens the session for a write, what, and reports whether the
// write creates it in the store; the caller holds s.mu.
func (s *Session) begin(ctx context.Context, what string) (create bool, err error) {
	if err := s.open(ctx); err != nil {
		return false, err
	}
	if create, err = s.writable(); err != nil {
		return false, failed(what, err)
	}
	return create, nil
}

// maxTries bounds how often Update tries again when other calls of the
// session keep changing the value under it.
const maxTries = 64

// Update changes the value of key by change, atomically: change gets the
// value (nil: none) and returns the new one; when another write changed
// the value meanwhile, change runs again on the value that write left.
// A new value equal to the old one writes nothing.
func (s *Session) Update(ctx context.Context, key string, change func(old []byte) ([]byte, error)) error {
	s.m.hot.note(key)
	what := fmt.Sprintf("updating %q", key)
	s.mu.Lock()
	create, err := s.begin(ctx, what)
	old, ok := s.cached(key)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if !ok {
		if old, err = s.read(ctx, key); err != nil {
			return failed(what, err)
		}
	}
	for range maxTries {
		v, err := change(old)
		if err != nil {
			return err
		}
		if bytes.Equal(v, old) {
			return nil
		}
		swapped, cur, err := s.m.store.Swap(ctx, s.ID, key, old, v, s.m.idle, create)
		if err != nil {
			return failed(what, err)
		}
		if swapped {
			s.mu.Lock()
			s.wrote(key, v)
			s.mu.Unlock()
			return nil
		}
		old = cur
	}
	return fmt.Errorf("mcpdoor: session store: %s: gave up after %d tries, other calls of the session changing it each time", what, maxTries)
}

// End ends the session for good (session.Store's End), and tells the
// Manager's OnEnd, when this call ended it.
func (s *Session) End(ctx context.Context) error {
	s.mu.Lock()
	s.state, s.opened, s.openErr = store.Ended, true, nil
	s.mu.Unlock()
	return s.m.End(ctx, s.ID)
}

// End ends session sid for good, and tells OnEnd once, when this call
// ended it while the store held it: concurrent ends of one session tell it
// once, and a session the store never held (nothing was saved in it), or
// dropped already (idle: the memory store told OnEnd then), is not told of.
func (m *Manager) End(ctx context.Context, sid string) error {
	ended, err := m.store.End(ctx, sid, m.keep)
	if err != nil {
		return failed("ending the session", err)
	}
	if ended && m.onEnd != nil {
		m.onEnd(ctx, sid)
	}
	return nil
}

// Seed holds the session for a rollout: it is registered in the store (if
// it was not), and its cookie says it is a rollout's from now on. It
// reports whether it registered it.
func (s *Session) Seed(ctx context.Context) (created bool, err error) {
	_, held, err := s.m.store.Open(ctx, s.ID, nil, s.m.idle, true)
	if err != nil {
		return false, failed("holding the seed's session", err)
	}
	s.mu.Lock()
	s.rollout, s.opened, s.openErr, s.state = true, true, nil, store.Live
	s.mu.Unlock()
	return !held, nil
}

// Discard forgets a session a seed registered and whose seed failed: it
// leaves no trace, and no hook is told.
func (s *Session) Discard(ctx context.Context) error {
	if _, err := s.m.store.End(ctx, s.ID, 0); err != nil {
		return failed("discarding the session", err)
	}
	return nil
}
