package tests

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session/redisstore"
)

// redisCommands returns how many commands rs has run since its statistics
// were last reset (CONFIG RESETSTAT), by INFO commandstats, a MULTI and an
// EXEC counted as one command each, and a script's commands each as one
// beside the EVALSHA. What a client runs to set up a connection (HELLO,
// CLIENT SETINFO) and what the test itself runs (INFO, CONFIG) are left
// out.
func redisCommands(t testing.TB, rs *redisServer) (total int, by map[string]int) {
	t.Helper()
	info, err := rs.Client.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatalf("INFO commandstats: %v", err)
	}
	by = map[string]int{}
	for _, line := range strings.Split(info, "\n") {
		name, stats, ok := strings.Cut(strings.TrimSpace(line), ":")
		name, isCmd := strings.CutPrefix(name, "cmdstat_")
		if !ok || !isCmd {
			continue
		}
		switch {
		case name == "info", name == "hello", strings.HasPrefix(name, "config|"), strings.HasPrefix(name, "client|"):
			continue
		}
		calls, _, _ := strings.Cut(strings.TrimPrefix(stats, "calls="), ",")
		n, _ := strconv.Atoi(calls)
		by[name] = n
		total += n
	}
	return total, by
}

// resetCommands resets rs's statistics (CONFIG RESETSTAT).
func resetCommands(t testing.TB, rs *redisServer) {
	t.Helper()
	if err := rs.Client.ConfigResetStat(context.Background()).Err(); err != nil {
		t.Fatalf("CONFIG RESETSTAT: %v", err)
	}
}

// redisNotebook serves a notebook replica whose sessions are in rs, its
// config changed by configure.
func redisNotebook(t testing.TB, rs *redisServer, configure func(*autoexpose.Config)) *server {
	t.Helper()
	client := redis.NewClient(&redis.Options{Addr: rs.Addr})
	t.Cleanup(func() { client.Close() })
	cfg := replicaConfig()
	cfg.Store = redisstore.New(client, "notebook")
	if configure != nil {
		configure(&cfg)
	}
	return serve(t, newStoredNotebookDoor(t, cfg))
}

// TestRedisCommandsPerCall: in steady state a rollout's MCP tool call (the
// token; the fast path and the go-sdk alike) and its HTTP call (the
// cookie), each loading and saving the session's notes, cost at most 3
// Redis commands; a seed at most 4.
func TestRedisCommandsPerCall(t *testing.T) {
	rs := startRedis(t)
	for _, v := range []struct {
		path   string
		claims string // mcp.rollout.claims
		maxMCP int    // the commands an MCP call may cost
	}{
		// The execution ledger (claims checked, the default) adds one
		// round trip of two commands to an MCP call: an HSET of its
		// record and an HINCRBY of the ledger's count.
		{"fast path", "", 5},
		{"go-sdk", "", 5},
		{"fast path", "off", 3},
		{"go-sdk", "off", 3},
	} {
		path, maxMCP := v.path, v.maxMCP
		t.Run(strings.TrimSuffix(path+"/claims="+v.claims, "/claims="), func(t *testing.T) {
			s := redisNotebook(t, rs, func(cfg *autoexpose.Config) {
				cfg.MCP.DisableFastPath = path == "go-sdk"
				cfg.MCP.Rollout.Claims = v.claims
			})
			s.cookieless().seedSession(`{}`) // loads what a first seed loads (the scripts), left out
			const n = 30
			resetCommands(t, rs)
			for range n {
				if r, meta := s.cookieless().seedSession(`{}`); meta.Headers[tokenHeader] == "" {
					t.Fatalf("seed: %d %s", r.Status, r.Body)
				}
			}
			seeds, seedBy := redisCommands(t, rs)
			rollout := s.newClient()
			_, meta := rollout.seedSession(`{}`)
			tok := meta.Headers[tokenHeader]
			agent := s.cookieless()
			resetCommands(t, rs)
			for i := range n {
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"note","arguments":{"note":"n"}}}`, i)
				if r := agent.rawMCP(t, body, raw{header: []string{tokenHeader, tok}}); r.Status != http.StatusOK || bytes.Contains(r.Body, []byte(`"isError":true`)) {
					t.Fatalf("tools/call: %d %s", r.Status, r.Body)
				}
			}
			mcpCalls, mcpBy := redisCommands(t, rs)
			resetCommands(t, rs)
			for range n {
				if r := rollout.post("/note", `{"note":"n"}`); r.Status != http.StatusOK {
					t.Fatalf("POST /note: %d %s", r.Status, r.Body)
				}
			}
			httpCalls, httpBy := redisCommands(t, rs)
			t.Logf("Redis commands: %.2f per seed %v; %.2f per MCP call %v; %.2f per HTTP call %v",
				float64(seeds)/n, seedBy, float64(mcpCalls)/n, mcpBy, float64(httpCalls)/n, httpBy)
			if seeds > 4*n {
				t.Errorf("a seed costs %.2f Redis commands, want at most 4: %v", float64(seeds)/n, seedBy)
			}
			if mcpCalls > maxMCP*n {
				t.Errorf("an MCP tool call costs %.2f Redis commands, want at most %d: %v", float64(mcpCalls)/n, maxMCP, mcpBy)
			}
			if httpCalls > 3*n {
				t.Errorf("an HTTP call with the cookie costs %.2f Redis commands, want at most 3: %v", float64(httpCalls)/n, httpBy)
			}
		})
	}
}

// TestRedisKeysExpire: with the default config (no mcp.session_idle_ttl),
// every key the store writes has an expiry, of at most the default idle
// TTL: a rollout's session, a session a handler saved in for a client
// without a cookie, and what an ended rollout leaves.
func TestRedisKeysExpire(t *testing.T) {
	rs := startRedis(t)
	s := redisNotebook(t, rs, nil)
	rollout := s.newClient()
	_, meta := rollout.seedSession(`{}`)
	rollout.post("/note", `{"note":"http"}`)
	s.cookieless().rawMCP(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","arguments":{"note":"mcp"}}}`, raw{header: []string{tokenHeader, meta.Headers[tokenHeader]}})
	s.cookieless().post("/note", `{"note":"anonymous"}`)
	ended := s.newClient()
	ended.seedSession(`{}`)
	if r := ended.post("/verify", `{"expected":[]}`); r.Status != http.StatusOK {
		t.Fatalf("/verify: %d %s", r.Status, r.Body)
	}
	ctx := context.Background()
	keys, err := rs.Client.Keys(ctx, "*").Result()
	if err != nil || len(keys) < 3 {
		t.Fatalf("KEYS *: %v, %v; want the keys of 3 sessions", keys, err)
	}
	for _, k := range keys {
		ttl, err := rs.Client.PTTL(ctx, k).Result()
		if err != nil || ttl <= 0 || ttl > time.Hour {
			t.Errorf("key %s: TTL %v (%v); want an expiry, at most the default idle TTL (1h)", k, ttl, err)
		}
	}
}

// TestRedisEvictionFlood: a flood of anonymous requests writes nothing, so
// that Redis at its maxmemory evicts nothing, whatever its policy: a live
// rollout's next call is served, and a new seed gets its token.
func TestRedisEvictionFlood(t *testing.T) {
	for _, policy := range []string{"allkeys-lru", "volatile-lru", "noeviction"} {
		t.Run(policy, func(t *testing.T) {
			rs := startRedis(t)
			s := redisNotebook(t, rs, nil)
			live := s.newClient()
			_, meta := live.seedSession(`{}`)
			tok := meta.Headers[tokenHeader]
			ctx := context.Background()
			used := redisInfoField(t, rs, "memory", "used_memory")
			if err := rs.Client.ConfigSet(ctx, "maxmemory", strconv.Itoa(used+256<<10)).Err(); err != nil {
				t.Fatal(err)
			}
			if err := rs.Client.ConfigSet(ctx, "maxmemory-policy", policy).Err(); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for w := range 4 {
				wg.Go(func() {
					c := s.cookieless()
					for i := w; i < 12000; i += 4 {
						if r := c.send(http.MethodGet, "/flood/"+strconv.Itoa(i), ""); r.Status != http.StatusNotFound {
							t.Errorf("GET /flood/%d: %d %s", i, r.Status, r.Body)
							return
						}
					}
				})
			}
			wg.Wait()
			r := s.cookieless().rawMCP(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","arguments":{"note":"after"}}}`, raw{header: []string{tokenHeader, tok}})
			if r.Status != http.StatusOK || bytes.Contains(r.Body, []byte(`"isError":true`)) {
				t.Errorf("the live rollout's call after the flood: %d %s", r.Status, r.Body)
			}
			if r, meta := s.newClient().seedSession(`{}`); meta.Headers[tokenHeader] == "" {
				t.Errorf("a seed after the flood: %d %s", r.Status, r.Body)
			}
			if n := redisInfoField(t, rs, "stats", "evicted_keys"); n != 0 {
				t.Errorf("the flood caused %d evictions", n)
			}
		})
	}
}

// redisInfoField returns a numeric field of a section of rs's INFO.
func redisInfoField(t testing.TB, rs *redisServer, section, field string) int {
	t.Helper()
	info, err := rs.Client.Info(context.Background(), section).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("INFO %s: %s: %q", section, field, v)
			}
			return n
		}
	}
	t.Fatalf("INFO %s has no %s", section, field)
	return 0
}

// storeDownText is the body of every answer to a request that the session
// store, having failed, cannot serve.
const storeDownText = "mcpdoor: the session store is unavailable; retry later"

// TestRedisDownGenericErrors: with Redis down, a request that needs the
// session store gets 503 with a generic text, on both doors and on
// /seed_session; why it failed (the dial error) goes to the log alone.
func TestRedisDownGenericErrors(t *testing.T) {
	rs := startRedis(t)
	var log lockedBuffer
	s := redisNotebook(t, rs, func(cfg *autoexpose.Config) { cfg.Logger = slog.New(slog.NewTextHandler(&log, nil)) })
	rollout := s.newClient()
	_, meta := rollout.seedSession(`{}`)
	tok := meta.Headers[tokenHeader]
	rs.Stop()
	for name, r := range map[string]httpResponse{
		"POST /note with the cookie":  rollout.post("/note", `{"note":"x"}`),
		"/seed_session with a cookie": rollout.post("/seed_session", `{}`),
		"/seed_session without":       s.cookieless().post("/seed_session", `{}`),
	} {
		if r.Status != http.StatusServiceUnavailable || string(r.Body) != storeDownText+"\n" {
			t.Errorf("%s: %d %q; want 503 %q", name, r.Status, r.Body, storeDownText)
		}
	}
	r := s.cookieless().rawMCP(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"note","arguments":{"note":"x"}}}`, raw{header: []string{tokenHeader, tok}})
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"` + storeDownText + `"}}`
	if r.Status != http.StatusServiceUnavailable || string(r.Body) != want {
		t.Errorf("tools/call with the token: %d %s; want 503 %s", r.Status, r.Body, want)
	}
	if !strings.Contains(log.String(), "connection refused") {
		t.Errorf("the log does not say why the store failed:\n%s", log.String())
	}
}

// TestMemoryStoreCap: the memory store holds at most
// mcp.max_stored_sessions live sessions; a seed past them gets 503 with
// Retry-After and a text naming the key, and one is taken again once a
// rollout has ended.
func TestMemoryStoreCap(t *testing.T) {
	cfg, err := autoexpose.ParseConfig([]byte("name: notebook\nexpose_tools_over_mcp: true\nmcp:\n  max_stored_sessions: 3\n  session_secret: \"" + testSecret + "\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	s := serve(t, newStoredNotebookDoor(t, cfg))
	var seeded []*server
	for range 3 {
		c := s.newClient()
		if r, meta := c.seedSession(`{}`); meta.Headers[tokenHeader] == "" {
			t.Fatalf("seed: %d %s", r.Status, r.Body)
		}
		seeded = append(seeded, c)
	}
	const full = "mcpdoor: session store full: 3 sessions are live, the most mcp.max_stored_sessions allows; retry once a rollout ends, or on another replica\n"
	r := s.newClient().post("/seed_session", `{}`)
	if r.Status != http.StatusServiceUnavailable || string(r.Body) != full || r.Header.Get("Retry-After") != "1" {
		t.Errorf("a seed past the cap: %d %q, Retry-After %q; want 503 %q, Retry-After 1", r.Status, r.Body, r.Header.Get("Retry-After"), full)
	}
	if r := seeded[0].post("/verify", `{"expected":[]}`); r.Status != http.StatusOK {
		t.Fatalf("/verify: %d %s", r.Status, r.Body)
	}
	if r, meta := s.newClient().seedSession(`{}`); meta.Headers[tokenHeader] == "" {
		t.Errorf("a seed once a rollout has ended: %d %s", r.Status, r.Body)
	}
}

// TestMaxStoredSessionsBesideStore: mcp.max_stored_sessions caps the
// memory store, and beside a Config.Store it is refused, with the fix.
func TestMaxStoredSessionsBesideStore(t *testing.T) {
	cfg, err := autoexpose.ParseConfig([]byte("name: notebook\nexpose_tools_over_mcp: true\nmcp:\n  max_stored_sessions: 3\n  session_secret: \"" + testSecret + "\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialed
	defer client.Close()
	cfg.Store = redisstore.New(client, "notebook")
	const want = "mcpdoor: config: mcp.max_stored_sessions caps the in-memory session store, and Config.Store is set: " +
		"fix: remove mcp.max_stored_sessions (bound a Redis store with its maxmemory and a volatile-* eviction policy, docs/replicas.md)"
	if _, err := cfg.UseSessions(); err == nil || err.Error() != want {
		t.Errorf("UseSessions: %v, want %q", err, want)
	}
	const negative = "mcpdoor: config: mcp.max_stored_sessions: -1 is negative; leave it out for the default"
	if _, err := autoexpose.ParseConfig([]byte("name: n\nexpose_tools_over_mcp: true\nmcp:\n  max_stored_sessions: -1\n")); err == nil || err.Error() != negative {
		t.Errorf("a negative cap: %v, want %q", err, negative)
	}
}
