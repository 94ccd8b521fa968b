package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/store"
)

// A Store holds a server's sessions and their state. A server's store is
// autoexpose's Config.Store, which its Door and the Manager of
// Config.UseSessions share; nil means a store in the process's memory,
// which another replica does not share and a restart empties. A store
// that every replica shares (package session/redisstore, in a module of
// its own, keeps one in Redis) lets any replica serve any call of a
// session, and lose nothing when one dies. Another store (a database, a
// cache) implements Store, and checks itself with package
// session/storetest.
//
// A session is registered in the store when /seed_session starts a
// rollout in it, or when a handler first saves in it, and not before: a
// request that saves nothing costs the store nothing. Every session ends:
// once it has gone unused for mcp.session_idle_ttl (default 1h), once
// /verify has answered 2xx in it, or at End.
//
// What a Store keeps of a session sid is its state, one of three: absent
// (never created, or dropped: idle for its idle TTL, evicted, lost, or
// ended long enough ago), live (held, with its values: opaque bytes under
// string keys, never empty, an empty value being the same as none), or
// ended (End ended it, and the store remembers so for the keep End gave:
// no write brings it back). Every method is safe for concurrent use, and
// atomic: a concurrent reader sees a write whole or not at all. A store
// holds no session it was not asked to create, and every session it
// holds has an end.
//
// A store also keeps lists in its sessions, the execution ledger a rollout
// server's /verify checks claims against (mcp.rollout.claims), by having
// two more methods:
//
//	// Append adds record (not empty) to the end of the list called list
//	// in sid, and drops the list's oldest records past max (at least 1;
//	// the list may grow by up to max/8 more between drops). It fails,
//	// adding nothing, with ErrEnded when sid has ended or is absent.
//	Append(ctx context.Context, sid, list string, record []byte, max int) error
//	// List returns the records of the list called list in sid, oldest
//	// first: none when sid is absent or has no such list. It fails with
//	// ErrEnded when sid has ended.
//	List(ctx context.Context, sid, list string) ([][]byte, error)
//
// A list goes with its session. The memory store and session/redisstore
// keep lists; Install refuses a rollout server whose store keeps none
// unless mcp.rollout.claims is off.
type Store interface {
	// Open reads sid: held reports whether it was live, and values are
	// the values of those of keys it has (nil when none). With create, an
	// absent sid is made live and empty first, with the idle TTL idle
	// (held reports false: it was not held). Open fails with ErrEnded
	// when sid has ended, and a store may refuse to create a session
	// (it is full) with an error of its own. Opening a live session is a
	// use: a session ends once it has gone unused for idle, no sooner
	// than 7/8 idle and no later than idle after its last use.
	Open(ctx context.Context, sid string, keys []string, idle time.Duration, create bool) (values map[string][]byte, held bool, err error)
	// Save sets key in sid to value, whatever its value was. It fails,
	// saving nothing, with ErrEnded when sid has ended, or when it is
	// absent and create is not set; with create, an absent sid is created
	// first, as Open creates it.
	Save(ctx context.Context, sid, key string, value []byte, idle time.Duration, create bool) error
	// Swap sets key in sid to value if its value is still old (nil:
	// none), and reports whether it did; when it did not, it returns the
	// value key has instead (nil: none). It fails as Save does, and an
	// absent sid it creates has no value yet.
	Swap(ctx context.Context, sid, key string, old, value []byte, idle time.Duration, create bool) (swapped bool, current []byte, err error)
	// End ends sid for good, with all its state: from then on Open, Save
	// and Swap fail with ErrEnded, until keep has passed (then sid may be
	// absent; keep 0: forget it at once). It reports whether this call
	// ended a live session: of concurrent Ends of one sid, at most one
	// reports true, and an End of an absent or ended sid reports false
	// (an absent sid is ended all the same).
	End(ctx context.Context, sid string, keep time.Duration) (ended bool, err error)
}

// Store's method set is the one mcpdoor's sessions use.
var (
	_ store.Backend = Store(nil)
	_ Store         = store.Backend(nil)
)

// ErrEnded is why a session's state can be neither read nor written any
// more: the session has ended (its rollout was verified, it was idle for
// mcp.session_idle_ttl, or End ended it), or it is a rollout's that this
// replica's store does not hold. Load, Save, Update and End return errors
// that wrap it, and a Store returns it (or an error that wraps it); a handler made with autoexpose.Handler answers such an
// error with 421, the answer to every later request of the session.
var ErrEnded = sessions.ErrEnded

// Load decodes into v the JSON value that Save saved under key in r's
// session, and reports whether there was one. With none, v is left as it
// was. It sees every save that had returned when the request began, and
// the request's own; to change a value that other calls of the session may
// change at the same time, use Update. Its error says why the store could
// not be read, or the value not decoded; a request that went through
// neither a session middleware nor a Door has no session, and gets an
// error.
func Load(r *http.Request, key string, v any) (bool, error) {
	s, err := of(r)
	if err != nil {
		return false, err
	}
	raw, err := s.Load(r.Context(), key)
	if err != nil || raw == nil {
		return false, err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, fmt.Errorf("mcpdoor: session store: decoding %q: %w", key, err)
	}
	return true, nil
}

// Save saves v, encoded as JSON, under key in r's session, in place of what
// was there. Calls of one session that save the same key at once keep the
// last one's value: for a value that calls read, change and write back,
// use Update. A session not saved in before is registered in the store
// now; a session that has ended takes no save (ErrEnded).
func Save(r *http.Request, key string, v any) error {
	s, err := of(r)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("mcpdoor: session store: encoding %q: %w", key, err)
	}
	return s.Save(r.Context(), key, raw)
}

// Update changes the value under key in r's session atomically: change
// gets the value decoded into a *T (the zero T when there is none), and
// changes it in place; the result is saved, unless change returns an
// error (returned as it is, and nothing is saved) or left the value as it
// was. When another call of the session saved the key between the read
// and the write — parallel tool calls of one rollout, on one replica or on
// two sharing a Redis — nothing is written, and change runs again, on a
// fresh T decoded from the value that call saved. So change may run more
// than once: it must do nothing but change *T, and whatever a handler
// answers from the value it should take from the last run.
//
// Use Update for every value that more than one call of a session may
// change: a counter, a list that grows, a whole environment's state. A
// value only ever replaced whole can go with Save.
func Update[T any](r *http.Request, key string, change func(v *T) error) error {
	s, err := of(r)
	if err != nil {
		return err
	}
	return s.Update(r.Context(), key, func(old []byte) ([]byte, error) {
		var v T
		if old != nil {
			if err := json.Unmarshal(old, &v); err != nil {
				return nil, fmt.Errorf("mcpdoor: session store: decoding %q: %w", key, err)
			}
		}
		if err := change(&v); err != nil {
			return nil, err
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("mcpdoor: session store: encoding %q: %w", key, err)
		}
		return raw, nil
	})
}

// End ends r's session for good: the store forgets its state, a call of it
// still running can save nothing more (ErrEnded), and autoexpose's
// Config.OnSessionEnd is told of it, once (if the store held it: a
// session nothing was saved in is not). Its next request is refused
// (421) on a rollout server, and gets a new session on any other. A
// session that has ended already is no error.
func End(r *http.Request) error {
	s, err := of(r)
	if err != nil {
		return err
	}
	return s.End(r.Context())
}

// of returns the session of r.
func of(r *http.Request) (*sessions.Session, error) {
	if s := sessions.SessionOf(r.Context()); s != nil {
		return s, nil
	}
	if _, ok := sessions.FromContext(r.Context()); ok {
		return nil, errors.New("mcpdoor: session store: the request's session id came with no store (it went through no session middleware or Door)")
	}
	return nil, errors.New("mcpdoor: session store: the request has no session (it went through no session middleware)")
}
