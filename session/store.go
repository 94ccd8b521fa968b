package session

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/store"
)

// A Store holds the sessions a replica serves, and their state (Load,
// Save). The nil *Store is the default: a store in the process's memory,
// which another replica does not share and a restart empties. A store in
// Redis (package session/redisstore), shared by every replica, lets any
// replica serve any call of a session, and lose nothing when one dies.
//
// A server's store is autoexpose's Config.Store, which the Manager of
// Config.UseSessions and the Door share (a Manager made with New has a
// memory store of its own). A session is held from the moment it is made —
// by /seed_session, or by the middleware for a client without a session
// cookie — until the rollout ends (see autoexpose's Config.OnSessionEnd).
// A Door refuses every request of a session its store does not hold, as
// misrouted, rather than run it against empty state.
type Store = store.Store

// Load decodes into v the JSON value that Save saved under key in r's
// session, and reports whether there was one. With none, v is left as it
// was. Its error says why the store could not be read, or the value not
// decoded; a request that went through neither a session middleware nor a
// Door has no session, and gets an error.
func Load(r *http.Request, key string, v any) (bool, error) {
	b, sid, err := of(r)
	if err != nil {
		return false, err
	}
	raw, ok, err := b.Load(r.Context(), sid, key)
	if err != nil {
		return false, fmt.Errorf("mcpdoor: session store: loading %q: %w", key, err)
	}
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, fmt.Errorf("mcpdoor: session store: decoding %q: %w", key, err)
	}
	return true, nil
}

// Save saves v, encoded as JSON, under key in r's session, in place of what
// was there. Calls of one session that save the same key at once keep the
// last one's value.
func Save(r *http.Request, key string, v any) error {
	b, sid, err := of(r)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("mcpdoor: session store: encoding %q: %w", key, err)
	}
	if err := b.Save(r.Context(), sid, key, raw); err != nil {
		return fmt.Errorf("mcpdoor: session store: saving %q: %w", key, err)
	}
	return nil
}

// of returns the store and the session of r.
func of(r *http.Request) (store.Backend, string, error) {
	sid, ok := sessions.FromContext(r.Context())
	if !ok {
		return nil, "", fmt.Errorf("mcpdoor: session store: the request has no session (it went through no session middleware)")
	}
	b := sessions.StoreFrom(r.Context())
	if b == nil {
		return nil, "", fmt.Errorf("mcpdoor: session store: %w", store.ErrNoStore)
	}
	return b, sid, nil
}
