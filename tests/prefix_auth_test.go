package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// A gate is a path-based check a server makes: it answers 403 to every
// request whose path it guards, and passes the others.
func gate(guards func(path string) bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if guards(r.URL.Path) {
				http.Error(w, "forbidden", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// The paths the gates guard: every target's, exactly or by its prefix.
var (
	guardedPaths    = []string{"/admin/stats", "/admin_reset", "/mcp", "/seed_session", "/verify"}
	guardedPrefixes = []string{"/admin", "/mcp", "/seed", "/verify"}
)

func guardsExactly(path string) bool {
	for _, p := range guardedPaths {
		if path == p {
			return true
		}
	}
	return false
}

func guardsByPrefix(path string) bool {
	for _, p := range guardedPrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// gatedServer is a rollout server whose gate stands where the test says:
// the router's Use, a Group, a mounted sub-router's Use, a With, or
// Config.Outer. Its handlers count their runs in ran. It returns the
// router and the Door, which is what the server serves.
func gatedServer(t *testing.T, where string, guards func(string) bool, ran *atomic.Int64) (chi.Router, *autoexpose.Door) {
	t.Helper()
	cfg := fixtureConfig(t)
	cfg.MCP.Rollout.AllowTokenless = true // the MCP target calls without seeding
	sessions, _ := cfg.UseSessions()
	handler := func(w http.ResponseWriter, r *http.Request) {
		ran.Add(1)
		io.WriteString(w, `{"ran":true}`)
	}
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	if where == "use" {
		r.Use(gate(guards))
	}
	// routes registers the targets' routes on g.
	routes := func(g chi.Router) {
		g.Get("/admin/stats", handler)
		g.Post("/admin_reset", handler)
		g.Post("/seed_session", handler)
		g.Post("/verify", handler)
	}
	switch where {
	case "group":
		r.Group(func(g chi.Router) {
			g.Use(gate(guards))
			routes(g)
		})
	case "with":
		routes(r.With(gate(guards)))
	case "mount":
		// A mounted router's routes are not tools, and /admin_reset,
		// /seed_session and /verify are the root router's: the mount guards
		// the plain route alone.
		admin := chi.NewRouter()
		admin.Use(gate(guards))
		admin.Get("/stats", handler)
		r.Mount("/admin", admin)
		r.Post("/admin_reset", handler)
		r.Post("/seed_session", handler)
		r.Post("/verify", handler)
	default:
		routes(r)
	}
	if where == "outer" {
		cfg.Outer = gate(guards)
	}
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r, door
}

// A prefixTarget is one kind of request a gate guards.
type prefixTarget struct {
	name         string
	method, path string
	body         string
	mcp          bool // a raw MCP POST: the body is JSON-RPC
}

var prefixTargets = []prefixTarget{
	{name: "plain route", method: "GET", path: "/admin/stats"},
	{name: "tool over HTTP", method: "POST", path: "/admin_reset", body: `{}`},
	{name: "MCP endpoint", method: "POST", path: "/mcp", mcp: true,
		body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"admin_reset","arguments":{}}}`},
	{name: "seed_session", method: "POST", path: "/seed_session", body: `{}`},
	{name: "verify", method: "POST", path: "/verify", body: `{}`},
}

// TestRolloutPrefixKeepsGates: every check a server makes on a bare path —
// in the router's Use, a Group, a mounted router, a With or Config.Outer,
// on an exact path or a path prefix — holds on /ng-rollout/<id>/<path>:
// the prefixed request gets exactly what the bare one gets, and the
// handler behind the gate does not run.
func TestRolloutPrefixKeepsGates(t *testing.T) {
	for _, where := range []string{"use", "group", "mount", "with", "outer"} {
		for _, g := range []struct {
			name   string
			guards func(string) bool
		}{{"exact path", guardsExactly}, {"path prefix", guardsByPrefix}} {
			t.Run(where+"/"+g.name, func(t *testing.T) {
				var ran atomic.Int64
				_, door := gatedServer(t, where, g.guards, &ran)
				targets := prefixTargets
				if where == "mount" {
					targets = prefixTargets[:1]
				}
				sameUnderPrefix(t, inProcess(t, door, door), &ran, targets)
			})
		}
	}
}

// sameUnderPrefix checks that each target, guarded, gets under the prefix
// exactly what it gets bare, and that the guarded handler never runs.
func sameUnderPrefix(t *testing.T, s *server, ran *atomic.Int64, targets []prefixTarget) {
	t.Helper()
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			send := func(path string) httpResponse {
				if tg.mcp {
					return s.rawMCP(t, tg.body, raw{path: path, protocol: "2025-11-25"})
				}
				return s.send(tg.method, path, tg.body)
			}
			before := ran.Load()
			bare := send(tg.path)
			prefixed := send("/ng-rollout/r1" + tg.path)
			if n := ran.Load() - before; n != 0 {
				t.Errorf("the guarded handler ran %d times", n)
			}
			if !tg.mcp && bare.Status != http.StatusForbidden {
				t.Fatalf("%s %s: %d %s; the gate does not hold on the bare path", tg.method, tg.path, bare.Status, bare.Body)
			}
			if prefixed.Status != bare.Status || string(prefixed.Body) != string(bare.Body) {
				t.Errorf("%s /ng-rollout/r1%s: %d %q; bare: %d %q", tg.method, tg.path, prefixed.Status, prefixed.Body, bare.Status, bare.Body)
			}
		})
	}
}

// TestWrapPrefixKeepsOuter: under Wrap, Config.Outer stands in front of
// every request the Door passes on — the routes, the tools over HTTP,
// /seed_session, /verify — on the bare path and the prefixed one alike, and
// tool calls replay through it.
func TestWrapPrefixKeepsOuter(t *testing.T) {
	for _, g := range []struct {
		name   string
		guards func(string) bool
	}{{"exact path", guardsExactly}, {"path prefix", guardsByPrefix}} {
		t.Run(g.name, func(t *testing.T) {
			var ran atomic.Int64
			cfg := fixtureConfig(t)
			cfg.MCP.Rollout.AllowTokenless = true
			handler := func(w http.ResponseWriter, r *http.Request) {
				ran.Add(1)
				io.WriteString(w, `{"ran":true}`)
			}
			mux := http.NewServeMux()
			mux.HandleFunc("GET /admin/stats", handler)
			mux.HandleFunc("POST /admin_reset", handler)
			mux.HandleFunc("POST /seed_session", handler)
			mux.HandleFunc("POST /verify", handler)
			cfg.CatchAll = map[string]autoexpose.Declaration{"admin_reset": {Description: "Reset."}}
			cfg.Outer = gate(g.guards)
			door, err := autoexpose.Wrap(mux, cfg)
			if err != nil {
				t.Fatal(err)
			}
			// Outer stands in front of the MCP endpoint too: the MCP target's
			// gate holds on /mcp, as on the tool's route.
			sameUnderPrefix(t, inProcess(t, door, door), &ran, prefixTargets)
		})
	}
}

// whoamiServer is a rollout server with an open route that answers what
// its handler reads of the request, and a gate on /admin*. It returns the
// Door.
func whoamiServer(t *testing.T) *autoexpose.Door {
	t.Helper()
	cfg := fixtureConfig(t)
	sessions, _ := cfg.UseSessions()
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Use(gate(func(path string) bool { return strings.HasPrefix(path, "/admin") }))
	r.Post("/whoami", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"rollout_id": autoexpose.RolloutID(r), "path": r.URL.Path, "uri": r.RequestURI})
	})
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	r.Post("/verify", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return door
}

// TestRolloutPrefixAllowed: a prefixed request the gates let through
// reaches its handler with the bare path and rollout.ID set, over HTTP and
// over MCP at /ng-rollout/<id>/mcp.
func TestRolloutPrefixAllowed(t *testing.T) {
	door := whoamiServer(t)
	s := inProcess(t, door, door)
	if got := string(s.post("/ng-rollout/r1/whoami?x=1", `{}`).Body); got != `{"path":"/whoami","rollout_id":"r1","uri":"/whoami?x=1"}`+"\n" {
		t.Errorf("prefixed HTTP: %s", got)
	}
	seed := s.post("/ng-rollout/r1/seed_session", `{}`)
	var meta struct{ MCP seedMetadata }
	if err := json.Unmarshal(seed.Body, &meta); err != nil || meta.MCP.Headers[tokenHeader] == "" {
		t.Fatalf("seed: %d %s", seed.Status, seed.Body)
	}
	cs := s.connect(mcpOptions{path: "/ng-rollout/r1/mcp", header: http.Header{tokenHeader: {meta.MCP.Headers[tokenHeader]}}})
	res := call(t, cs, "whoami", nil)
	if got, _ := json.Marshal(res.StructuredContent); res.IsError || string(got) != `{"path":"/whoami","rollout_id":"r1","uri":"/whoami"}` {
		t.Errorf("over MCP at /ng-rollout/r1/mcp: %s", resultJSON(t, res))
	}
}

// seedToken seeds a rollout at path and returns its session token.
func seedAt(t *testing.T, s *server, path string) string {
	t.Helper()
	seed := s.post(path, `{}`)
	var meta struct{ MCP seedMetadata }
	if err := json.Unmarshal(seed.Body, &meta); err != nil || meta.MCP.Headers[tokenHeader] == "" {
		t.Fatalf("seed at %s: %d %s", path, seed.Status, seed.Body)
	}
	return meta.MCP.Headers[tokenHeader]
}

// TestRolloutIDFromToken: the rollout id a tool call's handler reads is the
// one its token was minted under, not the one the client puts in the path.
// A call at the plain /mcp (Gym's tool calls are not prefixed) reads the
// token's; a call under another rollout's prefix is refused.
func TestRolloutIDFromToken(t *testing.T) {
	door := whoamiServer(t)
	s := inProcess(t, door, door)
	tokA := seedAt(t, s, "/ng-rollout/rolloutA/seed_session")

	plain := s.newClient().connect(mcpOptions{header: http.Header{tokenHeader: {tokA}}})
	res := call(t, plain, "whoami", nil)
	if got, _ := json.Marshal(res.StructuredContent); res.IsError || string(got) != `{"path":"/whoami","rollout_id":"rolloutA","uri":"/whoami"}` {
		t.Errorf("rollout A's token at /mcp: %s", resultJSON(t, res))
	}

	other := s.newClient().connect(mcpOptions{path: "/ng-rollout/rolloutB/mcp", header: http.Header{tokenHeader: {tokA}}})
	res = call(t, other, "whoami", nil)
	// whoami has no output schema: the error envelope is the result's
	// structuredContent (the client's map: keys sorted).
	want := `{"content":[{"type":"text","text":"MCP session token belongs to another rollout."}],` +
		`"structuredContent":{"error":{"code":"rollout_mismatch","effect":"not_applied","message":"the session token was minted under rollout \"rolloutA\", and the call came under /ng-rollout/rolloutB/","status":403}},"isError":true}`
	if got := resultJSON(t, res); got != want {
		t.Errorf("rollout A's token under /ng-rollout/rolloutB/mcp:\n  %s\nwant\n  %s", got, want)
	}
}

// TestRolloutPrefixRouterServed: a rollout server that serves its router,
// not the Door, gets no bypass: the router answers a prefixed path with a
// 404 that says to serve the Door, runs none of the server's handlers for
// it, and warns the first time. A path that is no rollout's, or a second
// prefix behind the one the Door stripped, gets the router's own 404.
func TestRolloutPrefixRouterServed(t *testing.T) {
	var logs bytes.Buffer
	var ran atomic.Int64
	cfg := fixtureConfig(t)
	cfg.Logger = newLogger(&logs)
	sessions, _ := cfg.UseSessions()
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Use(gate(guardsExactly))
	handler := func(w http.ResponseWriter, r *http.Request) { ran.Add(1); io.WriteString(w, "{}") }
	r.Post("/admin_reset", handler)
	r.Post("/open", handler)
	r.Post("/seed_session", handler)
	r.Post("/verify", handler)
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	const refusal = "mcpdoor: /ng-rollout/<id>/ paths are served by the Door: serve the Door that autoexpose.Install returned, " +
		"in place of the router (http.ListenAndServe(addr, door)), so that the prefix is stripped before any check of the server runs\n"
	router := inProcess(t, r, door)
	for _, path := range []string{"/ng-rollout/r1/admin_reset", "/ng-rollout/r1/open", "/ng-rollout/r2/seed_session", "/ng-rollout/r1/mcp"} {
		if got := router.post(path, `{}`); got.Status != http.StatusNotFound || string(got.Body) != refusal {
			t.Errorf("POST %s to the router: %d %q", path, got.Status, got.Body)
		}
	}
	for _, path := range []string{"/ng-rollout//open", "/ng-rollout/-x/open"} {
		if got := router.post(path, `{}`); got.Status != http.StatusNotFound || string(got.Body) != "404 page not found\n" {
			t.Errorf("POST %s to the router: %d %q; want the router's 404", path, got.Status, got.Body)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("the server's handlers ran %d times", n)
	}
	if n := strings.Count(logs.String(), "reached the router, which refuses it"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, logs.String())
	}

	served := inProcess(t, door, door)
	if got := served.post("/ng-rollout/r1/open", `{}`); got.Status != http.StatusOK || ran.Load() != 1 {
		t.Errorf("POST /ng-rollout/r1/open to the Door: %d %q", got.Status, got.Body)
	}
	if got := served.post("/ng-rollout/r1/ng-rollout/r2/open", `{}`); got.Status != http.StatusNotFound || string(got.Body) != "404 page not found\n" {
		t.Errorf("a second prefix: %d %q; want the router's 404", got.Status, got.Body)
	}
	if n := ran.Load(); n != 1 {
		t.Errorf("the server's handlers ran %d times, want 1", n)
	}
}
