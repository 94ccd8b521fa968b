package autoexpose

import (
	"fmt"
	"os"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/keyring"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/token"
)

// UseSessions makes the session manager for the config's secret, stores it
// in c.Sessions (so Install dispatches tool calls into its sessions) and
// returns it, for the router's middleware:
//
//	sessions, err := cfg.UseSessions()
//	...
//	r.Use(sessions.Middleware)
//
// It returns the existing manager when c.Sessions is already set.
func (c *Config) UseSessions() (*session.Manager, error) {
	if c.Sessions != nil {
		return c.Sessions, nil
	}
	keys, random, err := c.MCP.keys()
	if err != nil {
		return nil, err
	}
	if random {
		c.logger().Warn("mcpdoor: no session secret configured (mcp.session_secret or mcp.session_secret_env); using a random per-process secret: sessions and tokens do not survive a restart or cross replicas")
	}
	c.Sessions = session.New(keys, nil)
	return c.Sessions, nil
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
func sessionManager(cfg *Config) (*session.Manager, error) {
	if cfg.Sessions != nil {
		return cfg.Sessions, nil
	}
	c := *cfg
	return c.UseSessions()
}
