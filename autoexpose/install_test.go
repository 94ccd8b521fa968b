package autoexpose

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/harvest"
	"github.com/mcpdoor/mcpdoor/internal/store"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/token"
)

type weatherIn struct {
	City string `json:"city" jsonschema:"the city"`
}

type weatherOut struct {
	Weather string `json:"weather"`
}

func getWeather(_ context.Context, _ *http.Request, in weatherIn) (weatherOut, error) {
	return weatherOut{Weather: "sunny in " + in.City}, nil
}

func ok(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") }

func customMiddleware(next http.Handler) http.Handler { return next }

// rolloutRouter is a router with the rollout routes and the given extras.
func rolloutRouter(extra func(r chi.Router)) chi.Router {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	extra(r)
	r.Post("/seed_session", ok)
	r.Post("/verify", ok)
	return r
}

func enabled(mcp MCPConfig) Config {
	return Config{Name: "test", ExposeToolsOverMCP: true, MCP: mcp, Logger: slog.New(slog.DiscardHandler)}
}

// TestInstallRefusals: each startup refusal is an error from
// Install naming the route and the fix, and leaves the router untouched.
func TestInstallRefusals(t *testing.T) {
	cases := []struct {
		name   string
		routes func(r chi.Router)
		mcp    MCPConfig
		want   []string
	}{
		{"existing /mcp", func(r chi.Router) { r.Get("/mcp", ok) }, MCPConfig{},
			[]string{"mcpdoor: GET /mcp: the server already serves /mcp, where the MCP endpoint goes; fix: remove that route (a hand-written MCP mount would be shadowed), or set mcp.path to another path"}},
		{"two catch-alls", func(r chi.Router) {
			r.Post("/{tool}", ok)
			r.Post("/{name:[a-z]+}", ok)
		}, MCPConfig{},
			[]string{"mcpdoor: POST /{name:[a-z]+}, POST /{tool}: more than one parameterized catch-all route; mcpdoor cannot tell which one backs the catch-all tools; fix: keep one POST /{tool} dispatcher"}},
		{"nested route", func(r chi.Router) { r.Post("/a/b", ok) }, MCPConfig{},
			[]string{`mcpdoor: POST /a/b: tool name "a/b" does not match ^[A-Za-z0-9_-]+$ (a nested route); fix: set mcp.rest to read routes of any depth (an empty block, rest: {}, will do), where this one would be the tool b_a; or serve the tool at a top-level path such as /a_b; or keep the route off MCP with mcp.exclude: ["a/b"]`}},
		{"long name", func(r chi.Router) { r.Post("/"+strings.Repeat("x", 65), ok) }, MCPConfig{},
			[]string{`tool name "` + strings.Repeat("x", 65) + `" has 65 characters, more than 64`}},
		{"strict refuses a replay route", func(r chi.Router) { r.With(customMiddleware).Post("/t", ok) }, MCPConfig{Dispatch: "strict"},
			[]string{"mcpdoor: POST /t: middleware github.com/mcpdoor/mcpdoor/autoexpose.customMiddleware is not known to be transparent; fix: declare the middleware in mcp.transparent_middleware if a request may skip it, or set mcp.dispatch: auto to replay the route through the router"}},
		{"every problem at once", func(r chi.Router) { r.Post("/a/b", ok); r.Post("/mcp", ok) }, MCPConfig{},
			[]string{"mcpdoor: POST /mcp: the server already serves /mcp", "mcpdoor: POST /a/b: tool name"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rolloutRouter(c.routes)
			before := len(r.Routes())
			door, err := Install(r, enabled(c.mcp))
			if err == nil {
				t.Fatalf("Install succeeded: %+v", door.Report())
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n  %v\ndoes not contain\n  %s", err, w)
				}
			}
			if len(r.Routes()) != before {
				t.Error("a refused Install changed the router")
			}
		})
	}
}

func TestInstallAccepts(t *testing.T) {
	t.Run("a plain API needs no seed or verify", func(t *testing.T) {
		r := chi.NewRouter()
		r.Post("/t", ok)
		if _, err := Install(r, enabled(MCPConfig{})); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("rollout.disable makes seed and verify plain tools", func(t *testing.T) {
		r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
		door, err := Install(r, enabled(MCPConfig{Rollout: Rollout{Disable: true}}))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"seed_session", "t", "verify"}, toolNames(door)); diff != "" {
			t.Errorf("tools (-want +got):\n%s", diff)
		}
	})
	t.Run("excluded nested route", func(t *testing.T) {
		r := rolloutRouter(func(r chi.Router) { r.Post("/a/b", ok); r.Post("/t", ok) })
		door, err := Install(r, enabled(MCPConfig{Exclude: []string{"a/b"}}))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"t"}, toolNames(door)); diff != "" {
			t.Errorf("tools (-want +got):\n%s", diff)
		}
		// Excluded from MCP, unchanged over HTTP.
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("POST", "/a/b", nil))
		if w.Code != 200 || w.Body.String() != "{}" {
			t.Errorf("POST /a/b over HTTP: %d %q", w.Code, w.Body)
		}
	})
	t.Run("declared transparent goes direct", func(t *testing.T) {
		r := rolloutRouter(func(r chi.Router) { r.With(customMiddleware).Post("/t", ok) })
		door, err := Install(r, enabled(MCPConfig{Dispatch: "strict", TransparentMiddleware: []string{"github.com/mcpdoor/mcpdoor/autoexpose.customMiddleware"}}))
		if err != nil {
			t.Fatal(err)
		}
		if v := exposed(door)[0].Verdict.String(); v != "direct" {
			t.Errorf("verdict %s", v)
		}
	})
	t.Run("mcp.include narrows MCP only", func(t *testing.T) {
		r := rolloutRouter(func(r chi.Router) {
			r.Post("/get_weather", ok)
			r.Post("/get_news", ok)
			r.Post("/finance__get_quote", ok)
		})
		door, err := Install(r, enabled(MCPConfig{Include: []string{"get_weather", "get_quote"}}))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"finance__get_quote", "get_weather"}, toolNames(door)); diff != "" {
			t.Errorf("tools (-want +got):\n%s", diff)
		}
	})
	t.Run("flag off", func(t *testing.T) {
		r := rolloutRouter(func(r chi.Router) { r.Post("/mcp", ok) }) // would be refused if on
		door, err := Install(r, Config{})
		if err != nil || door.serving() || door.handler != nil || len(door.Report()) != 0 {
			t.Fatalf("door %+v err %v", door, err)
		}
	})
	t.Run("degrade http-only", func(t *testing.T) {
		var logs bytes.Buffer
		r := rolloutRouter(func(r chi.Router) { r.Post("/a/b", ok) })
		cfg := enabled(MCPConfig{Degrade: "http-only"})
		cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		door, err := Install(r, cfg)
		if err != nil || door.serving() || door.Degraded() == nil {
			t.Fatalf("door %+v err %v", door, err)
		}
		if !strings.Contains(logs.String(), "serving HTTP only") || !strings.Contains(logs.String(), "POST /a/b") {
			t.Errorf("log: %s", logs.String())
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("POST", "/mcp", nil))
		if w.Code != http.StatusNotFound {
			t.Errorf("POST /mcp: %d", w.Code)
		}
	})
}

func toolNames(d *Door) []string {
	var names []string
	for _, t := range exposed(d) {
		names = append(names, t.Name)
	}
	return names
}

// TestReport: the startup report is returned and logged once.
func TestReport(t *testing.T) {
	var logs bytes.Buffer
	r := rolloutRouter(func(r chi.Router) {
		r.Method("POST", "/get_weather", Handler(getWeather, Describe("Weather.")))
		r.With(customMiddleware).Post("/secure", ok)
		r.Post("/end_session", ok)
		r.Post("/{tool}", ok)
	})
	// (The catch-all dispatcher serves no tool, and the log says so.)
	cfg := enabled(MCPConfig{Exclude: []string{"end_session"}})
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	door, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	detector.WriteTable(&table, door.Report())
	want := `TOOL         ROUTE               VERDICT    SCHEMA      REASON
end_session  POST /end_session   excluded   -           mcp.exclude
get_weather  POST /get_weather   direct     typed
secure       POST /secure        replay     permissive  middleware github.com/mcpdoor/mcpdoor/autoexpose.customMiddleware must run
-            POST /seed_session  reserved   -
-            POST /verify        reserved   -
-            POST /{tool}        catch-all  -
`
	if table.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", table.String(), want)
	}
	if n := strings.Count(logs.String(), `msg="mcpdoor: route"`); n != 6 {
		t.Errorf("%d route lines logged, want 6:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), `level=INFO msg="mcpdoor: serving MCP" server=test path=/mcp tools=2`) {
		t.Errorf("log:\n%s", logs.String())
	}
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// TestMount: the endpoint answers POST at /mcp and /mcp/, no redirect.
func TestMount(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Method("POST", "/get_weather", Handler(getWeather)) })
	if _, err := Install(r, enabled(MCPConfig{})); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/mcp", "/mcp/"} {
		req := httptest.NewRequest("POST", path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"result":{}`) {
			t.Errorf("POST %s: %d %q", path, w.Code, w.Body)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// mint returns a session token of d's server for session sid, listing
// tools (nil: every tool), and has d's store hold sid, as a seed would.
func mint(tb testing.TB, d *Door, sid string, tools []string) string {
	tb.Helper()
	tok, err := token.NewCodec(d.name, d.calls.sessions.Keys(), 0).Mint(token.Payload{SID: sid, Tools: tools})
	if err != nil {
		tb.Fatal(err)
	}
	if _, _, err := d.calls.sessions.Store().Open(context.Background(), sid, nil, 0, true); err != nil {
		tb.Fatal(err)
	}
	return tok
}

// exposed returns d's exposed tools, by name, as the harvest made them.
func exposed(d *Door) []harvest.Spec {
	out := make([]harvest.Spec, len(d.names))
	for i, n := range d.names {
		out[i] = d.tools[n].Spec
	}
	return out
}

// TestRefusalNamesREST: the default mode refuses nested and trailing-slash
// POST routes with mcp.rest as the fix, naming the tool each one would be,
// and that fix works: with an empty mcp.rest block, Install serves each
// route as the tool the refusal named.
func TestRefusalNamesREST(t *testing.T) {
	r := chi.NewRouter()
	r.Route("/articles", func(r chi.Router) {
		r.Post("/", ok) // chi.Walk reports POST /articles/
		r.Post("/{articleID}/publish", ok)
	})
	r.Post("/users/invite", ok)
	_, err := Install(r, enabled(MCPConfig{}))
	if err == nil {
		t.Fatal("Install served nested and trailing-slash routes in the default mode")
	}
	fixes := map[string]string{} // route → the tool the fix names
	for _, line := range strings.Split(err.Error(), "\n") {
		route, _, _ := strings.Cut(strings.TrimPrefix(line, "mcpdoor: "), ": ")
		_, fix, _ := strings.Cut(line, "; fix: ")
		if !strings.HasPrefix(fix, "set mcp.rest") {
			t.Errorf("%s: the fix does not start with mcp.rest: %s", route, fix)
		}
		_, tool, _ := strings.Cut(fix, "would be the tool ")
		tool, _, _ = strings.Cut(tool, ",")
		tool, _, _ = strings.Cut(tool, ";")
		fixes[route] = tool
	}
	want := map[string]string{"POST /articles/": "create_article", "POST /articles/{articleID}/publish": "publish_article", "POST /users/invite": "invite_users"}
	if diff := cmp.Diff(want, fixes); diff != "" {
		t.Errorf("the tools the fixes name (-want +got):\n%s\n%v", diff, err)
	}
	door, err := Install(r, enabled(MCPConfig{REST: &REST{}}))
	if err != nil {
		t.Fatalf("with mcp.rest: %v", err)
	}
	for route, tool := range fixes {
		if tl := door.tools[tool]; tl == nil || tl.Route != route {
			t.Errorf("with mcp.rest, %s is not the tool %s; tools %v", route, tool, door.names)
		}
	}
}

// TestRefusalFixesApart: two nested routes that the REST reading tells
// apart are named apart in their fixes too, as mcp.rest will serve them.
func TestRefusalFixesApart(t *testing.T) {
	r := chi.NewRouter()
	r.Post("/v1/notes", func(w http.ResponseWriter, r *http.Request) { ok(w, r) })
	r.Post("/v2/notes", func(w http.ResponseWriter, r *http.Request) { ok(w, r) }) // another handler
	_, err := Install(r, enabled(MCPConfig{}))
	var tools []string
	for _, line := range strings.Split(fmt.Sprint(err), "\n") {
		_, tool, _ := strings.Cut(line, "would be the tool ")
		tool, _, _ = strings.Cut(tool, ";")
		tools = append(tools, tool)
	}
	slices.Sort(tools)
	if want := []string{"create_v1_note", "create_v2_note"}; !slices.Equal(tools, want) {
		t.Errorf("the fixes name the tools %q, want %q:\n%v", tools, want, err)
	}
	door, err := Install(r, enabled(MCPConfig{REST: &REST{}}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(door.names, tools) {
		t.Errorf("with mcp.rest, the tools are %q", door.names)
	}
}

// storeWithoutLists is a session.Store of another module that keeps no
// lists: it has only the four methods session.Store names.
type storeWithoutLists struct{ session.Store }

// TestInstallStoreWithoutLists: a rollout server whose store keeps no
// lists cannot keep the execution ledger its /verify checks claims
// against, and Install says so, naming the way out; with claims off it
// installs.
func TestInstallStoreWithoutLists(t *testing.T) {
	secret := []string{"a secret of at least thirty-two bytes, for the ledger"}
	cfg := enabled(MCPConfig{SessionSecret: secret})
	cfg.Store = storeWithoutLists{store.NewMemory(0, nil)}
	_, err := Install(rolloutRouter(func(chi.Router) {}), cfg)
	want := "mcpdoor: mcp.rollout.claims: the session store (Config.Store) keeps no lists, which the execution ledger needs: give the store the Append and List methods session.Store names, or set mcp.rollout.claims: off"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Install with a store without lists: %v, want an error containing %q", err, want)
	}
	cfg.MCP.Rollout.Claims = "off"
	door, err := Install(rolloutRouter(func(chi.Router) {}), cfg)
	if err != nil {
		t.Fatalf("Install with claims off: %v", err)
	}
	door.Close()
}
