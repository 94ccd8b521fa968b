package autoexpose

import (
	"net/http"
	"reflect"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/rollout"
)

// Install serves r's POST tool routes over MCP at cfg's path (/mcp and /mcp/,
// no redirect), with zero handler changes; under mcp.rest, its REST routes
// of any method and depth, URL and query parameters included (see the
// package documentation, "REST routes"). Call it after every route is
// registered and before serving.
//
// With expose_tools_over_mcp false it changes nothing and returns a Door
// that serves nothing. Otherwise it reads the router (see package detector
// and the package documentation for what becomes a tool), and refuses to
// start, returning an error that names each route or config key and its
// fix, when a route cannot be served as a tool, the config names a tool
// that does not exist, or the router already serves the MCP path. With
// mcp.degrade: http-only, such an error is logged instead and the router is
// left untouched.
//
// When the router serves POST /seed_session and POST /verify, Install turns
// NeMo Gym's rollout contract on (see package rollout): it wraps those two
// routes, checks a session token on every call, and serves
// /ng-rollout/<id>/<path> as /<path>.
//
// The startup report is logged once and available from Door.Report. The
// endpoint's session policy and protection follow the config (see
// MCPConfig.Stateful, Exclusive, AllowedOrigins, AllowedHosts); Door.Close
// ends its sessions when the server shuts down.
func Install(r chi.Router, cfg Config) (*Door, error) {
	if !cfg.ExposeToolsOverMCP {
		warnDisabled(&cfg)
		return &Door{}, nil
	}
	d, err := install(r, &cfg)
	if err != nil {
		if degrade(&cfg, err) {
			return &Door{degraded: err}, nil
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
		for path, wrap := range map[string]func(http.Handler) http.Handler{rollout.SeedPath: c.Seed, rollout.VerifyPath: c.Verify} {
			rt := rep.Route(path)
			own := rt.Middlewares[len(r.Middlewares()):]
			r.With(own...).Method(http.MethodPost, path, wrap(rt.Endpoint))
		}
		r.Handle(rollout.PrefixRoute, rollout.Router(r))
	}
	r.Handle(d.path, d.handler)
	r.Handle(d.path+"/", d.handler)
	return d, nil
}

// build makes the Door for router r without changing r.
func (b *builder) build(r chi.Router) (*Door, *detector.Report, error) {
	if path, ok := installedAt(r); ok {
		return nil, nil, b.installedError(path)
	}
	doc, err := loadOpenAPI(b.cfg)
	if err != nil {
		b.errs = append(b.errs, err)
	}
	rep := b.inspect(r, doc)
	var disp *dispatcher
	if rt := rep.CatchAll(); rt != nil {
		disp = &dispatcher{route: rt, router: r}
	}
	tools := b.toolset(b.harvest(rep, doc), disp, doc)
	d, err := b.door(tools, replayTarget(b.cfg, r), r)
	return d, rep, err
}

// warnDisabled warns of a config that sets mcpdoor up but does not turn it
// on: the opt-in is easy to leave out.
func warnDisabled(cfg *Config) {
	if !reflect.ValueOf(cfg.MCP).IsZero() || cfg.Declared != nil || cfg.CatchAll != nil || cfg.OpenAPI != nil || cfg.Outer != nil {
		cfg.logger().Warn("mcpdoor: the config sets mcp settings, but expose_tools_over_mcp is not true, so nothing is served over MCP; " +
			"set expose_tools_over_mcp: true to serve the tools")
	}
}
