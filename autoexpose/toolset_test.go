package autoexpose

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// catchAllRouter has two tool routes, a harness-only route and a catch-all.
func catchAllRouter() chi.Router {
	return rolloutRouter(func(r chi.Router) {
		r.Method("POST", "/get_weather", Handler(getWeather, Annotate(mcp.ToolAnnotations{ReadOnlyHint: true})))
		r.Post("/end_session", ok)
		r.Post("/{tool}", ok)
	})
}

var sendSchema = SchemaFor[struct {
	To string `json:"to"`
}]()

// TestCatchAllTools: Config.CatchAll declares the tools the catch-all
// dispatcher serves; Install checks each name.
func TestCatchAllTools(t *testing.T) {
	cases := []struct {
		name     string
		catchAll map[string]Declaration
		exclude  []string
		want     string // the exposed tools, space-separated
		wantErr  string
	}{
		{"none", nil, nil, "end_session get_weather", ""},
		{"declared", map[string]Declaration{"send_email": {Description: "Send an email.", Input: sendSchema}, "list_inbox": {}}, nil,
			"end_session get_weather list_inbox send_email", ""},
		{"a harness-only route kept off MCP", nil, []string{"end_session"}, "get_weather", ""},
		{"invalid name", map[string]Declaration{"../seed_session": {}}, nil,
			"", `mcpdoor: POST /{tool}: tool name "../seed_session" does not match ^[A-Za-z0-9_-]+$; fix: name the tool with letters, digits, '_' and '-' only, at most 64 characters`},
		{"encoded separator", map[string]Declaration{"a%2Fb": {}}, nil, "", `tool name "a%2Fb" does not match`},
		{"reserved", map[string]Declaration{"verify": {}}, nil,
			"", `mcpdoor: POST /{tool}: tool name "verify" is reserved (aggregate_metrics, seed_session, verify, mcp); fix: give the tool another name`},
		{"a route's name", map[string]Declaration{"get_weather": {}}, nil,
			"", `mcpdoor: POST /{tool}: catch-all tool "get_weather" has the path of the route POST /get_weather, which the HTTP door serves with that route's own middlewares`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := enabled(MCPConfig{Exclude: c.exclude})
			cfg.CatchAll = c.catchAll
			door, err := Install(catchAllRouter(), cfg)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(strings.Fields(c.want), toolNames(door)); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("declared, described", func(t *testing.T) {
		cfg := enabled(MCPConfig{})
		cfg.CatchAll = map[string]Declaration{"send_email": {Description: "Send an email.", Input: sendSchema}, "list_inbox": {}}
		door, err := Install(catchAllRouter(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]string{
			"send_email": "POST /{tool} | direct | declared | Send an email.",
			"list_inbox": "POST /{tool} | direct | permissive | POST /list_inbox",
		} {
			tl := door.tools[name]
			if got := strings.Join([]string{tl.Route, tl.Verdict.String(), string(tl.SchemaSource), tl.Description}, " | "); got != want {
				t.Errorf("%s: %s, want %s", name, got, want)
			}
		}
	})
}

// TestCatchAllNamedLikeRoute: a catch-all tool that another route serves by
// its name is refused, whatever that route's method: over HTTP the path is
// that route, with its middlewares (auth), which a call through the
// dispatcher would skip. So is a catch-all tool named like a custom
// mcp.path, which would replay into the MCP endpoint itself.
func TestCatchAllNamedLikeRoute(t *testing.T) {
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "unauthorized", http.StatusUnauthorized) })
	}
	const fix = "; fix: give the catch-all tool another name in Config.CatchAll"
	cases := []struct {
		name   string
		routes func(r chi.Router)
		mcp    MCPConfig
		tool   string
		want   string
	}{
		{"POST", func(r chi.Router) { r.With(auth).Post("/admin", ok) }, MCPConfig{}, "admin",
			`mcpdoor: POST /{tool}: catch-all tool "admin" has the path of the route POST /admin, which the HTTP door serves with that route's own middlewares; a call through the dispatcher would skip them` + fix},
		{"GET", func(r chi.Router) { r.With(auth).Get("/admin", ok) }, MCPConfig{}, "admin",
			`mcpdoor: POST /{tool}: catch-all tool "admin" has the path of the route GET /admin, which the HTTP door serves with that route's own middlewares; a call through the dispatcher would skip them` + fix},
		{"PUT and DELETE", func(r chi.Router) { r.With(auth).Put("/admin", ok); r.Delete("/admin", ok) }, MCPConfig{}, "admin",
			`mcpdoor: POST /{tool}: catch-all tool "admin" has the path of the routes DELETE /admin, PUT /admin, which the HTTP door serves with those routes' own middlewares; a call through the dispatcher would skip them` + fix},
		{"every method", func(r chi.Router) { r.With(auth).Handle("/admin", http.HandlerFunc(ok)) }, MCPConfig{}, "admin",
			`mcpdoor: POST /{tool}: catch-all tool "admin" has the path of the route ANY /admin, which the HTTP door serves with that route's own middlewares; a call through the dispatcher would skip them` + fix},
		{"a mounted router", func(r chi.Router) {
			r.Route("/admin", func(a chi.Router) { a.Use(auth); a.Get("/", ok) })
		}, MCPConfig{}, "admin",
			`mcpdoor: POST /{tool}: catch-all tool "admin" has the path of the route ANY /admin, which the HTTP door serves with that route's own middlewares; a call through the dispatcher would skip them` + fix},
		{"a custom mcp.path", func(r chi.Router) {}, MCPConfig{Path: "/rpc"}, "rpc",
			`mcpdoor: POST /{tool}: tool name "rpc" is the MCP endpoint's path (mcp.path: /rpc); fix: give the tool another name, or set mcp.path to another path`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rolloutRouter(func(r chi.Router) { c.routes(r); r.Post("/{tool}", ok) })
			cfg := enabled(c.mcp)
			cfg.CatchAll = map[string]Declaration{c.tool: {}}
			door, err := Install(r, cfg)
			if err == nil {
				t.Fatalf("Install succeeded: %+v", door.Report())
			}
			if err.Error() != c.want {
				t.Errorf("error\n  %v\nwant\n  %s", err, c.want)
			}
		})
	}
	t.Run("a parameter route of another method is no name", func(t *testing.T) {
		r := rolloutRouter(func(r chi.Router) { r.Get("/{page}", ok); r.Mount("/", http.NotFoundHandler()); r.Post("/{tool}", ok) })
		cfg := enabled(MCPConfig{})
		cfg.CatchAll = map[string]Declaration{"admin": {}}
		if _, err := Install(r, cfg); err != nil {
			t.Fatal(err)
		}
	})
}

// TestExcludedRouteNotChecked: a route mcp.exclude keeps off MCP is never
// shape-checked, so a nested route can stay HTTP-only.
func TestExcludedRouteNotChecked(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Post("/admin/reset", ok); r.Post("/t", ok) })
	door, err := Install(r, enabled(MCPConfig{Exclude: []string{"admin/reset"}}))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	detector.WriteTable(&b, door.Report())
	if !strings.Contains(b.String(), "admin/reset  POST /admin/reset   excluded  -           mcp.exclude") {
		t.Errorf("report:\n%s", b.String())
	}
}

func TestUnusedCatchAllWarns(t *testing.T) {
	var logs bytes.Buffer
	cfg := enabled(MCPConfig{})
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	if _, err := Install(catchAllRouter(), cfg); err != nil {
		t.Fatal(err)
	}
	want := `level=WARN msg="mcpdoor: the catch-all dispatcher serves no MCP tool; its tools stay HTTP-only (declare them in Config.CatchAll)" route="POST /{tool}"`
	if !strings.Contains(logs.String(), want) {
		t.Errorf("log:\n%s", logs.String())
	}
}

// TestAnnotations: the YAML's annotations win over a declaration's, which
// win over the typed handler's; and the effect of a read-only failure.
func TestAnnotations(t *testing.T) {
	cfg, err := ParseConfig([]byte(`
name: test
expose_tools_over_mcp: true
mcp:
  annotations:
    end_session: {destructive: true, idempotent: true, title: End the session}
    send_email: {open_world: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.CatchAll = map[string]Declaration{"send_email": {Input: sendSchema, Annotations: &mcp.ToolAnnotations{Title: "Send"}}}
	door, err := Install(catchAllRouter(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ann := func(name string) string {
		b, _ := door.tools[name].MCPTool().Annotations.MarshalJSON()
		return string(b)
	}
	for name, want := range map[string]string{
		"get_weather": `{"idempotentHint":false,"readOnlyHint":true}`,
		"end_session": `{"destructiveHint":true,"idempotentHint":true,"readOnlyHint":false,"title":"End the session"}`,
		"send_email":  `{"idempotentHint":false,"openWorldHint":true,"readOnlyHint":false,"title":"Send"}`,
	} {
		if got := ann(name); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	if !door.tools["get_weather"].ReadOnly() || door.tools["end_session"].ReadOnly() {
		t.Error("readOnly from annotations")
	}
}
