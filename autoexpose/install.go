package autoexpose

import (
	"log/slog"
	"net/http"
	"reflect"
	"sync/atomic"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
)

// Install serves r's POST tool routes over MCP at cfg's path (/mcp and /mcp/,
// no redirect), with zero handler changes; under mcp.rest, its REST routes
// of any method and depth, URL and query parameters included
// (docs/rest.md). Call it after every route is registered and before
// serving.
//
// Serve the Door it returns, in place of the router (and of Config.Outer
// around it): http.ListenAndServe(addr, door). The Door passes every request
// to the router, through Config.Outer when set, after stripping NeMo Gym's
// rollout prefix (see Door.ServeHTTP).
//
// With expose_tools_over_mcp false it changes nothing and returns a Door
// that serves the router (inside Config.Outer) unchanged, and logs that it
// serves no MCP. Otherwise it reads the
// router (docs/tools.md says what becomes a tool), and refuses to start, returning an error that names
// each route or config key and its fix, when a route cannot be served as a
// tool, the config names a tool that does not exist, or the router already
// serves the MCP path. With mcp.degrade: http-only, such an error is logged
// instead, the router is left untouched, and the Door serves it unchanged.
//
// When the router serves POST /seed_session and POST /verify, Install turns
// NeMo Gym's rollout contract on (see Rollout): it wraps those two
// routes and checks a session token on every call, and the Door serves
// /ng-rollout/<id>/<path> as /<path>. The router itself refuses the prefix
// (404, saying to serve the Door): served without its Door, it would run
// its checks on the prefixed path.
//
// The startup report is logged once and available from Door.Report. The
// endpoint's session policy and protection follow the config (see
// MCPConfig.Stateful, Exclusive, AllowedOrigins, AllowedHosts); Door.Close
// ends its sessions when the server shuts down.
func Install(r chi.Router, cfg Config) (*Door, error) {
	if !cfg.ExposeToolsOverMCP {
		logDisabled(&cfg)
		return &Door{serves: around(&cfg, r)}, nil
	}
	d, err := install(r, &cfg)
	if err != nil {
		if degrade(&cfg, err) {
			return &Door{degraded: err, serves: around(&cfg, r)}, nil
		}
		return nil, err
	}
	d.announce(false)
	return d, nil
}

func install(r chi.Router, cfg *Config) (*Door, error) {
	b, err := newBuilder(cfg)
	if err != nil {
		return nil, err
	}
	d, rep, err := b.build(r)
	if err != nil {
		return nil, err
	}
	d.handler = d.endpoint(&cfg.MCP)
	if c := d.calls.contract; c != nil {
		// /seed_session and /verify keep every middleware they had: the
		// router's own still run in front of them, and the rest are applied
		// again with With.
		for path, wrap := range map[string]func(http.Handler) http.Handler{rollout.SeedPath: d.slot.Seed(c), rollout.VerifyPath: d.slot.Verify(c)} {
			rt := rep.Route(path)
			own := rt.Middlewares[len(r.Middlewares()):]
			r.With(own...).Method(http.MethodPost, path, wrap(rt.Endpoint))
		}
		r.Handle(rollout.PrefixRoute, unservedPrefix(r, cfg.logger()))
		if !servesGet(r, rollout.ReverifyPath) {
			// On the router too, for a server that serves it rather than
			// the Door; the Door answers ahead of the router's middlewares.
			d.reverify = c.ReverifyMode
			r.Get(rollout.ReverifyPath, c.ReverifyMode)
		}
	}
	r.Handle(d.path, d.handler)
	r.Handle(d.path+"/", d.handler)
	r.Get(d.path+edge.ReadyPath, edge.Ready(d.life, d.slot))
	d.extend(cfg)
	return d, nil
}

// build makes the Door for router r without changing r.
func (b *builder) build(r chi.Router) (*Door, *detect.Report, error) {
	if path, ok := installedAt(r); ok {
		return nil, nil, b.installedError(path)
	}
	doc, err := loadOpenAPI(b.cfg)
	if err != nil {
		b.errs = append(b.errs, err)
	}
	rep := b.inspect(r, doc)
	var disp *toolset.Dispatcher
	if rt := rep.CatchAll(); rt != nil {
		disp = &toolset.Dispatcher{Route: rt, Router: r}
	}
	tools := b.toolset(b.harvest(rep, doc), disp, doc)
	// The Door serves what it replays through: one instance of Outer
	// around the router, on which install mounts the endpoint.
	d, err := b.door(tools, around(b.cfg, r), r)
	return d, rep, err
}

// unservedPrefixText is what a router served without its Door answers to a
// request under NeMo Gym's prefix.
const unservedPrefixText = "mcpdoor: /ng-rollout/<id>/ paths are served by the Door: " +
	"serve the Door that autoexpose.Install returned, in place of the router (http.ListenAndServe(addr, door)), " +
	"so that the prefix is stripped before any check of the server runs"

// unservedPrefix is the router's route for NeMo Gym's rollout prefix. The
// Door strips the prefix before any of the server's code runs, so a server
// that serves the Door never reaches it. A server that serves the router
// itself has run its root middlewares on the prefixed path by then — a
// gate on /admin has let /ng-rollout/<id>/admin through — so the route
// serves nothing of the server: it answers 404 with the fix, and warns the
// first time. A path with an empty id, or a second prefix behind the one
// the Door stripped, is no rollout's: the router's own 404.
func unservedPrefix(r chi.Router, log *slog.Logger) http.Handler {
	var warned atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if rollout.ID(req) != "" || chi.URLParam(req, "rollout_id") == "" {
			if mx, ok := r.(*chi.Mux); ok {
				mx.NotFoundHandler().ServeHTTP(w, req)
				return
			}
			http.NotFound(w, req)
			return
		}
		if !warned.Swap(true) {
			log.Warn("mcpdoor: a request under NeMo Gym's /ng-rollout/<id>/ prefix reached the router, which refuses it (404): "+
				"the server serves the router, not the Door, so its checks would see the prefixed path; "+
				"fix: serve the Door that autoexpose.Install returned (http.ListenAndServe(addr, door))", "path", req.URL.Path)
		}
		http.Error(w, unservedPrefixText, http.StatusNotFound)
	})
}

// logDisabled says, once per Install or Wrap, that a config with the
// opt-in off serves nothing over MCP, so that a user who left it out sees
// why there is no endpoint; and warns when the config sets mcpdoor up all
// the same.
func logDisabled(cfg *Config) {
	cfg.logger().Info("mcpdoor: expose_tools_over_mcp is false: not serving MCP; set it to true to serve the router's tools at " + cfg.MCP.path())
	if !reflect.ValueOf(cfg.MCP).IsZero() || cfg.Declared != nil || cfg.CatchAll != nil || cfg.OpenAPI != nil || cfg.Outer != nil || cfg.ExtendServer != nil {
		cfg.logger().Warn("mcpdoor: the config sets mcp settings, but expose_tools_over_mcp is not true, so nothing is served over MCP; " +
			"set expose_tools_over_mcp: true to serve the tools")
	}
}
