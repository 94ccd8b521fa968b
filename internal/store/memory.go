package store

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// DefaultIdle is the idle TTL of a session when a call gives none (0):
// mcp.session_idle_ttl's default. It is long enough for a rollout's
// slowest step: between two calls of a rollout the agent waits for its
// model, a turn of minutes on a busy inference server, and an hour leaves
// an order of magnitude beyond that; while it bounds what an abandoned
// rollout holds to an hour.
const DefaultIdle = time.Hour

// DefaultMaxSessions is the memory store's default cap on live sessions
// (mcp.max_stored_sessions): a replica serves tens to hundreds of
// rollouts at once, each ended by its /verify, and this leaves room for
// many times that, abandoned ones included, until they idle out; at a few
// KiB of state each, it bounds the store to tens of MiB.
const DefaultMaxSessions = 10_000

// Memory is the in-memory Backend, each process's own: a restarted
// process starts empty. It holds at most its cap of live sessions, and
// remembers at most as many ended ones (the oldest forgotten first). A
// session idle for longer than its idle TTL is dropped when it is next
// named, or when the store next sweeps, which it does, with no goroutine,
// when it creates a session, at most once a minute (or once per idle TTL,
// when shorter), and whenever it is full.
type Memory struct {
	max    int
	onIdle func(sid string) // told of each session dropped for idleness
	now    func() time.Time

	mu        sync.Mutex
	sessions  map[string]*memSession
	ended     map[string]time.Time // until when each ended session is remembered
	endedFIFO []tomb               // the ended sessions, oldest first
	nextSweep time.Time
	expired   []string // dropped for idleness, onIdle not told yet
}

// A tomb is an ended session, remembered until a time.
type tomb struct {
	sid   string
	until time.Time
}

type memSession struct {
	values  map[string][]byte
	lists   map[string][][]byte // nil until the first Append
	idle    time.Duration
	expires time.Time
}

// NewMemory returns an empty in-memory Backend holding at most max live
// sessions (0: DefaultMaxSessions), which tells onIdle (when set) of each
// session it drops for idleness, once, outside its lock.
func NewMemory(max int, onIdle func(sid string)) *Memory {
	if max <= 0 {
		max = DefaultMaxSessions
	}
	return &Memory{max: max, onIdle: onIdle, now: time.Now, sessions: map[string]*memSession{}, ended: map[string]time.Time{}}
}

// Len returns how many live sessions m holds, idle ones not yet swept
// included.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

func orDefault(idle time.Duration) time.Duration {
	if idle <= 0 {
		return DefaultIdle
	}
	return idle
}

// state returns what m knows of sid, and its entry when it is live, marked
// used now; the caller holds m.mu.
func (m *Memory) state(sid string) (State, *memSession) {
	now := m.now()
	if until, ok := m.ended[sid]; ok {
		if now.Before(until) {
			return Ended, nil
		}
		delete(m.ended, sid)
	}
	s := m.sessions[sid]
	if s == nil {
		return Absent, nil
	}
	if now.After(s.expires) {
		m.dropIdle(sid)
		return Absent, nil
	}
	s.expires = now.Add(s.idle)
	return Live, s
}

// dropIdle drops sid for idleness, under m.mu.
func (m *Memory) dropIdle(sid string) {
	delete(m.sessions, sid)
	m.expired = append(m.expired, sid)
}

// Open reads sid, as session.Store's Open does.
func (m *Memory) Open(_ context.Context, sid string, keys []string, idle time.Duration, create bool) (map[string][]byte, bool, error) {
	m.mu.Lock()
	defer m.unlock()
	var s *memSession
	held := true
	if create {
		var created bool
		var err error
		if s, created, err = m.create(sid, idle); err != nil {
			return nil, false, err
		}
		held = !created
	} else {
		var st State
		switch st, s = m.state(sid); st {
		case Ended:
			return nil, false, ErrEnded
		case Absent:
			return nil, false, nil
		}
	}
	s.idle = orDefault(idle)
	s.expires = m.now().Add(s.idle)
	var values map[string][]byte
	for _, k := range keys {
		if v, ok := s.values[k]; ok {
			if values == nil {
				values = make(map[string][]byte, len(keys))
			}
			values[k] = slices.Clone(v)
		}
	}
	return values, held, nil
}

// create returns sid's entry, made Live when it was Absent, and whether
// it made it; the caller holds m.mu.
func (m *Memory) create(sid string, idle time.Duration) (*memSession, bool, error) {
	switch st, s := m.state(sid); st {
	case Ended:
		return nil, false, ErrEnded
	case Live:
		return s, false, nil
	}
	now := m.now()
	idle = orDefault(idle)
	if !now.Before(m.nextSweep) || len(m.sessions) >= m.max {
		m.sweep(now, idle)
	}
	if len(m.sessions) >= m.max {
		return nil, false, &FullError{Live: len(m.sessions)}
	}
	s := &memSession{values: map[string][]byte{}, idle: idle, expires: now.Add(idle)}
	m.sessions[sid] = s
	return s, true, nil
}

// writable returns sid's entry for a write, created first when create is
// set and it is absent; the caller holds m.mu.
func (m *Memory) writable(sid string, idle time.Duration, create bool) (*memSession, error) {
	if create {
		s, _, err := m.create(sid, idle)
		return s, err
	}
	if _, s := m.state(sid); s != nil {
		return s, nil
	}
	return nil, ErrEnded
}

// Save sets key in sid, as session.Store's Save does.
func (m *Memory) Save(_ context.Context, sid, key string, value []byte, idle time.Duration, create bool) error {
	m.mu.Lock()
	defer m.unlock()
	s, err := m.writable(sid, idle, create)
	if err != nil {
		return err
	}
	set(s, key, value)
	return nil
}

func set(s *memSession, key string, value []byte) {
	if len(value) == 0 {
		delete(s.values, key)
		return
	}
	s.values[key] = slices.Clone(value)
}

// Swap sets key in sid over old, as session.Store's Swap does.
func (m *Memory) Swap(_ context.Context, sid, key string, old, value []byte, idle time.Duration, create bool) (bool, []byte, error) {
	m.mu.Lock()
	defer m.unlock()
	s, err := m.writable(sid, idle, create)
	if err != nil {
		return false, nil, err
	}
	if cur := s.values[key]; !bytes.Equal(cur, old) {
		return false, slices.Clone(cur), nil
	}
	set(s, key, value)
	return true, nil, nil
}

// End ends sid, as session.Store's End does.
func (m *Memory) End(_ context.Context, sid string, keep time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.unlock()
	st, _ := m.state(sid)
	if st == Ended {
		return false, nil
	}
	delete(m.sessions, sid)
	if keep > 0 {
		until := m.now().Add(keep)
		m.ended[sid] = until
		m.endedFIFO = append(m.endedFIFO, tomb{sid, until})
		m.forgetEnded()
	}
	return st == Live, nil
}

func (m *Memory) Append(_ context.Context, sid, list string, record []byte, limit int) error {
	m.mu.Lock()
	defer m.unlock()
	_, s := m.state(sid)
	if s == nil {
		return ErrEnded
	}
	if s.lists == nil {
		s.lists = make(map[string][][]byte, 1)
	}
	l := append(s.lists[list], slices.Clone(record))
	if over := len(l) - max(limit, 1); over > 0 {
		clear(l[:over])
		l = l[over:]
	}
	s.lists[list] = l
	return nil
}

func (m *Memory) List(_ context.Context, sid, list string) ([][]byte, error) {
	m.mu.Lock()
	defer m.unlock()
	st, s := m.state(sid)
	switch {
	case st == Ended:
		return nil, ErrEnded
	case s == nil:
		return nil, nil
	}
	l := s.lists[list]
	out := make([][]byte, len(l))
	for i, r := range l {
		out[i] = slices.Clone(r)
	}
	return out, nil
}

// forgetEnded forgets the ended sessions past the cap, oldest first, and
// those at the head of the queue whose keep has passed; the caller holds
// m.mu.
func (m *Memory) forgetEnded() {
	now := m.now()
	i := 0
	for ; i < len(m.endedFIFO); i++ {
		t := m.endedFIFO[i]
		if len(m.endedFIFO)-i <= m.max && now.Before(t.until) {
			break
		}
		if until, ok := m.ended[t.sid]; ok && until.Equal(t.until) {
			delete(m.ended, t.sid)
		}
	}
	m.endedFIFO = slices.Delete(m.endedFIFO, 0, i)
}

// sweep drops the sessions idle for longer than their idle TTL, and sets
// when the next one is due; the caller holds m.mu.
func (m *Memory) sweep(now time.Time, idle time.Duration) {
	m.nextSweep = now.Add(min(idle, time.Minute))
	for sid, s := range m.sessions {
		if now.After(s.expires) {
			m.dropIdle(sid)
		}
	}
	m.forgetEnded()
}

// unlock releases m.mu, then tells onIdle of the sessions dropped for
// idleness meanwhile, outside the lock: onIdle may use the store.
func (m *Memory) unlock() {
	expired := m.expired
	m.expired = nil
	m.mu.Unlock()
	if m.onIdle == nil {
		return
	}
	for _, sid := range expired {
		m.onIdle(sid)
	}
}

// SetClock makes now m's clock, for a test. Call it before m is used.
func (m *Memory) SetClock(now func() time.Time) { m.now = now }

// A FullError is why a full memory store creates no session; it wraps
// ErrFull.
type FullError struct{ Live int }

func (e *FullError) Error() string {
	return fmt.Sprintf("%v: %d sessions are live, the most mcp.max_stored_sessions allows", ErrFull, e.Live)
}

func (e *FullError) Unwrap() error { return ErrFull }
