package autoexpose

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hookRouter has two tool routes, a harness-only route and a catch-all.
func hookRouter() chi.Router {
	return rolloutRouter(func(r chi.Router) {
		r.Method("POST", "/get_weather", Handler(getWeather, Annotate(mcp.ToolAnnotations{ReadOnlyHint: true})))
		r.Post("/end_session", ok)
		r.Post("/{tool}", ok)
	})
}

var sendSchema = SchemaFor[struct {
	To string `json:"to"`
}]()

// TestToolsHook: the hook keeps, drops, changes and appends tools; Install
// checks what it returns.
func TestToolsHook(t *testing.T) {
	drop := func(name string, ts []Tool) []Tool {
		var out []Tool
		for _, t := range ts {
			if t.Name != name {
				out = append(out, t)
			}
		}
		return out
	}
	cases := []struct {
		name    string
		hook    func([]Tool, *CatchAll) []Tool
		want    string // the exposed tools
		wantErr string
	}{
		{"nil hook keeps the harvest", nil, "end_session get_weather", ""},
		{"identity", func(h []Tool, _ *CatchAll) []Tool { return h }, "end_session get_weather", ""},
		{"drop a harness-only route", func(h []Tool, _ *CatchAll) []Tool { return drop("end_session", h) }, "get_weather", ""},
		{"append catch-all tools", func(h []Tool, c *CatchAll) []Tool {
			return append(drop("end_session", h), c.Tool("send_email", sendSchema, "Send an email."), c.Tool("list_inbox", nil, "List the inbox."))
		}, "get_weather list_inbox send_email", ""},
		{"nothing at all", func([]Tool, *CatchAll) []Tool { return nil }, "", ""},
		{"invalid name", func(h []Tool, c *CatchAll) []Tool { return append(h, c.Tool("../seed_session", nil, "")) },
			"", `mcpdoor: POST /{tool}: tool name "../seed_session" does not match ^[A-Za-z0-9_-]+$; fix: name the tool with letters, digits, '_' and '-' only, at most 64 characters`},
		{"encoded separator", func(h []Tool, c *CatchAll) []Tool { return append(h, c.Tool("a%2Fb", nil, "")) },
			"", `tool name "a%2Fb" does not match`},
		{"reserved", func(h []Tool, c *CatchAll) []Tool { return append(h, c.Tool("verify", nil, "")) },
			"", `mcpdoor: POST /{tool}: tool name "verify" is reserved ([aggregate_metrics mcp seed_session verify] are the rollout contract's routes and the MCP endpoint); fix: give the tool another name`},
		{"duplicate", func(h []Tool, c *CatchAll) []Tool { return append(h, c.Tool("get_weather", nil, "")) },
			"", `mcpdoor: POST /{tool}: tool name "get_weather" is also served by POST /get_weather; fix: give one of them another name, or drop one in the Tools hook`},
		{"a renamed route", func(h []Tool, _ *CatchAll) []Tool { h[0].Name = "ending"; return h },
			"", `mcpdoor: POST /end_session: the Tools hook renamed the tool "end_session" to "ending"; a route's tool keeps the route's name`},
		{"a tool with no route", func(h []Tool, _ *CatchAll) []Tool { return append(h, Tool{Name: "ghost"}) },
			"", `mcpdoor: tool ghost: tool "ghost" has no route to serve it; fix: return a harvested tool, or make it with catchall.Tool`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := enabled(MCPConfig{})
			cfg.Tools = c.hook
			door, err := Install(hookRouter(), cfg)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := toolNames(door); got != c.want {
				t.Errorf("tools %q, want %q", got, c.want)
			}
		})
	}
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
	onlyCatchAll := func(name string) func([]Tool, *CatchAll) []Tool {
		return func(_ []Tool, c *CatchAll) []Tool { return []Tool{c.Tool(name, nil, "")} }
	}
	const fix = "; fix: give the catch-all tool another name, or drop it in the Tools hook"
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
			cfg.Tools = onlyCatchAll(c.tool)
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
		cfg.Tools = onlyCatchAll("admin")
		if _, err := Install(r, cfg); err != nil {
			t.Fatal(err)
		}
	})
}

func TestToolsHookNoCatchAll(t *testing.T) {
	cfg := enabled(MCPConfig{})
	var got *CatchAll
	cfg.Tools = func(h []Tool, c *CatchAll) []Tool { got = c; return append(h, c.Tool("x", nil, "")) }
	_, err := Install(rolloutRouter(func(r chi.Router) { r.Post("/t", ok) }), cfg)
	if got != nil || err == nil || !strings.Contains(err.Error(), `tool "x" has no route to serve it`) {
		t.Fatalf("catchall %v, err %v", got, err)
	}
}

// TestDroppedRouteNotChecked: a route the hook or mcp.exclude drops is never
// shape-checked, so a nested route can stay HTTP-only.
func TestDroppedRouteNotChecked(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Post("/admin/reset", ok); r.Post("/t", ok) })
	cfg := enabled(MCPConfig{})
	cfg.Tools = func(h []Tool, _ *CatchAll) []Tool {
		var out []Tool
		for _, t := range h {
			if t.Name != "admin/reset" {
				out = append(out, t)
			}
		}
		return out
	}
	door, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	door.WriteReport(&b)
	if !strings.Contains(b.String(), "admin/reset  POST /admin/reset   excluded  -           dropped by the Tools hook") {
		t.Errorf("report:\n%s", b.String())
	}
}

func TestUnusedCatchAllWarns(t *testing.T) {
	var logs bytes.Buffer
	cfg := enabled(MCPConfig{})
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	if _, err := Install(hookRouter(), cfg); err != nil {
		t.Fatal(err)
	}
	want := `level=WARN msg="mcpdoor: a catch-all dispatcher backs no MCP tool; its tools stay HTTP-only (append them in the Tools hook with catchall.Tool)" route="POST /{tool}"`
	if !strings.Contains(logs.String(), want) {
		t.Errorf("log:\n%s", logs.String())
	}
}

// TestAnnotations: from the typed adapter, the hook and the YAML, in that
// order of precedence (last wins), and the effect of a read-only failure.
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
	cfg.Tools = func(h []Tool, c *CatchAll) []Tool {
		return append(h, c.Tool("send_email", sendSchema, "Send."))
	}
	door, err := Install(hookRouter(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ann := func(name string) string {
		b, _ := door.tools[name].mcpTool().Annotations.MarshalJSON()
		return string(b)
	}
	for name, want := range map[string]string{
		"get_weather": `{"idempotentHint":false,"readOnlyHint":true}`,
		"end_session": `{"destructiveHint":true,"idempotentHint":true,"readOnlyHint":false,"title":"End the session"}`,
		"send_email":  `{"idempotentHint":false,"openWorldHint":true,"readOnlyHint":false}`,
	} {
		if got := ann(name); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	if !door.tools["get_weather"].readOnly() || door.tools["end_session"].readOnly() {
		t.Error("readOnly from annotations")
	}
}

// TestMatches: an allow-list or exclude entry matches a tool name in full, or
// the name's suffix after its last "__".
func TestMatches(t *testing.T) {
	cases := []struct {
		name string
		list []string
		want bool
	}{
		{"get_weather", []string{"get_weather"}, true},
		{"get_weather", []string{"weather"}, false},
		{"finance__get_quote", []string{"get_quote"}, true},
		{"finance__get_quote", []string{"finance__get_quote"}, true},
		{"finance__get_quote", []string{"finance"}, false},
		{"a__b__c", []string{"c"}, true},
		{"a__b__c", []string{"b__c"}, false},
		{"get_quote", []string{"finance__get_quote"}, false},
		{"get_weather", nil, false},
		{"x", []string{"", "y", "x"}, true},
	}
	for _, c := range cases {
		if got := matches(c.name, c.list); got != c.want {
			t.Errorf("matches(%q, %q) = %v, want %v", c.name, c.list, got, c.want)
		}
	}
}
