package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/store"
)

// A Store holds a server's sessions and their state (Load, Save, Update).
// The nil *Store is the default: a store in the process's memory, which
// another replica does not share and a restart empties. A store in Redis
// (package session/redisstore), shared by every replica, lets any replica
// serve any call of a session, and lose nothing when one dies.
//
// A server's store is autoexpose's Config.Store, which the Door and the
// Manager of Config.UseSessions share (a Manager made with New has a
// memory store of its own). A session is registered in it when
// /seed_session starts a rollout in it, or when a handler first saves in
// it, and not before: a request that saves nothing costs the store
// nothing. Every session ends: once it has gone unused for
// mcp.session_idle_ttl (default 1h), once /verify has answered 2xx in it,
// or at End.
type Store = store.Store

// ErrEnded is why a session's state can be neither read nor written any
// more: the session has ended (its rollout was verified, it was idle for
// mcp.session_idle_ttl, or End ended it), or it is a rollout's that this
// replica's store does not hold. Load, Save, Update and End return errors
// that wrap it; a handler made with autoexpose.Handler answers such an
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
