package autoexpose_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/internal/leakcheck"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/token"
)

// Every setup mistake a user can make with mcpdoor ends in an error from
// Install (Wrap, ServeStdio) or a warning in the log, each naming the key or
// route and the fix. The tests here make each mistake as a user would, with
// a YAML config and a router, and assert the exact text the user reads.

// mistakeSecret keeps the warning of a random per-process secret out of the
// logs the tests compare.
const mistakeSecret = "a secret for the mistakes tests, 32 bytes or more"

// logTo returns a logger writing text lines to buf, without their time.
func logTo(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
}

// warnings returns the WARN and ERROR lines of logs.
func warnings(logs string) []string {
	var out []string
	for line := range strings.Lines(logs) {
		if strings.HasPrefix(line, "level=WARN ") || strings.HasPrefix(line, "level=ERROR ") {
			out = append(out, strings.TrimSuffix(line, "\n"))
		}
	}
	return out
}

// parse reads a YAML config as a user's server does, with the logger, and
// with the test secret when the config is on.
func parse(t *testing.T, yaml string, logs *bytes.Buffer) autoexpose.Config {
	t.Helper()
	cfg, err := autoexpose.ParseConfig([]byte(yaml))
	if err != nil {
		t.Fatalf("ParseConfig: %v", err)
	}
	cfg.Logger = logTo(logs)
	if cfg.ExposeToolsOverMCP && cfg.MCP.SessionSecret == nil {
		cfg.MCP.SessionSecret = []string{mistakeSecret}
	}
	return cfg
}

func answer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }
}

// weatherRoutes is a plain API with two tools.
func weatherRoutes(r chi.Router) {
	r.Post("/get_weather", answer(`{"weather":"sunny"}`))
	r.Post("/forecast", answer(`{"forecast":"rain"}`))
}

// rolloutRoutes adds NeMo Gym's rollout routes.
func rolloutRoutes(r chi.Router) {
	r.Post("/seed_session", answer("{}"))
	r.Post("/verify", answer("{}"))
}

// authenticate stands for a middleware of the user's own.
func authenticate(next http.Handler) http.Handler { return next }

// router returns a new chi router with the given routes.
func router(routes ...func(r chi.Router)) func() chi.Router {
	return func() chi.Router {
		r := chi.NewRouter()
		for _, add := range routes {
			add(r)
		}
		return r
	}
}

// toolNames returns the names of d's tools, space separated.
func toolNames(d *autoexpose.Door) string {
	var names []string
	for _, row := range d.Report() {
		if row.Tool != "" && row.Verdict != "excluded" {
			names = append(names, row.Tool)
		}
	}
	return strings.Join(names, " ")
}

// timeoutRouter puts chi's Timeout in front of every route, and so of the
// MCP endpoint, from a named function: the compiler names its closure
// after the caller it inlines the constructor into, not after Timeout.
func timeoutRouter() chi.Router {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer, middleware.Timeout(time.Minute), authenticate)
	weatherRoutes(r)
	return r
}

// A mistake is a config and a router, and what the user is told about them.
type mistake struct {
	name   string
	yaml   string
	router func() chi.Router
	// config sets what only Go can (Config.Declared, Config.CatchAll).
	config func(cfg *autoexpose.Config)
	// err is Install's exact error ("" for none); stdioErr is ServeStdio's
	// when it differs.
	err, stdioErr string
	// warns are the exact WARN and ERROR lines of Install's log.
	warns []string
	// tools are the tools served when Install succeeds, space separated.
	tools string
}

const on = "name: weather\nexpose_tools_over_mcp: true\n"

// timeoutWarning is the warning of a router whose own middlewares include
// chi's Timeout.
const timeoutWarning = `level=WARN msg="mcpdoor: the router's own middlewares (its Use) also run in front of the MCP endpoint, at /mcp; ` +
	`one that ends a request early (a timeout, a throttle, a body limit) cuts or refuses MCP requests, and one that checks auth asks MCP clients for it too: ` +
	`if that is not meant, move the middleware into r.Group or r.With around the routes it is for`

var mistakes = []mistake{
	{
		name:   "an mcp block without expose_tools_over_mcp",
		yaml:   "name: weather\nmcp:\n  exclude: [forecast]\n",
		router: router(weatherRoutes),
		warns: []string{`level=WARN msg="mcpdoor: the config sets mcp settings, but expose_tools_over_mcp is not true, ` +
			`so nothing is served over MCP; set expose_tools_over_mcp: true to serve the tools"`},
	},
	{
		name:   "expose_tools_over_mcp false with Go settings",
		yaml:   "name: weather\nexpose_tools_over_mcp: false\n",
		router: router(weatherRoutes),
		config: func(cfg *autoexpose.Config) {
			cfg.Declared = map[string]autoexpose.Declaration{"get_weather": {Description: "Weather."}}
		},
		warns: []string{`level=WARN msg="mcpdoor: the config sets mcp settings, but expose_tools_over_mcp is not true, ` +
			`so nothing is served over MCP; set expose_tools_over_mcp: true to serve the tools"`},
	},
	{
		name:   "a config that sets nothing but the name stays quiet",
		yaml:   "name: weather\n",
		router: router(weatherRoutes),
	},
	{
		name:   "Install before the routes",
		yaml:   on,
		router: router(),
		warns:  []string{`level=WARN msg="mcpdoor: no tools to serve: the router has no routes yet; call Install after registering them"`},
	},
	{
		name: "routes, but none a tool",
		yaml: on,
		router: router(func(r chi.Router) {
			r.Get("/health", answer("ok"))
			r.Put("/items/{id}", answer("{}"))
		}),
		warns: []string{`level=WARN msg="mcpdoor: no tools to serve: none of the router's routes is a tool, a POST route at /<name>; ` +
			`the startup report lists each POST route it has and why it is not one"`},
	},
	{
		name:   "mcp.exclude keeps every tool off MCP",
		yaml:   on + "mcp:\n  exclude: [get_weather, forecast]\n",
		router: router(weatherRoutes),
		warns:  []string{`level=WARN msg="mcpdoor: no tools to serve: mcp.exclude keeps every tool off MCP; the startup report lists them"`},
	},
	{
		name:   "mcp.include and mcp.exclude keep every tool off MCP",
		yaml:   on + "mcp:\n  include: [forecast]\n  exclude: [forecast]\n",
		router: router(weatherRoutes),
		warns:  []string{`level=WARN msg="mcpdoor: no tools to serve: mcp.exclude and mcp.include keep every tool off MCP; the startup report lists them"`},
	},
	{
		name:   "a typo in mcp.exclude",
		yaml:   on + "mcp:\n  exclude: [get_wether]\n",
		router: router(weatherRoutes),
		err:    `mcpdoor: mcp.exclude names "get_wether", which is no tool of this server (did you mean "get_weather"?); fix: correct the name, or remove the entry`,
	},
	{
		name:   "a typo in mcp.include",
		yaml:   on + "mcp:\n  include: [forcast]\n",
		router: router(weatherRoutes),
		err:    `mcpdoor: mcp.include names "forcast", which is no tool of this server (did you mean "forecast"?); fix: correct the name, or remove the entry`,
	},
	{
		name:   "mcp.include naming nothing like a tool",
		yaml:   on + "mcp:\n  include: [tools]\n",
		router: router(weatherRoutes),
		err: `mcpdoor: mcp.include names "tools", which is no tool of this server (its tools are "forecast" and "get_weather"); ` +
			`fix: correct the name, or remove the entry`,
	},
	{
		name:   "a typo in mcp.annotations",
		yaml:   on + "mcp:\n  annotations:\n    get_wether: {read_only: true}\n",
		router: router(weatherRoutes),
		err:    `mcpdoor: mcp.annotations names "get_wether", which is no tool of this server (did you mean "get_weather"?); fix: correct the name, or remove the entry`,
	},
	{
		name:   "Config.Declared for a route that does not exist",
		yaml:   on,
		router: router(weatherRoutes),
		config: func(cfg *autoexpose.Config) {
			cfg.Declared = map[string]autoexpose.Declaration{"get_wether": {}, "lookup": {}}
		},
		err: `mcpdoor: Config.Declared names "get_wether", which is no tool of this server (did you mean "get_weather"?); ` +
			`fix: name a tool the router serves as POST /<name>, or remove the entry` + "\n" +
			`mcpdoor: Config.Declared names "lookup", which is no tool of this server (its tool routes are "forecast" and "get_weather"); ` +
			`fix: name a tool the router serves as POST /<name>, or remove the entry`,
	},
	{
		name:   "Config.Declared for a catch-all tool",
		yaml:   on,
		router: router(weatherRoutes, func(r chi.Router) { r.Post("/{tool}", answer("{}")) }),
		config: func(cfg *autoexpose.Config) {
			cfg.CatchAll = map[string]autoexpose.Declaration{"lookup": {Description: "Looks up."}}
			cfg.Declared = map[string]autoexpose.Declaration{"lookup": {Description: "Looks up."}}
		},
		err: `mcpdoor: Config.Declared names "lookup", a tool of the catch-all dispatcher POST /{tool}, not a route of its own; ` +
			`fix: describe it in Config.CatchAll alone`,
	},
	{
		name:   "Config.CatchAll without a catch-all route",
		yaml:   on,
		router: router(weatherRoutes),
		config: func(cfg *autoexpose.Config) {
			cfg.CatchAll = map[string]autoexpose.Declaration{"lookup": {}}
		},
		err: `mcpdoor: Config.CatchAll declares "lookup", but the router has no catch-all dispatcher (a POST /{tool} route) to serve it; ` +
			`fix: add the dispatcher route, or serve each tool at a route of its own (POST /<name>) and describe it in Config.Declared`,
	},
	{
		name:   "mcp.transparent_middleware by its short name",
		yaml:   on + "mcp:\n  transparent_middleware: [authenticate]\n",
		router: router(func(r chi.Router) { r.With(authenticate).Post("/get_weather", answer("{}")) }),
		warns: []string{`level=WARN msg="mcpdoor: mcp.transparent_middleware names a middleware no route has, ` +
			`so the entry does nothing; the startup report's reasons give each middleware by its full name" middleware=authenticate ` +
			`closest=github.com/mcpdoor/mcpdoor/autoexpose_test.authenticate`},
		tools: "get_weather",
	},
	{
		name:   "mcp.transparent_middleware naming a middleware no route has",
		yaml:   on + "mcp:\n  transparent_middleware: [example.com/auth.Check]\n",
		router: router(weatherRoutes),
		warns: []string{`level=WARN msg="mcpdoor: mcp.transparent_middleware names a middleware no route has, ` +
			`so the entry does nothing; the startup report's reasons give each middleware by its full name" middleware=example.com/auth.Check`},
		tools: "forecast get_weather",
	},
	{
		name:   "mcp.transparent_middleware by its full name stays quiet",
		yaml:   on + "mcp:\n  transparent_middleware: [github.com/mcpdoor/mcpdoor/autoexpose_test.authenticate]\n",
		router: router(func(r chi.Router) { r.With(authenticate).Post("/get_weather", answer("{}")) }),
		tools:  "get_weather",
	},
	{
		name: "middleware.Timeout on the router",
		yaml: on,
		router: router(func(r chi.Router) {
			r.Use(middleware.Timeout(time.Minute))
			weatherRoutes(r)
		}),
		warns: []string{timeoutWarning + `" middlewares=github.com/go-chi/chi/v5/middleware.Timeout.func1`},
		tools: "forecast get_weather",
	},
	{
		name:   "middleware.Timeout on the router of a stateful endpoint",
		yaml:   on + "mcp:\n  stateful: true\n",
		router: timeoutRouter,
		warns: []string{timeoutWarning + ` (middleware.Timeout ends every stateful session's stream when it fires)" ` +
			`middlewares="github.com/go-chi/chi/v5/middleware.Timeout.func1, github.com/mcpdoor/mcpdoor/autoexpose_test.authenticate"`},
		tools: "forecast get_weather",
	},
	{
		name:   "harmless middlewares on the router stay quiet",
		yaml:   on,
		config: func(cfg *autoexpose.Config) { doorSessions, _ = cfg.UseSessions() },
		router: router(func(r chi.Router) {
			r.Use(middleware.Recoverer, middleware.Logger, middleware.RequestID, doorSessions.Middleware)
			weatherRoutes(r)
		}),
		tools: "forecast get_weather",
	},
	{
		name: "a session middleware of another manager",
		yaml: on,
		router: router(func(r chi.Router) {
			keys, _ := token.NewKeys([]byte(mistakeSecret))
			r.Use(session.New(keys, nil).Middleware)
			weatherRoutes(r)
		}),
		err: "mcpdoor: the router's session middleware is of another session.Manager than the door's (one session.New made, or UseSessions on another copy of the Config): " +
			"the door would hold none of its sessions, and refuse their requests (421); fix: use the Middleware of the manager that UseSessions returns for the Config given to Install",
	},
	{
		name:   "mcp.rollout settings without the rollout's routes",
		yaml:   on + "mcp:\n  rollout: {token_ttl: 1h}\n",
		router: router(weatherRoutes),
		err: "mcpdoor: mcp.rollout is configured, but the router serves neither POST /seed_session nor POST /verify, the routes of NeMo Gym's rollout contract; " +
			"fix: add both routes, or remove the mcp.rollout settings",
	},
	{
		name:   "/seed_session without /verify",
		yaml:   on,
		router: router(weatherRoutes, func(r chi.Router) { r.Post("/seed_session", answer("{}")) }),
		err: "mcpdoor: the router serves POST /seed_session but not POST /verify, so NeMo Gym's rollout contract is half there " +
			"(POST /verify: its tool-call names are normalized for scoring); fix: add POST /verify, or set mcp.rollout.disable: true to serve POST /seed_session as a plain route",
	},
	{
		name:   "/verify without /seed_session",
		yaml:   on,
		router: router(weatherRoutes, func(r chi.Router) { r.Post("/verify", answer("{}")) }),
		err: "mcpdoor: the router serves POST /verify but not POST /seed_session, so NeMo Gym's rollout contract is half there " +
			"(POST /seed_session: its response carries the MCP session token to the agent); fix: add POST /seed_session, or set mcp.rollout.disable: true to serve POST /verify as a plain route",
	},
	{
		name:   "the rollout's routes and mcp.rollout.disable",
		yaml:   on + "mcp:\n  rollout: {disable: true}\n",
		router: router(weatherRoutes, rolloutRoutes),
		tools:  "forecast get_weather seed_session verify",
	},
}

// doorSessions is the session manager of a mistake's config, which its
// router's middleware is of.
var doorSessions *session.Manager

// TestMistakes makes each mistake through Install, and asserts the exact
// error or warnings; those that are errors it makes again through
// ServeStdio, which must refuse them alike.
func TestMistakes(t *testing.T) {
	for _, m := range mistakes {
		t.Run(m.name, func(t *testing.T) {
			var logs bytes.Buffer
			cfg := parse(t, m.yaml, &logs)
			if m.config != nil {
				m.config(&cfg)
			}
			r := m.router()
			before := len(r.Routes())
			d, err := autoexpose.Install(r, cfg)
			if got := errText(err); got != m.err {
				t.Errorf("Install error:\n  %s\nwant:\n  %s", got, m.err)
			}
			if got := warnings(logs.String()); !slices.Equal(got, m.warns) {
				t.Errorf("warnings:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(m.warns, "\n  "))
			}
			switch {
			case err != nil:
				if len(r.Routes()) != before {
					t.Error("a refused Install changed the router")
				}
			case toolNames(d) != m.tools:
				t.Errorf("tools %q, want %q", toolNames(d), m.tools)
			}
			if m.err == "" || !cfg.ExposeToolsOverMCP {
				return
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // should ServeStdio not refuse, it stops at once
			want := m.err
			if m.stdioErr != "" {
				want = m.stdioErr
			}
			if got := errText(autoexpose.ServeStdio(ctx, m.router(), cfg)); got != want {
				t.Errorf("ServeStdio error:\n  %s\nwant:\n  %s", got, want)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestInstallTwice: a second Install on one router is one error that says
// what happened, whatever its mcp.path, and it leaves the router as the
// first Install left it.
func TestInstallTwice(t *testing.T) {
	const want = "mcpdoor: the router already serves an MCP endpoint of mcpdoor, at /mcp (Install was called on it); fix: call Install once per router"
	for _, second := range []string{on, on + "mcp:\n  path: /mcp2\n"} {
		var logs bytes.Buffer
		r := router(weatherRoutes, rolloutRoutes)()
		if _, err := autoexpose.Install(r, parse(t, on, &logs)); err != nil {
			t.Fatal(err)
		}
		before := len(r.Routes())
		_, err := autoexpose.Install(r, parse(t, second, &logs))
		if got := errText(err); got != want {
			t.Errorf("second Install (%q):\n  %s\nwant:\n  %s", second, got, want)
		}
		if len(r.Routes()) != before {
			t.Errorf("the second Install (%q) changed the router", second)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		const stdioWant = "mcpdoor: the router already serves an MCP endpoint of mcpdoor, at /mcp (Install was called on it); " +
			"fix: call ServeStdio in place of Install, not after it"
		if got := errText(autoexpose.ServeStdio(ctx, r, parse(t, second, &logs))); got != stdioWant {
			t.Errorf("ServeStdio after Install (%q):\n  %s\nwant:\n  %s", second, got, stdioWant)
		}
		if w := warnings(logs.String()); len(w) > 0 {
			t.Errorf("warnings:\n%s", strings.Join(w, "\n"))
		}
	}
}

// TestInstallBeforeRoutes: a Door installed before its routes serves no
// tool, as an MCP client sees, and the log says why; the routes registered
// after it still answer over HTTP.
func TestInstallBeforeRoutes(t *testing.T) {
	leakcheck.Check(t)
	var logs bytes.Buffer
	r := chi.NewRouter()
	if _, err := autoexpose.Install(r, parse(t, on, &logs)); err != nil {
		t.Fatal(err)
	}
	weatherRoutes(r) // too late for MCP
	srv := httptest.NewServer(r)
	defer srv.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "mistakes", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 0 {
		t.Errorf("tools/list: %d tools, want none", len(list.Tools))
	}
	want := []string{`level=WARN msg="mcpdoor: no tools to serve: the router has no routes yet; call Install after registering them"`}
	if got := warnings(logs.String()); !slices.Equal(got, want) {
		t.Errorf("warnings:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), want[0])
	}
	resp, err := http.Post(srv.URL+"/get_weather", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"weather":"sunny"}` {
		t.Errorf("POST /get_weather over HTTP: %d %q", resp.StatusCode, body)
	}
}

// TestWrapMistakes: Wrap reports the mistakes that apply to a wrapped
// handler, with the same texts.
func TestWrapMistakes(t *testing.T) {
	lookup := map[string]autoexpose.Declaration{"lookup": {Description: "Looks up."}}
	for _, tc := range []struct {
		name     string
		yaml     string
		mux      func(mux *http.ServeMux)
		catchAll map[string]autoexpose.Declaration
		err      string
		warns    []string
	}{
		{
			name:     "an mcp block without expose_tools_over_mcp",
			yaml:     "name: weather\nmcp:\n  stateful: true\n",
			catchAll: lookup,
			warns: []string{`level=WARN msg="mcpdoor: the config sets mcp settings, but expose_tools_over_mcp is not true, ` +
				`so nothing is served over MCP; set expose_tools_over_mcp: true to serve the tools"`},
		},
		{
			name:  "no tools declared",
			yaml:  on,
			warns: []string{`level=WARN msg="mcpdoor: no tools to serve: declare the wrapped handler's tools in Config.CatchAll, or describe its routes in Config.OpenAPI"`},
		},
		{
			name:  "mcp.rest without a route named",
			yaml:  on + "mcp:\n  rest: {}\n",
			warns: []string{`level=WARN msg="mcpdoor: no tools to serve: name the wrapped handler's routes in mcp.rest.names, or describe them in Config.OpenAPI"`},
		},
		{
			name:     "mcp.exclude keeps every tool off MCP",
			yaml:     on + "mcp:\n  exclude: [lookup]\n",
			catchAll: lookup,
			warns:    []string{`level=WARN msg="mcpdoor: no tools to serve: mcp.exclude keeps every tool off MCP; the startup report lists them"`},
		},
		{
			name:     "a typo in mcp.exclude",
			yaml:     on + "mcp:\n  exclude: [lokup]\n",
			catchAll: lookup,
			err:      `mcpdoor: mcp.exclude names "lokup", which is no tool of this server (did you mean "lookup"?); fix: correct the name, or remove the entry`,
		},
		{
			name:     "/seed_session without /verify",
			yaml:     on,
			mux:      func(mux *http.ServeMux) { mux.HandleFunc("POST /seed_session", answer("{}")) },
			catchAll: lookup,
			err: "mcpdoor: the router serves POST /seed_session but not POST /verify, so NeMo Gym's rollout contract is half there " +
				"(POST /verify: its tool-call names are normalized for scoring); fix: add POST /verify, or set mcp.rollout.disable: true to serve POST /seed_session as a plain route",
		},
		{
			name:     "mcp.rollout settings without the rollout's routes",
			yaml:     on + "mcp:\n  rollout: {allow_tokenless: true}\n",
			catchAll: lookup,
			err: "mcpdoor: mcp.rollout is configured, but the router serves neither POST /seed_session nor POST /verify, the routes of NeMo Gym's rollout contract; " +
				"fix: add both routes, or remove the mcp.rollout settings",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			cfg := parse(t, tc.yaml, &logs)
			cfg.CatchAll = tc.catchAll
			mux := http.NewServeMux()
			mux.HandleFunc("POST /lookup", answer("{}"))
			if tc.mux != nil {
				tc.mux(mux)
			}
			_, err := autoexpose.Wrap(mux, cfg)
			if got := errText(err); got != tc.err {
				t.Errorf("Wrap error:\n  %s\nwant:\n  %s", got, tc.err)
			}
			if got := warnings(logs.String()); !slices.Equal(got, tc.warns) {
				t.Errorf("warnings:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.warns, "\n  "))
			}
		})
	}
}

// TestSeedWithoutToken: a /seed_session response that has no room for the
// "mcp" metadata goes out as the handler wrote it, byte for byte, with the
// session cookie, and the log says why it carries no session token.
func TestSeedWithoutToken(t *testing.T) {
	leakcheck.Check(t)
	const why = `level=WARN msg="mcpdoor: /seed_session's response carries no MCP session token: `
	big := `{"state":"` + strings.Repeat("x", 100) + `"}`
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
		warn string // "" when the response gets its token
	}{
		{"a JSON object gets its token", answer(`{"ok":true}`), ""},
		{"204", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) },
			why + `the handler's body is empty; answer a JSON object, at least {}, so that the \"mcp\" metadata can be added" status=204`},
		{"500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no task", http.StatusInternalServerError) },
			why + `the handler answered a status other than 2xx" status=500`},
		{"text/plain", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "seeded")
		}, why + `the handler's body is not a JSON object; answer a JSON object, at least {}, so that the \"mcp\" metadata can be added" status=200`},
		{"a JSON array", answer(`[{"task":1}]`),
			why + `the handler's body is not a JSON object; answer a JSON object, at least {}, so that the \"mcp\" metadata can be added" status=200`},
		{`a JSON object with an "mcp" key`, answer(`{"mcp":{"server_name":"mine"}}`),
			why + `the handler's JSON already has an \"mcp\" key, which is kept as it is" status=200`},
		{"over mcp.max_body_bytes", answer(big),
			why + `the handler's response is over 64 bytes (mcp.max_body_bytes), more than is held to add the metadata; it goes out as the handler wrote it" status=200`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			r := router(weatherRoutes, func(r chi.Router) {
				r.Post("/seed_session", tc.h)
				r.Post("/verify", answer("{}"))
			})()
			if _, err := autoexpose.Install(r, parse(t, on+"mcp:\n  max_body_bytes: 64\n", &logs)); err != nil {
				t.Fatal(err)
			}
			door, bare := httptest.NewServer(r), httptest.NewServer(tc.h)
			logs.Reset()
			got, gotBody := post(t, door.URL+"/seed_session")
			want, wantBody := post(t, bare.URL+"/seed_session")
			door.Close() // its handlers have returned, and logged
			bare.Close()

			if !slices.ContainsFunc(got.Cookies(), func(c *http.Cookie) bool { return c.Name == "mcpdoor_session" }) {
				t.Errorf("no session cookie: Set-Cookie %q", got.Header.Values("Set-Cookie"))
			}
			if tc.warn == "" {
				const meta = `{"ok":true,"mcp":{"server_name":"weather","url_path":"/mcp","transport":"http","headers":{"X-NeMo-Gym-Session-Token":"`
				if !strings.HasPrefix(gotBody, meta) {
					t.Errorf("body %q, want the metadata added", gotBody)
				}
				if w := warnings(logs.String()); len(w) > 0 {
					t.Errorf("warnings:\n%s", strings.Join(w, "\n"))
				}
				return
			}
			if got.StatusCode != want.StatusCode || gotBody != wantBody {
				t.Errorf("response %d %q, want it unchanged: %d %q", got.StatusCode, gotBody, want.StatusCode, wantBody)
			}
			// The session cookie and the session header name the seed's
			// session on every response, a refused seed's included.
			for _, h := range []http.Header{got.Header, want.Header} {
				h.Del("Date")
				h.Del("Set-Cookie")
				h.Del("Mcpdoor-Session")
			}
			if !mapsEqual(got.Header, want.Header) {
				t.Errorf("header %v, want it unchanged: %v", got.Header, want.Header)
			}
			if w := warnings(logs.String()); !slices.Equal(w, []string{tc.warn}) {
				t.Errorf("warnings:\n  %s\nwant:\n  %s", strings.Join(w, "\n  "), tc.warn)
			}
		})
	}
}

// post posts {} to url and returns the response and its body.
func post(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

func mapsEqual(a, b http.Header) bool {
	return maps.EqualFunc(a, b, slices.Equal)
}
