package detect

import (
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/mcpdoor/mcpdoor/internal/keyring"
	"github.com/mcpdoor/mcpdoor/session"
)

const pkg = "github.com/mcpdoor/mcpdoor/internal/detect."

var ok = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok "+r.URL.Path) })

// authMiddleware stands for the user's own middleware that the detector
// cannot know: it rejects a request without a bearer token.
func authMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// tagger is a middleware constructor; its closures are named
// detector.tagger.func1 as long as it is not inlined.
//
//go:noinline
func tagger(tag string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("X-Tag", tag)
			next.ServeHTTP(w, r)
		})
	}
}

func mwA(next http.Handler) http.Handler { return next }
func mwB(next http.Handler) http.Handler { return next }
func mwC(next http.Handler) http.Handler { return next }
func mwD(next http.Handler) http.Handler { return next }
func mwE(next http.Handler) http.Handler { return next }

var quietLogFormatter = &middleware.DefaultLogFormatter{Logger: log.New(io.Discard, "", 0)}

func inspect(t testing.TB, r chi.Routes, opts *Options) *Report {
	t.Helper()
	rep, err := Inspect(r, opts)
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}
	return rep
}

func route(t testing.TB, rep *Report, pattern string) *Route {
	t.Helper()
	rt := rep.Route(pattern)
	if rt == nil {
		var got []string
		for _, rt := range rep.Routes {
			got = append(got, rt.Pattern)
		}
		t.Fatalf("no POST route %s; routes: %q", pattern, got)
	}
	return rt
}

func names(rts []Route) []string {
	var out []string
	for _, rt := range rts {
		out = append(out, rt.Name)
	}
	return out
}

func problems(rep *Report) []string {
	var out []string
	for _, p := range rep.Problems {
		out = append(out, p.Error())
	}
	return out
}

// TestInspectVerdicts: the verdict, reasons and fix of one route, POST /t,
// under each middleware and mode.
func TestInspectVerdicts(t *testing.T) {
	const strictFix = "declare the middleware in mcp.transparent_middleware if a request may skip it, or set mcp.dispatch: auto to replay the route through the router"
	type mws = []func(http.Handler) http.Handler
	m := session.New(keyring.Random(), nil)
	timeout := middleware.Timeout(time.Second)
	throttle := middleware.Throttle(10)
	withValue := middleware.WithValue("k", "v")
	cases := []struct {
		name     string
		use      mws // root Use
		with     mws // inline With on the route
		opts     *Options
		want     Verdict
		reasons  []string
		fix      string
		refusal  string
		wantName []string // MiddlewareNames, when checked
	}{
		{name: "no middleware", want: Direct},
		{name: "Logger", use: mws{middleware.Logger}, want: Direct},
		{name: "Recoverer", use: mws{middleware.Recoverer}, want: Direct},
		{name: "StripSlashes", use: mws{middleware.StripSlashes}, want: Direct},
		{name: "CleanPath", use: mws{middleware.CleanPath}, want: Direct},
		{name: "NoCache", use: mws{middleware.NoCache}, want: Direct},
		{name: "RequestLogger", use: mws{middleware.RequestLogger(quietLogFormatter)}, want: Direct},
		{name: "Heartbeat", use: mws{middleware.Heartbeat("/ping")}, want: Direct},
		{name: "Compress", use: mws{middleware.Compress(5)}, want: Direct},
		{name: "GetHead", use: mws{middleware.GetHead}, want: Direct},
		{name: "RedirectSlashes", use: mws{middleware.RedirectSlashes}, want: Direct},
		{name: "session middleware", use: mws{m.Middleware}, want: Direct},
		{name: "every transparent one at once", use: mws{
			middleware.Heartbeat("/ping"), middleware.RequestLogger(quietLogFormatter), middleware.Recoverer,
			middleware.CleanPath, middleware.StripSlashes, middleware.NoCache, middleware.Compress(5), middleware.GetHead,
		}, with: mws{m.Middleware}, want: Direct, wantName: []string{
			"github.com/go-chi/chi/v5/middleware.Heartbeat.func1",
			"github.com/go-chi/chi/v5/middleware.RequestLogger.func1",
			"github.com/go-chi/chi/v5/middleware.Recoverer",
			"github.com/go-chi/chi/v5/middleware.CleanPath",
			"github.com/go-chi/chi/v5/middleware.StripSlashes",
			"github.com/go-chi/chi/v5/middleware.NoCache",
			"github.com/go-chi/chi/v5/middleware.(*Compressor).Handler-fm",
			"github.com/go-chi/chi/v5/middleware.GetHead",
			"github.com/mcpdoor/mcpdoor/session.(*Manager).Middleware-fm",
		}},
		{name: "Strict with transparent middleware only", use: mws{middleware.Logger}, opts: &Options{Mode: Strict}, want: Direct},

		{name: "unknown middleware", with: mws{authMiddleware}, want: Replay,
			reasons: []string{"middleware " + pkg + "authMiddleware must run"}},
		{name: "unknown behind transparent ones", use: mws{middleware.Recoverer, authMiddleware}, with: mws{middleware.NoCache}, want: Replay,
			reasons:  []string{"middleware " + pkg + "authMiddleware must run"},
			wantName: []string{"github.com/go-chi/chi/v5/middleware.Recoverer", pkg + "authMiddleware", "github.com/go-chi/chi/v5/middleware.NoCache"}},
		{name: "two unknown", use: mws{mwA}, with: mws{authMiddleware}, want: Replay,
			reasons: []string{"middleware " + pkg + "mwA must run", "middleware " + pkg + "authMiddleware must run"}},
		{name: "RequestID", use: mws{middleware.RequestID}, want: Replay,
			reasons: []string{"middleware github.com/go-chi/chi/v5/middleware.RequestID must run"}},
		//lint:ignore SA1019 servers still use RealIP, and it must replay
		{name: "RealIP", use: mws{middleware.RealIP}, want: Replay,
			reasons: []string{"middleware github.com/go-chi/chi/v5/middleware.RealIP must run"}},
		{name: "Timeout", use: mws{timeout}, want: Replay,
			reasons: []string{"middleware " + FuncName(timeout) + " must run"}},
		{name: "Throttle", use: mws{throttle}, want: Replay,
			reasons: []string{"middleware github.com/go-chi/chi/v5/middleware.ThrottleWithOpts.func1 must run"}},
		{name: "WithValue", use: mws{withValue}, want: Replay,
			reasons: []string{"middleware " + FuncName(withValue) + " must run"}},

		{name: "Strict refuses an unknown middleware", with: mws{authMiddleware}, opts: &Options{Mode: Strict}, want: Refused,
			reasons: []string{"middleware " + pkg + "authMiddleware is not known to be transparent"},
			fix:     strictFix,
			refusal: "mcpdoor: POST /t: middleware " + pkg + "authMiddleware is not known to be transparent; fix: " + strictFix},
		{name: "Strict names every unknown middleware", use: mws{mwA, middleware.Logger}, with: mws{authMiddleware}, opts: &Options{Mode: Strict}, want: Refused,
			reasons: []string{
				"middleware " + pkg + "mwA is not known to be transparent",
				"middleware " + pkg + "authMiddleware is not known to be transparent",
			},
			fix: strictFix,
			refusal: "mcpdoor: POST /t: middleware " + pkg + "mwA is not known to be transparent; middleware " + pkg +
				"authMiddleware is not known to be transparent; fix: " + strictFix},

		{name: "declared transparent by exact name", with: mws{authMiddleware},
			opts: &Options{Transparent: []string{pkg + "authMiddleware"}}, want: Direct},
		{name: "declared under Strict", with: mws{authMiddleware},
			opts: &Options{Mode: Strict, Transparent: []string{pkg + "authMiddleware"}}, want: Direct},
		{name: "declared constructor covers its closure", with: mws{tagger("a")},
			opts: &Options{Transparent: []string{pkg + "tagger"}}, want: Direct},
		{name: "a declared name is not a bare prefix", with: mws{tagger("a")},
			opts: &Options{Transparent: []string{pkg + "tag"}}, want: Replay,
			reasons: []string{"middleware " + pkg + "tagger.func1 must run"}},
		{name: "a declared closure does not cover its constructor's other names", with: mws{authMiddleware},
			opts: &Options{Transparent: []string{pkg + "auth"}}, want: Replay,
			reasons: []string{"middleware " + pkg + "authMiddleware must run"}},

		{name: "ForceDirect skips an unknown middleware", use: mws{middleware.Logger}, with: mws{authMiddleware, mwA},
			opts: &Options{Mode: ForceDirect}, want: Direct,
			reasons: []string{"dispatch: direct skips " + pkg + "authMiddleware, " + pkg + "mwA"}},
		{name: "ForceDirect with transparent middleware only", use: mws{middleware.Logger}, opts: &Options{Mode: ForceDirect}, want: Direct},
		{name: "ForceReplay", use: mws{middleware.Logger}, opts: &Options{Mode: ForceReplay}, want: Replay,
			reasons: []string{"dispatch: replay"}},
		{name: "ForceReplay with an unknown middleware", with: mws{authMiddleware}, opts: &Options{Mode: ForceReplay}, want: Replay,
			reasons: []string{"dispatch: replay"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := chi.NewRouter()
			r.Use(c.use...)
			r.With(c.with...).Post("/t", ok)
			rt := route(t, inspect(t, r, c.opts), "/t")
			if rt.Kind != Tool || rt.Name != "t" || rt.Method != "POST" {
				t.Errorf("Kind, Name, Method = %v, %q, %q; want tool, \"t\", \"POST\"", rt.Kind, rt.Name, rt.Method)
			}
			if rt.Verdict != c.want {
				t.Errorf("Verdict = %v, want %v", rt.Verdict, c.want)
			}
			if !slices.Equal(rt.Reasons, c.reasons) {
				t.Errorf("Reasons = %q\nwant      %q", rt.Reasons, c.reasons)
			}
			if rt.Fix != c.fix {
				t.Errorf("Fix = %q, want %q", rt.Fix, c.fix)
			}
			if err := rt.Refusal(); (err == nil) != (c.refusal == "") || err != nil && err.Error() != c.refusal {
				t.Errorf("Refusal() = %v\nwant        %s", err, c.refusal)
			}
			if c.wantName != nil && !slices.Equal(rt.MiddlewareNames, c.wantName) {
				t.Errorf("MiddlewareNames = %q\nwant              %q", rt.MiddlewareNames, c.wantName)
			}
			if len(rt.Middlewares) != len(c.use)+len(c.with) || len(rt.MiddlewareNames) != len(rt.Middlewares) {
				t.Errorf("%d middlewares, %d names; want %d", len(rt.Middlewares), len(rt.MiddlewareNames), len(c.use)+len(c.with))
			}
		})
	}
}

// TestInspectSubRouters: routes under Route, Group, With and Mount are found
// with their full pattern; a tool below the top level is a nested route.
func TestInspectSubRouters(t *testing.T) {
	r := chi.NewRouter()
	r.Use(mwA)
	r.Post("/top", ok)
	r.Group(func(r chi.Router) {
		r.Use(mwB)
		r.Post("/grouped", ok)
	})
	r.With(mwC).Post("/inline", ok)
	r.Route("/v1", func(r chi.Router) {
		r.Use(mwD)
		r.Post("/routed", ok)
	})
	api := chi.NewRouter()
	api.Use(mwE)
	api.Post("/lookup", ok)
	r.Mount("/api", api)

	rep := inspect(t, r, nil)
	cases := []struct {
		pattern, name string
		verdict       Verdict
		mws           []string
		refusal       string
	}{
		{"/top", "top", Replay, []string{pkg + "mwA"}, ""},
		{"/grouped", "grouped", Replay, []string{pkg + "mwA", pkg + "mwB"}, ""},
		{"/inline", "inline", Replay, []string{pkg + "mwA", pkg + "mwC"}, ""},
		{"/v1/routed", "v1/routed", Refused, []string{pkg + "mwA", pkg + "mwD"},
			`mcpdoor: POST /v1/routed: tool name "v1/routed" does not match ^[A-Za-z0-9_-]+$ (a nested route); fix: set mcp.rest to read routes of any depth (an empty block, rest: {}, will do), where this one would be the tool routed; or serve the tool at a top-level path such as /v1_routed; or keep the route off MCP with mcp.exclude: ["v1/routed"]`},
		{"/api/lookup", "api/lookup", Refused, []string{pkg + "mwA", pkg + "mwE"},
			`mcpdoor: POST /api/lookup: tool name "api/lookup" does not match ^[A-Za-z0-9_-]+$ (a nested route); fix: set mcp.rest to read routes of any depth (an empty block, rest: {}, will do), where this one would be the tool lookup; or serve the tool at a top-level path such as /api_lookup; or keep the route off MCP with mcp.exclude: ["api/lookup"]`},
	}
	for _, c := range cases {
		t.Run(c.pattern, func(t *testing.T) {
			rt := route(t, rep, c.pattern)
			if rt.Kind != Tool || rt.Name != c.name || rt.Verdict != c.verdict {
				t.Errorf("Kind, Name, Verdict = %v, %q, %v; want tool, %q, %v", rt.Kind, rt.Name, rt.Verdict, c.name, c.verdict)
			}
			if !slices.Equal(rt.MiddlewareNames, c.mws) {
				t.Errorf("MiddlewareNames = %q, want %q", rt.MiddlewareNames, c.mws)
			}
			var got string
			if err := rt.Refusal(); err != nil {
				got = err.Error()
			}
			if got != c.refusal {
				t.Errorf("Refusal() = %s\nwant        %s", got, c.refusal)
			}
		})
	}
	if got, want := names(rep.Tools()), []string{"api/lookup", "grouped", "inline", "top", "v1/routed"}; !slices.Equal(got, want) {
		t.Errorf("Tools() = %q, want %q", got, want)
	}
	if got, want := rep.RootMiddlewareNames, []string{pkg + "mwA"}; !slices.Equal(got, want) {
		t.Errorf("RootMiddlewareNames = %q, want %q", got, want)
	}
	if len(rep.Problems) != 0 {
		t.Errorf("Problems = %q, want none", problems(rep))
	}
}

// TestMiddlewareOrder: MiddlewareNames lists the root's Use first, then each
// sub-router's and group's, then With's, outermost first.
func TestMiddlewareOrder(t *testing.T) {
	cases := []struct {
		name    string
		build   func(r chi.Router)
		pattern string
		want    []string
	}{
		{"root, group, With", func(r chi.Router) {
			r.Use(mwA)
			r.Group(func(r chi.Router) {
				r.Use(mwB)
				r.With(mwC, mwD).Post("/x", ok)
			})
		}, "/x", []string{pkg + "mwA", pkg + "mwB", pkg + "mwC", pkg + "mwD"}},
		{"root, Route, With", func(r chi.Router) {
			r.Use(mwA, mwB)
			r.Route("/sub", func(r chi.Router) {
				r.Use(mwC)
				r.With(mwD).Post("/x", ok)
			})
		}, "/sub/x", []string{pkg + "mwA", pkg + "mwB", pkg + "mwC", pkg + "mwD"}},
		{"root, mounted router, With", func(r chi.Router) {
			r.Use(mwA)
			sub := chi.NewRouter()
			sub.Use(mwB)
			sub.With(mwC).Post("/x", ok)
			r.With(mwD).Mount("/m", sub)
		}, "/m/x", []string{pkg + "mwA", pkg + "mwD", pkg + "mwB", pkg + "mwC"}},
		{"nested With", func(r chi.Router) {
			r.With(mwA).With(mwB).Post("/x", ok)
		}, "/x", []string{pkg + "mwA", pkg + "mwB"}},
		{"group in group", func(r chi.Router) {
			r.Use(mwE)
			r.Group(func(r chi.Router) {
				r.Use(mwA)
				r.Group(func(r chi.Router) {
					r.Use(mwB)
					r.Post("/x", ok)
				})
			})
		}, "/x", []string{pkg + "mwE", pkg + "mwA", pkg + "mwB"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := chi.NewRouter()
			c.build(r)
			rt := route(t, inspect(t, r, nil), c.pattern)
			if !slices.Equal(rt.MiddlewareNames, c.want) {
				t.Errorf("MiddlewareNames = %q\nwant              %q", rt.MiddlewareNames, c.want)
			}
			var fromFuncs []string
			for _, mw := range rt.Middlewares {
				fromFuncs = append(fromFuncs, FuncName(mw))
			}
			if !slices.Equal(fromFuncs, c.want) {
				t.Errorf("Middlewares are %q\nwant            %q", fromFuncs, c.want)
			}
		})
	}
}

// TestMiddlewaresCloned: each route keeps its own Middlewares slice,
// although chi.Walk hands routes slices that share a backing array.
func TestMiddlewaresCloned(t *testing.T) {
	cases := []struct {
		name  string
		build func(r chi.Router)
		want  map[string][]string // pattern -> middleware names
	}{
		{"two With on one group", func(r chi.Router) {
			r.Group(func(g chi.Router) {
				g.Use(mwA)
				g.With(mwB).Post("/one", ok)
				g.With(mwC).Post("/two", ok)
			})
		}, map[string][]string{
			"/one": {pkg + "mwA", pkg + "mwB"},
			"/two": {pkg + "mwA", pkg + "mwC"},
		}},
		// Five root middlewares make chi's slice for /x one longer than it
		// is, so the PUT route's With overwrites the POST route's last entry
		// when the walk hands it out second.
		{"two methods on one path", func(r chi.Router) {
			r.Use(mwA, mwA, mwA, mwA, mwA)
			r.With(mwB).Post("/x", ok)
			r.With(mwC).Put("/x", ok)
			r.With(mwD).Patch("/x", ok)
		}, map[string][]string{
			"/x": {pkg + "mwA", pkg + "mwA", pkg + "mwA", pkg + "mwA", pkg + "mwA", pkg + "mwB"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := chi.NewRouter()
			c.build(r)
			for range 20 { // chi walks a route's methods in map order
				rep := inspect(t, r, nil)
				for pattern, want := range c.want {
					var got []string
					for _, mw := range route(t, rep, pattern).Middlewares {
						got = append(got, FuncName(mw))
					}
					if !slices.Equal(got, want) {
						t.Fatalf("%s: Middlewares are %q\nwant              %q", pattern, got, want)
					}
				}
			}
		})
	}
}

// TestInspectCatchAll: a single parameterized segment is the catch-all
// dispatcher, not a tool; two of them are a problem.
func TestInspectCatchAll(t *testing.T) {
	for _, pattern := range []string{"/{tool}", "/{tool:[a-z_]+}"} {
		t.Run(pattern, func(t *testing.T) {
			r := chi.NewRouter()
			r.Post("/plain", ok)
			r.With(authMiddleware).Post(pattern, ok)
			rep := inspect(t, r, nil)
			rt := route(t, rep, pattern)
			if rt.Kind != CatchAll || rt.Param != "tool" || rt.Name != "" || rt.Verdict != Replay {
				t.Errorf("Kind, Param, Name, Verdict = %v, %q, %q, %v; want catch-all, \"tool\", \"\", replay", rt.Kind, rt.Param, rt.Name, rt.Verdict)
			}
			if ca := rep.CatchAll(); ca == nil || ca.Pattern != pattern {
				t.Errorf("CatchAll() = %v, want the route %s", ca, pattern)
			}
			if got := names(rep.Tools()); !slices.Equal(got, []string{"plain"}) {
				t.Errorf("Tools() = %q, want [plain]", got)
			}
			if len(rep.Problems) != 0 {
				t.Errorf("Problems = %q, want none", problems(rep))
			}
		})
	}
	t.Run("none", func(t *testing.T) {
		r := chi.NewRouter()
		r.Post("/plain", ok)
		if ca := inspect(t, r, nil).CatchAll(); ca != nil {
			t.Errorf("CatchAll() = %s, want nil", ca.Pattern)
		}
	})
	t.Run("Strict refuses a catch-all that must replay", func(t *testing.T) {
		r := chi.NewRouter()
		r.With(authMiddleware).Post("/{tool}", ok)
		rt := route(t, inspect(t, r, &Options{Mode: Strict}), "/{tool}")
		want := "mcpdoor: POST /{tool}: middleware " + pkg + "authMiddleware is not known to be transparent; fix: declare the middleware in mcp.transparent_middleware if a request may skip it, or set mcp.dispatch: auto to replay the route through the router"
		if err := rt.Refusal(); err == nil || err.Error() != want {
			t.Errorf("Refusal() = %v\nwant        %s", err, want)
		}
	})
	t.Run("two", func(t *testing.T) {
		r := chi.NewRouter()
		r.Post("/{tool}", ok)
		r.Post("/{name:[a-z]+}", ok)
		rep := inspect(t, r, nil)
		want := []string{"mcpdoor: POST /{name:[a-z]+}, POST /{tool}: more than one parameterized catch-all route; mcpdoor cannot tell which one backs the catch-all tools; fix: keep one POST /{tool} dispatcher"}
		if got := problems(rep); !slices.Equal(got, want) {
			t.Errorf("Problems = %q\nwant       %q", got, want)
		}
		for _, p := range rep.Problems {
			if _, ok := p.(*RefusedError); !ok {
				t.Errorf("problem %T, want *RefusedError", p)
			}
		}
	})
}

// TestInspectMCPPath: a router that already serves the MCP path, by any
// method or below it, is refused.
func TestInspectMCPPath(t *testing.T) {
	const tail = ": the server already serves /mcp, where the MCP endpoint goes; fix: remove that route (a hand-written MCP mount would be shadowed), or set mcp.path to another path"
	cases := []struct {
		name  string
		build func(r chi.Router)
		opts  *Options
		want  []string
	}{
		{"GET /mcp", func(r chi.Router) { r.Get("/mcp", ok) }, nil, []string{"mcpdoor: GET /mcp" + tail}},
		{"POST /mcp", func(r chi.Router) { r.Post("/mcp", ok) }, nil, []string{"mcpdoor: POST /mcp" + tail}},
		{"GET and DELETE /mcp", func(r chi.Router) { r.Get("/mcp", ok); r.Delete("/mcp", ok) }, nil,
			[]string{"mcpdoor: DELETE /mcp, GET /mcp" + tail}},
		{"Handle /mcp", func(r chi.Router) { r.Handle("/mcp", ok) }, nil, []string{"mcpdoor: ANY /mcp" + tail}},
		{"below /mcp", func(r chi.Router) { r.Post("/mcp/x", ok) }, nil, []string{"mcpdoor: POST /mcp/x" + tail}},
		{"Mount a handler at /mcp", func(r chi.Router) { r.Mount("/mcp", ok) }, nil, []string{"mcpdoor: ANY /mcp/*" + tail}},
		{"Mount a router at /mcp", func(r chi.Router) {
			sub := chi.NewRouter()
			sub.Post("/", ok)
			sub.Get("/events", ok)
			r.Mount("/mcp", sub)
		}, nil, []string{"mcpdoor: POST /mcp/, GET /mcp/events" + tail}},
		{"a route in a group", func(r chi.Router) { r.Group(func(r chi.Router) { r.Use(mwA); r.Get("/mcp", ok) }) }, nil,
			[]string{"mcpdoor: GET /mcp" + tail}},
		{"/mcpx is another path", func(r chi.Router) { r.Post("/mcpx", ok) }, nil, nil},
		{"/api/mcp is another path", func(r chi.Router) { r.Post("/api/mcp", ok) }, nil, nil},
		{"mcp.path elsewhere frees /mcp", func(r chi.Router) { r.Get("/mcp", ok); r.Post("/mcp/x", ok) }, &Options{MCPPath: "/rpc"}, nil},
		{"mcp.path elsewhere is refused when taken", func(r chi.Router) { r.Get("/mcp", ok); r.Post("/rpc", ok) }, &Options{MCPPath: "/rpc"},
			[]string{"mcpdoor: POST /rpc: the server already serves /rpc, where the MCP endpoint goes; fix: remove that route (a hand-written MCP mount would be shadowed), or set mcp.path to another path"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := chi.NewRouter()
			c.build(r)
			if got := problems(inspect(t, r, c.opts)); !slices.Equal(got, c.want) {
				t.Errorf("Problems = %q\nwant       %q", got, c.want)
			}
		})
	}
}

// TestInspectNames: a route whose path is not a valid tool name is refused
// with the route, the rule it breaks and the fix.
func TestInspectNames(t *testing.T) {
	long := strings.Repeat("x", 65)
	cases := []struct {
		name    string
		build   func(r chi.Router)
		pattern string
		refusal string // "" for a valid tool
	}{
		{"nested", func(r chi.Router) { r.Post("/a/b", ok) }, "/a/b",
			`mcpdoor: POST /a/b: tool name "a/b" does not match ^[A-Za-z0-9_-]+$ (a nested route); fix: set mcp.rest to read routes of any depth (an empty block, rest: {}, will do), where this one would be the tool b_a; or serve the tool at a top-level path such as /a_b; or keep the route off MCP with mcp.exclude: ["a/b"]`},
		{"nested with a parameter", func(r chi.Router) { r.Post("/items/{id}", ok) }, "/items/{id}",
			`mcpdoor: POST /items/{id}: tool name "items/{id}" does not match ^[A-Za-z0-9_-]+$ (a nested route); fix: set mcp.rest to read routes of any depth (an empty block, rest: {}, will do), where this one would be the tool post_item, with {id} among its arguments; or keep the route off MCP with mcp.exclude: ["items/{id}"]`},
		{"trailing slash", func(r chi.Router) { r.Route("/x", func(r chi.Router) { r.Post("/", ok) }) }, "/x/",
			`mcpdoor: POST /x/: tool name "x/" does not match ^[A-Za-z0-9_-]+$ (a trailing slash); fix: set mcp.rest to read routes of any depth (an empty block, rest: {}, will do), where this one would be the tool x; or serve the tool at a top-level path such as /x; or keep the route off MCP with mcp.exclude: ["x/"]`},
		{"dot", func(r chi.Router) { r.Post("/get.weather", ok) }, "/get.weather",
			`mcpdoor: POST /get.weather: tool name "get.weather" does not match ^[A-Za-z0-9_-]+$; fix: serve the tool at a top-level path such as /get_weather, or keep the route off MCP with mcp.exclude: ["get.weather"]`},
		{"percent", func(r chi.Router) { r.Post("/a%2Fb", ok) }, "/a%2Fb",
			`mcpdoor: POST /a%2Fb: tool name "a%2Fb" does not match ^[A-Za-z0-9_-]+$; fix: serve the tool at a top-level path such as /a_2Fb, or keep the route off MCP with mcp.exclude: ["a%2Fb"]`},
		{"65 characters", func(r chi.Router) { r.Post("/"+long, ok) }, "/" + long,
			`mcpdoor: POST /` + long + `: tool name "` + long + `" has 65 characters, more than 64; fix: serve the tool at a top-level path such as /` + long[:64] + `, or keep the route off MCP with mcp.exclude: ["` + long + `"]`},
		{"64 characters", func(r chi.Router) { r.Post("/"+long[:64], ok) }, "/" + long[:64], ""},
		{"dash and underscore", func(r chi.Router) { r.Post("/get-weather_v2", ok) }, "/get-weather_v2", ""},
		{"a name refusal drops the replay reasons", func(r chi.Router) { r.With(authMiddleware).Post("/a/b", ok) }, "/a/b",
			`mcpdoor: POST /a/b: tool name "a/b" does not match ^[A-Za-z0-9_-]+$ (a nested route); fix: set mcp.rest to read routes of any depth (an empty block, rest: {}, will do), where this one would be the tool b_a; or serve the tool at a top-level path such as /a_b; or keep the route off MCP with mcp.exclude: ["a/b"]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := chi.NewRouter()
			c.build(r)
			rt := route(t, inspect(t, r, nil), c.pattern)
			if rt.Kind != Tool || rt.Name != c.pattern[1:] {
				t.Errorf("Kind, Name = %v, %q; want tool, %q", rt.Kind, rt.Name, c.pattern[1:])
			}
			err := rt.Refusal()
			switch {
			case c.refusal == "" && err != nil:
				t.Errorf("Refusal() = %v, want nil", err)
			case c.refusal != "" && (err == nil || err.Error() != c.refusal):
				t.Errorf("Refusal() = %v\nwant        %s", err, c.refusal)
			case c.refusal != "" && (rt.Verdict != Refused || len(rt.Reasons) != 1):
				t.Errorf("Verdict %v with reasons %q, want refused with one reason", rt.Verdict, rt.Reasons)
			}
		})
	}
}

// TestInspectNotTools: reserved (Options.Reserved), root, wildcard and
// mounted routes are reported but are not tools; other methods are not
// reported at all.
func TestInspectNotTools(t *testing.T) {
	r := chi.NewRouter()
	r.Post("/seed_session", ok)
	r.Post("/verify", ok)
	r.Post("/aggregate_metrics", ok)
	r.Post("/", ok)
	r.Post("/files/*", ok)
	r.Mount("/static", http.FileServer(http.Dir(".")))
	r.Get("/health", ok)
	r.Put("/put_only", ok)
	r.Post("/tool", ok)
	rep := inspect(t, r, &Options{Reserved: []string{"aggregate_metrics", "seed_session", "verify"}})

	type row struct {
		pattern, name string
		kind          Kind
		reasons       string
	}
	var got []row
	for _, rt := range rep.Routes {
		got = append(got, row{rt.Pattern, rt.Name, rt.Kind, strings.Join(rt.Reasons, "; ")})
		if rt.Kind != Tool && rt.Kind != CatchAll && rt.Verdict != 0 {
			t.Errorf("%s: Verdict %v, want none", rt.Pattern, rt.Verdict)
		}
	}
	want := []row{
		{"/tool", "tool", Tool, ""},
		{"/", "", Skipped, "the root route has no tool name"},
		{"/aggregate_metrics", "aggregate_metrics", ReservedRoute, ""},
		{"/files/*", "", Skipped, "a wildcard route or mounted handler has no tool name"},
		{"/seed_session", "seed_session", ReservedRoute, ""},
		{"/static/*", "", Skipped, "a wildcard route or mounted handler has no tool name"},
		{"/verify", "verify", ReservedRoute, ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Routes =\n%v\nwant\n%v", got, want)
	}
	if got := names(rep.Tools()); !slices.Equal(got, []string{"tool"}) {
		t.Errorf("Tools() = %q, want [tool]", got)
	}
	if rt := rep.Route("/health"); rt != nil {
		t.Errorf("Route(/health) = %+v, want nil: GET routes are not reported", rt)
	}
}

// TestInspectOrder: the report's order does not depend on chi's walk:
// tools by name, then everything else by pattern.
func TestInspectOrder(t *testing.T) {
	var tools []string
	for i := range 30 {
		tools = append(tools, fmt.Sprintf("tool_%02d", i))
	}
	shuffled := slices.Clone(tools)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })

	r := chi.NewRouter()
	r.Post("/verify", ok)
	r.Post("/{tool}", ok)
	for i, name := range shuffled {
		switch i % 3 { // spread over the root, a group and inline With
		case 0:
			r.Post("/"+name, ok)
		case 1:
			r.Group(func(r chi.Router) { r.Use(mwA); r.Post("/"+name, ok) })
		case 2:
			r.With(mwB).Post("/"+name, ok)
		}
	}
	r.Post("/seed_session", ok)
	r.Post("/Zeta", ok) // upper case sorts first
	r.Post("/a/b", ok)  // a refused tool is still a tool

	var want []string
	for _, name := range append([]string{"Zeta", "a/b"}, tools...) {
		want = append(want, "/"+name)
	}
	want = append(want, "/seed_session", "/verify", "/{tool}")

	for i := range 20 {
		var got []string
		for _, rt := range inspect(t, r, &Options{Reserved: []string{"seed_session", "verify"}}).Routes {
			got = append(got, rt.Pattern)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Inspect #%d: Routes in order\n%q\nwant\n%q", i, got, want)
		}
	}
}

// TestInspectLeavesRouterAlone: the router serves the same responses after
// Inspect as before it.
func TestInspectLeavesRouterAlone(t *testing.T) {
	r := chi.NewRouter()
	r.Use(middleware.NoCache)
	r.Post("/plain", ok)
	r.With(authMiddleware).Post("/secure", ok)
	r.Post("/{tool}", ok)
	r.Route("/v1", func(r chi.Router) { r.Use(tagger("v1")); r.Post("/x", ok) })
	r.Get("/mcp", ok)

	requests := []struct{ method, path, auth string }{
		{"POST", "/plain", ""},
		{"POST", "/secure", ""},
		{"POST", "/secure", "Bearer good"},
		{"POST", "/anything", ""},
		{"POST", "/v1/x", ""},
		{"GET", "/mcp", ""},
		{"GET", "/plain", ""},
		{"POST", "/nope/nope", ""},
	}
	serve := func() []string {
		var out []string
		for _, q := range requests {
			req := httptest.NewRequest(q.method, q.path, strings.NewReader("{}"))
			if q.auth != "" {
				req.Header.Set("Authorization", q.auth)
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			out = append(out, fmt.Sprintf("%s %s: %d %q %q %q", q.method, q.path, w.Code, w.Body.String(), w.Header().Values("X-Tag"), w.Header().Get("Cache-Control")))
		}
		return out
	}
	walk := func() []string {
		var out []string
		chi.Walk(r, func(method, pattern string, _ http.Handler, mws ...func(http.Handler) http.Handler) error {
			out = append(out, fmt.Sprintf("%s %s %d", method, pattern, len(mws)))
			return nil
		})
		slices.Sort(out)
		return out
	}
	before, routesBefore, rootBefore := serve(), walk(), len(r.Middlewares())
	for range 3 {
		inspect(t, r, &Options{Mode: Strict, Transparent: []string{"x"}})
	}
	after, routesAfter, rootAfter := serve(), walk(), len(r.Middlewares())
	if !slices.Equal(before, after) {
		t.Errorf("responses changed:\nbefore %q\nafter  %q", before, after)
	}
	if !slices.Equal(routesBefore, routesAfter) || rootBefore != rootAfter {
		t.Errorf("routes changed:\nbefore %q (%d)\nafter  %q (%d)", routesBefore, rootBefore, routesAfter, rootAfter)
	}
	if want := `POST /secure: 401 "no\n" [] "no-cache, no-store, no-transform, must-revalidate, private, max-age=0"`; before[1] != want {
		t.Errorf("the fixture serves %s, want %s", before[1], want)
	}
}

func TestRefusedError(t *testing.T) {
	cases := []struct {
		err  RefusedError
		want string
	}{
		{RefusedError{Route: "POST /a/b", Reason: "bad name", Fix: "rename it"}, "mcpdoor: POST /a/b: bad name; fix: rename it"},
		{RefusedError{Reason: "no /verify route", Fix: "add one"}, "mcpdoor: no /verify route; fix: add one"},
		{RefusedError{Route: "POST /x", Reason: "bad"}, "mcpdoor: POST /x: bad"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			if got := c.err.Error(); got != c.want {
				t.Errorf("Error() = %q, want %q", got, c.want)
			}
		})
	}
	t.Run("a route that is not refused", func(t *testing.T) {
		rt := Route{Method: "POST", Pattern: "/x", Kind: Tool, Verdict: Replay, Reasons: []string{"middleware m must run"}}
		if err := rt.Refusal(); err != nil {
			t.Errorf("Refusal() = %v, want nil", err)
		}
	})
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Tool: "tool", CatchAll: "catch-all", ReservedRoute: "reserved", Skipped: "skipped", 0: "Kind(0)", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

// BenchmarkInspect1000 inspects a router with 1,000 POST routes spread over
// the root, groups and mounted sub-routers, two middlewares each: the root's
// Recoverer and one of the group's, the sub-router's or an inline With.
func BenchmarkInspect1000(b *testing.B) {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	n := 0
	name := func() string { n++; return fmt.Sprintf("/tool_%04d", n) }
	for range 125 {
		r.With(authMiddleware).Post(name(), ok)
	}
	for range 125 {
		r.With(middleware.Heartbeat("/ping")).Post(name(), ok)
	}
	r.Group(func(g chi.Router) {
		g.Use(middleware.NoCache)
		for range 250 {
			g.Post(name(), ok)
		}
	})
	for i := range 4 {
		sub := chi.NewRouter()
		sub.Use(tagger("sub"))
		for range 100 {
			sub.Post(name(), ok)
		}
		r.Mount(fmt.Sprintf("/sub%d", i), sub)
	}
	r.Group(func(g chi.Router) {
		g.Use(mwA)
		for range 100 {
			g.Post(name(), ok)
		}
	})
	if rep := inspect(b, r, nil); len(rep.Routes) != 1000 {
		b.Fatalf("%d routes, want 1000", len(rep.Routes))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Inspect(r, nil); err != nil {
			b.Fatal(err)
		}
	}
}
