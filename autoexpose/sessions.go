package autoexpose

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/keyring"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/store"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/token"
)

// UseSessions makes the session manager for the config's secret, keeps it
// in c (so that Install dispatches tool calls into its sessions) and
// returns it, for the router's middleware:
//
//	sessions, err := cfg.UseSessions()
//	...
//	r.Use(sessions.Middleware)
//
// It returns the manager it made before when called again on c, or on a
// copy of c made after the first call.
func (c *Config) UseSessions() (*session.Manager, error) {
	if c.sessions == nil {
		ds, err := c.newSessions()
		if err != nil {
			return nil, err
		}
		c.sessions = ds
	}
	return c.sessions.manager, nil
}

// doorSessions are one config's sessions: the session.Manager a router's
// middleware uses, and the door's own Manager over the same keys and
// cookie, which reads a cookie without setting one, starts a session for
// /seed_session, and signs the rollout's tokens with the same keys. The
// two sign and read the same cookies: they are made together, from the
// same key ring and the default options.
type doorSessions struct {
	manager *session.Manager
	door    *sessions.Manager
}

// newSessions makes the config's sessions, warning of a random secret.
func (c *Config) newSessions() (*doorSessions, error) {
	keys, random, err := c.MCP.keys()
	if err != nil {
		return nil, err
	}
	if random {
		c.logger().Warn("mcpdoor: no session secret configured (mcp.session_secret or mcp.session_secret_env); using a random per-process secret: sessions and tokens do not survive a restart or cross replicas")
	}
	// One store for both, so that the sessions the middleware makes are
	// the Door's, and the other way round.
	b := store.BackendOf(c.Store)
	switch idler, ok := b.(store.Idler); {
	case b == nil:
		var ended func(string)
		if end := c.OnSessionEnd; end != nil {
			ended = func(sid string) { end(context.Background(), sid) }
		}
		b = store.NewMemory(c.MCP.SessionIdleTTL, ended)
	case ok:
		idler.SetIdle(c.MCP.SessionIdleTTL)
	}
	ds := &doorSessions{manager: session.New(keys, nil), door: sessions.New(keys, &sessions.Options{Store: b})}
	sessions.Of(ds.manager).UseStore(b)
	// Served without the Door in front (which checks first), the router's
	// session middleware lets a seed, and a request of the MCP endpoint
	// (where the token decides), start afresh rather than refuse a cookie
	// of a session the store does not hold.
	mcpPath := c.MCP.path()
	sessions.Of(ds.manager).StartsAfresh(func(r *http.Request) bool {
		p := r.URL.Path
		return p == rollout.SeedPath || p == mcpPath || p == mcpPath+"/"
	})
	return ds, nil
}

// keys returns the key ring from session_secret or session_secret_env, or a
// random one (random reports it) when neither is set.
func (m *MCPConfig) keys() (keys token.Keys, random bool, err error) {
	secrets := []string(m.SessionSecret)
	key := "mcp.session_secret"
	if m.SessionSecretEnv != "" {
		key = "mcp.session_secret_env"
		v, ok := os.LookupEnv(m.SessionSecretEnv)
		if !ok || strings.TrimSpace(v) == "" {
			return token.Keys{}, false, fmt.Errorf("mcpdoor: config: %s: environment variable %s is not set", key, m.SessionSecretEnv)
		}
		secrets = strings.Split(v, ",")
	}
	if len(secrets) == 0 {
		return keyring.Random(), true, nil
	}
	raw := make([][]byte, len(secrets))
	for i, s := range secrets {
		raw[i] = []byte(strings.TrimSpace(s))
	}
	keys, err = keyring.New(raw...)
	if err != nil {
		return token.Keys{}, false, fmt.Errorf("mcpdoor: config: %s: %w", key, err)
	}
	return keys, false, nil
}

// sessionManager is the Door's session manager: the config's, or one of its
// own for a server without sessions, so that tokens still name a session.
func sessionManager(cfg *Config) (*sessions.Manager, error) {
	if cfg.sessions != nil {
		return cfg.sessions.door, nil
	}
	ds, err := cfg.newSessions()
	if err != nil {
		return nil, err
	}
	return ds.door, nil
}
