package autoexpose

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

func TestParseConfig(t *testing.T) {
	cfg, err := ParseConfig([]byte(`
name: example_mcp_weather
expose_tools_over_mcp: true
mcp:
  path: /mcp
  include: [get_weather]
  exclude: [end_session]
  dispatch: strict
  transparent_middleware: [example.com/app/mw.Trace]
  forward_headers: [authorization, X-Tenant]
  session_secret: ["a new secret that is at least 32 bytes", "an old secret that is at least 32 bytes"]
  stateful: true
  exclusive: true
  idle_timeout: 90s
  allowed_origins: [https://app.example.com]
  allowed_hosts: [weather.internal]
  rate_limit: {per_session: 2.5, burst: 5}
  call_timeout: 30s
  max_body_bytes: 1048576
  max_body_memory: 536870912
  body_timeout: 20s
  degrade: http-only
  catalog: true
  annotations: {get_weather: {read_only: true, title: Weather}}
  unused_session_timeout: 10s
  max_batch: 8
  max_concurrent_calls: 4
  rollout:
    disable: true
    allow_tokenless: true
    token_header: X-Rollout-Token
    token_ttl: 1h
    max_seed_bytes: 67108864
    max_verify_bytes: 134217728
`))
	if err != nil {
		t.Fatal(err)
	}
	want := MCPConfig{
		Path:                  "/mcp",
		Include:               []string{"get_weather"},
		Exclude:               []string{"end_session"},
		Dispatch:              "strict",
		TransparentMiddleware: []string{"example.com/app/mw.Trace"},
		ForwardHeaders:        []string{"authorization", "X-Tenant"},
		SessionSecret:         []string{"a new secret that is at least 32 bytes", "an old secret that is at least 32 bytes"},
		Stateful:              true,
		Exclusive:             true,
		IdleTimeout:           90 * time.Second,
		AllowedOrigins:        []string{"https://app.example.com"},
		AllowedHosts:          []string{"weather.internal"},
		RateLimit:             RateLimit{PerSession: 2.5, Burst: 5},
		CallTimeout:           30 * time.Second,
		MaxBodyBytes:          1 << 20,
		MaxBodyMemory:         512 << 20,
		BodyTimeout:           20 * time.Second,
		Degrade:               "http-only",
		Catalog:               true,
		Annotations:           map[string]Annotations{"get_weather": {ReadOnly: ptr(true), Title: "Weather"}},
		UnusedSessionTimeout:  10 * time.Second,
		MaxBatch:              8,
		MaxConcurrentCalls:    4,
		Rollout: Rollout{
			Disable:        true,
			AllowTokenless: true,
			TokenHeader:    "X-Rollout-Token",
			TokenTTL:       time.Hour,
			MaxSeedBytes:   64 << 20,
			MaxVerifyBytes: 128 << 20,
		},
	}
	if cfg.Name != "example_mcp_weather" || !cfg.ExposeToolsOverMCP {
		t.Errorf("name %q, expose_tools_over_mcp %v", cfg.Name, cfg.ExposeToolsOverMCP)
	}
	if diff := cmp.Diff(want, cfg.MCP); diff != "" {
		t.Errorf("mcp (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Authorization", "X-Tenant"}, cfg.MCP.forwardHeaders()); diff != "" {
		t.Errorf("forward headers, canonicalized (-want +got):\n%s", diff)
	}
}

func TestConfigDefaults(t *testing.T) {
	for _, doc := range []string{"", "mcp: {idle_timeout: 0}", "name: x\n", "name: x\nexpose_tools_over_mcp: true\nmcp:\n"} {
		cfg, err := ParseConfig([]byte(doc))
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		m := &cfg.MCP
		if m.path() != "/mcp" || m.maxBodyBytes() != 4<<20 || m.idleTimeout() != 600*time.Second || m.stateful() || !reflect.ValueOf(m.Rollout).IsZero() {
			t.Errorf("%q: defaults wrong: %+v", doc, m)
		}
		if diff := cmp.Diff([]string{"Authorization", "User-Agent"}, m.forwardHeaders()); diff != "" {
			t.Errorf("%q: forward headers (-want +got):\n%s", doc, diff)
		}
		if m.maxSessions() != 1000 || m.unusedSessionTimeout() != 30*time.Second || m.maxBatch() != 64 || m.maxConcurrentCalls() != 16 {
			t.Errorf("%q: limits' defaults wrong: %d sessions, %v unused, %d a batch, %d calls at once",
				doc, m.maxSessions(), m.unusedSessionTimeout(), m.maxBatch(), m.maxConcurrentCalls())
		}
		if m.maxBodyMemory() != 2<<30 || m.bodyTimeout() != 60*time.Second {
			t.Errorf("%q: body defaults wrong: %d bytes of body memory, %v to come", doc, m.maxBodyMemory(), m.bodyTimeout())
		}
	}
	cfg, _ := ParseConfig([]byte("mcp: {forward_headers: []}"))
	if got := cfg.MCP.forwardHeaders(); len(got) != 0 {
		t.Errorf("an explicit empty forward_headers forwards %q", got)
	}
}

// TestConfigErrors: each bad document is refused with an error that names
// the key.
func TestConfigErrors(t *testing.T) {
	on := "name: x\nexpose_tools_over_mcp: true\n"
	cases := []struct{ doc, want string }{
		{"nmae: x", "line 1: unknown key nmae"},
		{"mcp:\n  idle_timout: 5s", "line 2: unknown key mcp.idle_timout"},
		{"mcp:\n  rate_limit: {per_sesion: 1}", "line 2: unknown key mcp.rate_limit.per_sesion"},
		{"expose_tools_over_mcp: yes please", "line 1: expose_tools_over_mcp: "},
		{"mcp:\n  idle_timeout: 600", "line 2: mcp.idle_timeout: 600 has no unit; write a duration such as 600s"},
		{"mcp:\n  idle_timeout: soon", "mcpdoor: config: line 2: mcp.idle_timeout: cannot unmarshal !!str `soon` into time.Duration"},
		{"mcp:\n  rollout: false", "line 2: mcp.rollout must be a mapping"},
		{"mcp:\n  tools: [a]", "line 2: unknown key mcp.tools"},
		{"mcp:\n  rollout: {require_token: false}", "line 2: unknown key mcp.rollout.require_token"},
		{"mcp:\n  max_body_bytes: lots", "line 2: mcp.max_body_bytes: "},
		{"mcp:\n  session_secret: {a: b}", "line 2: mcp.session_secret: want a string or a list of strings"},
		{"mcp: [1, 2]", "line 1: mcp must be a mapping"},
		{"[1, 2]", "line 1: the document must be a mapping"},
		{"expose_tools_over_mcp: true", "name: is required when expose_tools_over_mcp is true"},
		{"name: my server\nexpose_tools_over_mcp: true", `name: "my server" does not match ^[A-Za-z0-9_-]+$`},
		{on + "mcp: {dispatch: sometimes}", `mcp.dispatch: dispatch "sometimes" is not one of auto, direct, replay, strict`},
		{on + "mcp: {path: mcp}", `mcp.path: "mcp" must start with / and not end with /`},
		{on + "mcp: {path: /mcp/}", `mcp.path: "/mcp/" must start with / and not end with /`},
		{on + "mcp: {forward_headers: [\"bad header\"]}", `mcp.forward_headers: "bad header" is not a header name`},
		{on + "mcp: {session_secret: abcdefghijklmnopqrstuvwxyz0123456789, session_secret_env: X}", "mcp.session_secret: set session_secret or session_secret_env, not both"},
		{on + "mcp: {idle_timeout: -1s}", "mcp.idle_timeout: -1s is negative"},
		{on + "mcp: {rollout: {token_ttl: 500ms}}", "mcp.rollout.token_ttl: 500ms is under a second"},
		{on + "mcp: {rollout: {token_header: \"a b\"}}", `mcp.rollout.token_header: "a b" is not a header name`},
		{on + "mcp: {max_body_bytes: -1}", "mcp.max_body_bytes: -1 is negative"},
		{on + "mcp: {rollout: {max_seed_bytes: -1}}", "mcp.rollout.max_seed_bytes: -1 is negative"},
		{on + "mcp: {rollout: {max_verify_bytes: -1}}", "mcp.rollout.max_verify_bytes: -1 is negative"},
		{on + "mcp: {max_body_memory: -1}", "mcp.max_body_memory: -1 is negative"},
		{on + "mcp: {body_timeout: -1s}", "mcp.body_timeout: -1s is negative"},
		{on + "mcp: {max_body_memory: 1073741824}", "mcp.max_body_memory: 1073741824 bytes cannot hold one body of mcp.rollout.max_verify_bytes (1073741824 bytes), " +
			"which may take 1610616832 bytes to read; raise mcp.max_body_memory to at least 1610616832, or lower mcp.rollout.max_verify_bytes"},
		{on + "mcp: {max_body_memory: 4194304}", "mcp.max_body_memory: 4194304 bytes cannot hold one body of mcp.max_body_bytes (4194304 bytes), " +
			"which may take 6295552 bytes to read; raise mcp.max_body_memory to at least 6295552, or lower mcp.max_body_bytes"},
		{"mcp:\n  rollout:\n    max_verify_bytes: 64MiB", "line 3: mcp.rollout.max_verify_bytes: "},
		{on + "mcp: {rate_limit: {per_session: -1}}", "mcp.rate_limit.per_session: -1 is negative"},
		{on + "mcp: {rate_limit: {per_session: .inf}}", "mcp.rate_limit.per_session: +Inf is not a number of calls per second; 0 turns the limit off"},
		{on + "mcp: {rate_limit: {burst: 5}}", "mcp.rate_limit.burst: is set but per_session is not; set per_session (calls per second) to limit calls"},
		{on + "mcp: {rate_limit: {per_session: 1, by: ip}}", `mcp.rate_limit.by: "ip" is not session, client or server`},
		{on + "mcp: {rate_limit: {by: client}}", "mcp.rate_limit.by: is set but per_session is not; set per_session (calls per second) to limit calls"},
		{on + "mcp: {degrade: maybe}", `mcp.degrade: "maybe" is not fail or http-only`},
		{on + "mcp: {max_batch: -1}", "mcp.max_batch: -1 is negative; leave it out for the default"},
		{on + "mcp: {max_concurrent_calls: -2}", "mcp.max_concurrent_calls: -2 is negative; leave it out for the default"},
		{on + "mcp: {stateful: true, max_sessions: -1}", "mcp.max_sessions: -1 is negative; leave it out for the default"},
		{on + "mcp: {max_sessions: 10}", "mcp.max_sessions: does nothing on a stateless endpoint, which keeps no session; remove it, or set mcp.stateful"},
		{on + "mcp: {exclusive: true, max_sessions: 10}", "mcp.max_sessions: does nothing on an exclusive endpoint, which admits one session; remove it"},
		{on + "mcp: {unused_session_timeout: 5s}", "mcp.unused_session_timeout: does nothing on a stateless endpoint, which keeps no session; remove it, or set mcp.stateful"},
		{on + "mcp: {stateful: true, unused_session_timeout: -5s}", "mcp.unused_session_timeout: -5s is negative"},
		{on + "mcp: {stateful: true, disable_fast_path: true}", "mcp.disable_fast_path: does nothing on a stateful endpoint (mcp.stateful or mcp.exclusive), which has no fast path; remove it"},
	}
	for _, c := range cases {
		t.Run(c.doc, func(t *testing.T) {
			_, err := ParseConfig([]byte(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestConfigREST: the mcp.rest block turns the REST reading on, even
// empty; its methods are upper-cased by Validate's reader, its keys
// checked.
func TestConfigREST(t *testing.T) {
	on := "name: x\nexpose_tools_over_mcp: true\n"
	for _, tc := range []struct {
		doc  string
		want *REST
	}{
		{on, nil},
		{on + "mcp:\n  rest: {}", &REST{}},
		{on + "mcp:\n  rest:", &REST{}},
		{on + "mcp:\n  rest: {methods: [post, GET], names: {\"GET /notes/{id}\": get_note}}",
			&REST{Methods: []string{"post", "GET"}, Names: map[string]string{"GET /notes/{id}": "get_note"}}},
	} {
		cfg, err := ParseConfig([]byte(tc.doc))
		if err != nil {
			t.Errorf("%q: %v", tc.doc, err)
			continue
		}
		if !reflect.DeepEqual(cfg.MCP.REST, tc.want) {
			t.Errorf("%q: REST = %+v, want %+v", tc.doc, cfg.MCP.REST, tc.want)
		}
	}
	for _, tc := range []struct{ doc, want string }{
		{"mcp:\n  rest: {method: [GET]}", "mcpdoor: config: line 2: unknown key mcp.rest.method"},
		{"mcp:\n  rest: [GET]", "mcpdoor: config: line 2: mcp.rest must be a mapping"},
		{on + "mcp:\n  rest: {methods: [GET, HEAD]}", `mcpdoor: config: mcp.rest.methods: "HEAD" is not one of POST, PUT, PATCH, DELETE, GET`},
		{on + "mcp:\n  rest: {names: {/notes: list_notes}}", `mcpdoor: config: mcp.rest.names: "/notes" is not a method, a space and a route pattern, such as "GET /notes/{id}"`},
		{on + "mcp:\n  rest: {names: {\"FETCH /notes\": list_notes}}", `mcpdoor: config: mcp.rest.names: "FETCH /notes": FETCH is not one of POST, PUT, PATCH, DELETE, GET`},
		{on + "mcp:\n  rest: {names: {\"GET notes\": list_notes}}", `mcpdoor: config: mcp.rest.names: "GET notes" is not a method, a space and a route pattern, such as "GET /notes/{id}"`},
	} {
		_, err := ParseConfig([]byte(tc.doc))
		if got := fmt.Sprint(err); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.doc, got, tc.want)
		}
	}
}

// TestConfigOuter: Config.Outer makes every call replay, which
// mcp.dispatch direct and strict contradict.
func TestConfigOuter(t *testing.T) {
	for _, c := range []struct{ dispatch, want string }{
		{"", ""},
		{"auto", ""},
		{"replay", ""},
		{"direct", "mcpdoor: config: mcp.dispatch: direct cannot go with Config.Outer, through which every call replays; use auto or replay"},
		{"strict", "mcpdoor: config: mcp.dispatch: strict cannot go with Config.Outer, through which every call replays; use auto or replay"},
	} {
		cfg := enabled(MCPConfig{Dispatch: Dispatch(c.dispatch)})
		cfg.Outer = func(h http.Handler) http.Handler { return h }
		err := cfg.Validate()
		if got := fmt.Sprint(err); err == nil && c.want != "" || err != nil && got != c.want {
			t.Errorf("dispatch %q: got %v, want %q", c.dispatch, err, c.want)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "server.yaml")
	os.WriteFile(path, []byte("name: w\nexpose_tools_over_mcp: true\nmcp: {bogus: 1}\n"), 0o600)
	_, err := LoadConfig(path)
	if want := "mcpdoor: " + path + ": config: line 3: unknown key mcp.bogus"; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	if _, err := LoadConfig(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Fatal("a missing file loaded")
	}
}

// TestConfigInline: Config embeds inline in a server's own config struct.
func TestConfigInline(t *testing.T) {
	var sc struct {
		Config `yaml:",inline"`
		Port   int `yaml:"port"`
	}
	err := yaml.Unmarshal([]byte("name: w\nexpose_tools_over_mcp: true\nport: 8080\nmcp: {idle_timeout: 5m}\n"), &sc)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Port != 8080 || sc.Name != "w" || sc.MCP.IdleTimeout != 5*time.Minute {
		t.Fatalf("got %+v", sc)
	}
	if err := sc.Config.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestSessionSecretEnv(t *testing.T) {
	t.Setenv("MCPDOOR_TEST_SECRET", "a new secret that is at least 32 bytes,an old secret that is at least 32 bytes")
	cfg := Config{MCP: MCPConfig{SessionSecretEnv: "MCPDOOR_TEST_SECRET"}}
	if _, err := cfg.UseSessions(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCPDOOR_TEST_SECRET", "short")
	cfg = Config{MCP: MCPConfig{SessionSecretEnv: "MCPDOOR_TEST_SECRET"}}
	if _, err := cfg.UseSessions(); err == nil || err.Error() != "mcpdoor: config: mcp.session_secret_env: secret 1 of 1: secret is shorter than 32 bytes (it has 5)" {
		t.Fatalf("got %v", err)
	}
	cfg = Config{MCP: MCPConfig{SessionSecretEnv: "MCPDOOR_TEST_UNSET"}}
	if _, err := cfg.UseSessions(); err == nil || err.Error() != "mcpdoor: config: mcp.session_secret_env: environment variable MCPDOOR_TEST_UNSET is not set" {
		t.Fatalf("got %v", err)
	}
}

// TestConfigValidateOrder: Validate reports the errors of a config in one
// order, however many times it runs: that of the config's keys, and the
// Declared and CatchAll names sorted.
func TestConfigValidateOrder(t *testing.T) {
	object := func(typ string) Declaration { return Declaration{Input: &jsonschema.Schema{Type: typ}} }
	cfg := enabled(MCPConfig{
		IdleTimeout: -1, CallTimeout: -1, UnusedSessionTimeout: -1, SessionIdleTTL: -1, BodyTimeout: -1,
		MaxSessions: -1, MaxBatch: -1, MaxConcurrentCalls: -1, MaxStoredSessions: -1,
		Stateful: true,
	})
	cfg.Declared = map[string]Declaration{"d": object("string"), "b": object("string"), "a": object("number"), "c": object("integer")}
	cfg.CatchAll = map[string]Declaration{"y": object("string"), "x": object("string"), "z": object("array")}
	first := cfg.Validate()
	if first == nil {
		t.Fatal("Validate found no error")
	}
	lines := strings.Split(first.Error(), "\n")
	var keys []string
	for _, l := range lines {
		key, _, _ := strings.Cut(strings.TrimPrefix(l, "mcpdoor: config: "), ":")
		keys = append(keys, key)
	}
	want := []string{
		"mcp.idle_timeout", "mcp.call_timeout", "mcp.unused_session_timeout", "mcp.session_idle_ttl", "mcp.body_timeout",
		"mcp.max_sessions", "mcp.max_batch", "mcp.max_concurrent_calls", "mcp.max_stored_sessions",
		"Config.Declared[a].Input", "Config.Declared[b].Input", "Config.Declared[c].Input", "Config.Declared[d].Input",
		"Config.CatchAll[x].Input", "Config.CatchAll[y].Input", "Config.CatchAll[z].Input",
	}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("the keys of Validate's errors (-want +got):\n%s", diff)
	}
	for i := range 50 {
		if err := cfg.Validate(); err.Error() != first.Error() {
			t.Fatalf("Validate's run %d reported\n%v\nwhere its first reported\n%v", i+2, err, first)
		}
	}
}
