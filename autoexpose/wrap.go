package autoexpose

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/harvest"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
)

// Wrap serves any http.Handler — an http.ServeMux, a framework without a
// route table for Install to read — with the MCP door in front:
//
//	mux := http.NewServeMux()
//	mux.HandleFunc("POST /get_time", getTime)
//	cfg.CatchAll = map[string]autoexpose.Declaration{
//		"get_time": {Description: "The current time.", Input: autoexpose.SchemaFor[TimeRequest]()},
//	}
//	door, err := autoexpose.Wrap(mux, cfg)
//	...
//	http.ListenAndServe("127.0.0.1:8080", door)
//
// The tools are the POST /<name> operations of the OpenAPI document
// (Config.OpenAPI) and the tools of Config.CatchAll, for which h stands as
// the dispatcher: each is served as POST /<name> through h. Under mcp.rest,
// they are the routes mcp.rest.names names — method patterns with path
// wildcards, as an http.ServeMux has them ("GET /notes/{id}") — and the
// document's operations, as REST tools (docs/rest.md, docs/nethttp.md).
// When h is an *http.ServeMux or a chi router, each named route must be
// one it serves, and a path value is refused unless h routes the
// filled-in path to the tool's own route (ServeMux.Handler's pattern,
// chi's Find), so that get_note's {id} = "export_all" cannot reach an
// undeclared GET /notes/export_all. Any other handler has no route table
// to ask: a path value is then checked against the declared routes alone,
// may reach a route h serves beside them, and Wrap logs a warning naming
// the tools with path parameters; wrap the ServeMux or router itself to
// close that. Every call is replayed through h, so every check h makes
// still runs. The Door serves the MCP endpoint itself and passes every
// other request to h unchanged, all of it — the endpoint, /seed_session,
// /verify, the replayed calls — through Config.Outer when set, so that a
// check Outer makes holds on each; serve the Door outermost (see
// Door.ServeHTTP).
//
// The rollout contract is on when h serves POST /seed_session and POST
// /verify: a chi router's or an http.ServeMux's routes say so, as does the
// OpenAPI document of any other handler. The Door then wraps those two
// routes and strips NeMo Gym's /ng-rollout/<id>/ prefix before h sees the
// request (see Door.ServeHTTP).
//
// With expose_tools_over_mcp false, Wrap returns a Door that passes every
// request to h (inside Config.Outer), and logs that it serves no MCP.
// Install and Wrap share the tool model, the result mapping and the gating
// of calls.
func Wrap(h http.Handler, cfg Config) (*Door, error) {
	if !cfg.ExposeToolsOverMCP {
		logDisabled(&cfg)
		return &Door{serves: around(&cfg, h)}, nil
	}
	d, err := wrap(h, &cfg)
	if err != nil {
		if degrade(&cfg, err) {
			return &Door{degraded: err, serves: around(&cfg, h)}, nil
		}
		return nil, err
	}
	d.announce(false)
	return d, nil
}

// A wrapMux is what a Door made by Wrap serves inside Config.Outer: its MCP
// endpoint at its path (and path + "/"), POST /seed_session and POST
// /verify through the rollout contract's wraps (while it is on), and every
// other request through the wrapped handler, as Install's router serves
// the endpoint among its routes.
type wrapMux struct {
	path     string
	endpoint http.Handler
	ready    http.Handler // the readiness answer, at path + edge.ReadyPath
	inner    http.Handler
	seed     http.Handler // nil while the rollout contract is off
	verify   http.Handler
}

func (m *wrapMux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch p := r.URL.Path; {
	case p == m.path || p == m.path+"/":
		m.endpoint.ServeHTTP(w, r)
	case p == m.path+edge.ReadyPath && r.Method == http.MethodGet:
		m.ready.ServeHTTP(w, r)
	case r.Method == http.MethodPost && p == rollout.SeedPath && m.seed != nil:
		m.seed.ServeHTTP(w, r)
	case r.Method == http.MethodPost && p == rollout.VerifyPath && m.verify != nil:
		m.verify.ServeHTTP(w, r)
	default:
		m.inner.ServeHTTP(w, r)
	}
}

// wrap builds the Door that serves h.
func wrap(h http.Handler, cfg *Config) (*Door, error) {
	b, err := newBuilder(cfg)
	if err != nil {
		return nil, err
	}
	b.wrapping = true
	doc, err := loadOpenAPI(cfg)
	if err != nil {
		b.errs = append(b.errs, err)
	}
	b.decideRollout(func(path string) bool { return wrappedServes(h, doc, path) })

	replayReasons := []string{"a wrapped handler: every call replays through it"}
	if cfg.Outer != nil {
		replayReasons = append(replayReasons, outerReason)
	}
	disp := &toolset.Dispatcher{Route: &detect.Route{
		Method:   http.MethodPost,
		Pattern:  "/{tool}",
		Kind:     detect.CatchAll,
		Param:    "tool",
		Endpoint: h,
		Verdict:  detect.Replay,
		Reasons:  replayReasons,
	}}
	if cfg.MCP.REST != nil {
		// The routes mcp.rest.names and the document name are the harvest,
		// a router of their own.
		w := harvest.WrapREST(h, doc, &harvest.WrapOptions{
			Methods: cfg.MCP.REST.Methods, Names: cfg.MCP.REST.Names, Declared: declarations(cfg.Declared),
			MCPPath: cfg.MCP.path(), Reserved: b.reserved, Reasons: replayReasons, Log: b.log,
		})
		b.report, b.errs, b.paths = append(b.report, w.Report...), append(b.errs, w.Errs...), w.Paths
		return b.wrapDoor(h, cfg, b.toolset(w.Tools, disp, doc), w.Router)
	}
	// The document's POST operations are the harvest: each served by h at
	// its path.
	harvested := harvest.DocumentTools(doc)
	for i := range harvested {
		t := &harvested[i]
		t.Detected = &detect.Route{
			Method:   http.MethodPost,
			Pattern:  "/" + t.Name,
			Kind:     detect.Tool,
			Name:     t.Name,
			Endpoint: h,
			Verdict:  detect.Replay,
			Reasons:  replayReasons,
		}
		if err := detect.ValidName(t.Name); err != nil {
			t.Detected.Verdict = detect.Refused
			t.Detected.Reasons = []string{err.Error()}
			t.Detected.Fix = fmt.Sprintf("mark the operation x-mcp-exclude: true, or keep it off MCP with mcp.exclude: [%q]", t.Name)
		} else if t.Reasons == nil {
			t.Reasons = replayReasons
		}
	}
	return b.wrapDoor(h, cfg, b.toolset(harvested, disp, doc), nil)
}

// wrapDoor makes the Door that serves tools through h; routes, when not
// nil, are the routes the tools' paths are checked against. The Door
// serves Config.Outer around its wrapMux, and replays calls through the
// same handler (the mux passes a tool's path on to h), so that every check
// Outer makes holds on the endpoint, the rollout routes and the tools
// alike, in one instance of Outer.
func (b *builder) wrapDoor(h http.Handler, cfg *Config, tools []harvest.Spec, routes chi.Routes) (*Door, error) {
	mux := &wrapMux{path: cfg.MCP.path(), inner: h}
	d, err := b.door(tools, around(cfg, mux), routes)
	if err != nil {
		return nil, err
	}
	d.handler = d.endpoint(&cfg.MCP)
	mux.endpoint, mux.ready = d.handler, edge.Ready(d.life, d.slot)
	if c := d.calls.contract; c != nil {
		mux.seed, mux.verify = d.slot.Seed(c)(h), d.slot.Verify(c)(h)
		if !servesGet(h, rollout.ReverifyPath) {
			d.reverify = c.ReverifyMode
		}
	}
	d.extend(cfg)
	return d, nil
}

// servesGet reports whether h, a chi router or an http.ServeMux, serves
// GET path itself; another handler is taken not to.
func servesGet(h http.Handler, path string) bool {
	served, _ := routesServe(h, http.MethodGet, path)
	return served
}

// wrappedServes reports whether h, a router or a wrapped handler, serves
// POST path: by its routes, when it is a chi router or an http.ServeMux,
// or else by its OpenAPI document.
func wrappedServes(h http.Handler, doc *openapi.Document, path string) bool {
	if served, known := routesServe(h, http.MethodPost, path); known {
		return served
	}
	return harvest.PostOperation(doc, path) != nil
}

// routesServe reports whether h serves method path by its own route for
// it, when h is a chi router or an http.ServeMux (known); for another
// handler known is false.
func routesServe(h http.Handler, method, path string) (served, known bool) {
	if r, ok := h.(chi.Routes); ok {
		return r.Find(chi.NewRouteContext(), method, path) == path, true
	}
	if mux, ok := h.(*http.ServeMux); ok {
		_, pattern := mux.Handler(&http.Request{Method: method, URL: &url.URL{Path: path}, Host: "localhost"})
		_, p, _ := strings.Cut(pattern, " ")
		if p == "" {
			p = pattern
		}
		return p == path, true
	}
	return false, false
}
