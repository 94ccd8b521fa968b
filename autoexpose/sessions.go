package autoexpose

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/keyring"
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
// It is the Door's own manager: the one maker of the server's sessions,
// over Config.Store. It returns the manager it made before when called
// again on c, or on a copy of c made after the first call. Install refuses
// a router whose session middleware is of another manager.
func (c *Config) UseSessions() (*session.Manager, error) {
	m, err := c.sessionManager()
	if err != nil {
		return nil, err
	}
	return (*session.Manager)(m.Handle()), nil
}

// sessionManager returns the config's session manager, made on the first
// call (UseSessions', or Install's for a server without sessions, so that
// tokens still name a session), warning of a random secret: its sessions
// in Config.Store (a memory store of mcp.max_stored_sessions by default),
// idle for at most mcp.session_idle_ttl, ending as Config.OnSessionEnd is
// told.
func (c *Config) sessionManager() (*sessions.Manager, error) {
	if c.sessions != nil {
		return c.sessions, nil
	}
	keys, random, err := c.MCP.keys()
	if err != nil {
		return nil, err
	}
	var b store.Backend = c.Store
	if b != nil && c.MCP.MaxStoredSessions != 0 {
		return nil, fmt.Errorf("mcpdoor: config: mcp.max_stored_sessions caps the in-memory session store, and Config.Store is set: " +
			"fix: remove mcp.max_stored_sessions (bound a Redis store with its maxmemory and a volatile-* eviction policy, docs/replicas.md)")
	}
	if random {
		c.logger().Warn("mcpdoor: no session secret configured (mcp.session_secret or mcp.session_secret_env); using a random per-process secret: sessions and tokens do not survive a restart or cross replicas")
	}
	end := c.OnSessionEnd
	if b == nil {
		var onIdle func(string)
		if end != nil {
			onIdle = func(sid string) { end(context.Background(), sid) }
		}
		b = store.NewMemory(c.MCP.MaxStoredSessions, onIdle)
	}
	c.sessions = sessions.New(keys, &sessions.Options{Store: b, Idle: c.MCP.SessionIdleTTL, OnEnd: end, Logger: c.logger()})
	return c.sessions, nil
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
