package store

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Memory is the in-memory Backend, each replica's own: a restarted replica
// starts empty and holds none of its old sessions. A session idle for
// longer than its idle TTL is dropped when it is next named, or when the
// store next sweeps, which it does, with no goroutine, on a Register once
// a minute (or once per idle TTL, when shorter) at most.
type Memory struct {
	idle time.Duration // 0: sessions are never dropped for idleness
	now  func() time.Time

	mu        sync.Mutex
	sessions  map[string]*memSession
	nextSweep time.Time
	expired   []string // dropped for idleness, ended not told yet
	// ended, if set, is told of each session a sweep drops, after the
	// lock is released.
	ended func(sid string)
}

type memSession struct {
	values map[string][]byte
	used   time.Time
}

// NewMemory returns an empty in-memory Backend whose sessions are dropped
// once idle for longer than idle (0: never), telling ended (when set) of
// each.
func NewMemory(idle time.Duration, ended func(sid string)) *Memory {
	return &Memory{idle: idle, now: time.Now, sessions: map[string]*memSession{}, ended: ended}
}

// session returns sid's entry, marked used now, or nil; the caller holds
// m.mu.
func (m *Memory) session(sid string) *memSession {
	s := m.sessions[sid]
	if s == nil {
		return nil
	}
	now := m.now()
	if m.idle > 0 && now.Sub(s.used) > m.idle {
		delete(m.sessions, sid)
		m.expired = append(m.expired, sid)
		return nil
	}
	s.used = now
	return s
}

func (m *Memory) Register(_ context.Context, sid string) error {
	m.mu.Lock()
	defer m.unlock()
	if m.session(sid) == nil {
		m.sessions[sid] = &memSession{values: map[string][]byte{}, used: m.now()}
	}
	m.sweep()
	return nil
}

func (m *Memory) Holds(_ context.Context, sid string) (bool, error) {
	m.mu.Lock()
	defer m.unlock()
	return m.session(sid) != nil, nil
}

func (m *Memory) Load(_ context.Context, sid, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.unlock()
	s := m.session(sid)
	if s == nil {
		return nil, false, nil
	}
	v, ok := s.values[key]
	return slices.Clone(v), ok, nil
}

func (m *Memory) Save(_ context.Context, sid, key string, value []byte) error {
	m.mu.Lock()
	defer m.unlock()
	s := m.session(sid)
	if s == nil {
		s = &memSession{values: map[string][]byte{}, used: m.now()}
		m.sessions[sid] = s
	}
	s.values[key] = slices.Clone(value)
	return nil
}

func (m *Memory) Drop(_ context.Context, sid string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.sessions, sid)
	return nil
}

// Len returns how many sessions m holds, idle ones not yet swept included.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// sweep drops the sessions idle for longer than the idle TTL, at most once
// a minute (or once per idle TTL, when shorter); the caller holds m.mu.
func (m *Memory) sweep() {
	now := m.now()
	if m.idle <= 0 || now.Before(m.nextSweep) {
		return
	}
	m.nextSweep = now.Add(min(m.idle, time.Minute))
	for sid, s := range m.sessions {
		if now.Sub(s.used) > m.idle {
			delete(m.sessions, sid)
			m.expired = append(m.expired, sid)
		}
	}
}

// unlock releases m.mu, then tells ended of the sessions dropped for
// idleness meanwhile, outside the lock: ended may use the store.
func (m *Memory) unlock() {
	expired := m.expired
	m.expired = nil
	m.mu.Unlock()
	if m.ended == nil {
		return
	}
	for _, sid := range expired {
		m.ended(sid)
	}
}
