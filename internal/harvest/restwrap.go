package harvest

import (
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/dispatch"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
	"github.com/mcpdoor/mcpdoor/internal/pattern"
)

// WrapOptions are what the config says of a wrapped handler's REST
// tools.
type WrapOptions struct {
	// Methods and Names are mcp.rest's.
	Methods  []string
	Names    map[string]string
	Declared map[string]Declaration // Config.Declared
	// MCPPath and Reserved are as the detector takes them.
	MCPPath  string
	Reserved []string
	// Reasons say how each call reaches its route: replayed through the
	// wrapped handler.
	Reasons []string
	Log     *slog.Logger
}

// A Wrapped is the harvest of a wrapped handler's REST tools (see
// WrapREST).
type Wrapped struct {
	Tools []Spec
	// Router holds the tools' routes, which the detector reads for their
	// names, parameters and hints.
	Router chi.Router
	// Paths is what the tools' templates check a path against (see
	// pathRouter); nil for the declared routes alone.
	Paths dispatch.Router
	// Report has a row for each route that is no tool; Errs, the
	// refusals.
	Report []detector.Row
	Errs   []error
}

// WrapREST returns the REST tools of a wrapped handler h, which has no
// route table to read: the routes mcp.rest.names names and the OpenAPI
// document's operations, each served by h and replayed through it; and
// those routes as a chi router of their own, which the detector reads for
// the tools' names, parameters and hints. When h is an *http.ServeMux or a
// chi router, each route mcp.rest.names names must be one it serves, and
// the tools' templates check each path against h itself (see pathRouter).
func WrapREST(h http.Handler, doc *openapi.Document, o *WrapOptions) *Wrapped {
	w := &Wrapped{}
	w.Tools, w.Router = w.harvest(h, doc, o)
	return w
}

// harvest is WrapREST's harvest, adding to w's report and refusals.
func (w *Wrapped) harvest(h http.Handler, doc *openapi.Document, o *WrapOptions) ([]Spec, chi.Router) {
	routes := map[string]bool{} // "METHOD pattern" → whether r has the route
	for key := range o.Names {
		method, p, _ := pattern.SplitKey(key)
		routes[method+" "+p] = true
	}
	if doc != nil {
		for _, op := range doc.Operations {
			if !op.Exclude && slices.Contains(detect.RESTMethods(), op.Method) {
				routes[op.Method+" "+op.Path] = true
			}
		}
	}
	// A chi router's routes keep its own patterns, regexps included, so
	// that Find on it gives a tool's pattern back.
	var own map[string]string
	if cr, ok := h.(chi.Routes); ok {
		own = chiPatterns(cr)
	}
	r := chi.NewRouter()
	for _, route := range slices.Sorted(maps.Keys(routes)) {
		method, p, _ := strings.Cut(route, " ")
		if served, ok := own[method+" "+pattern.Key(p)]; ok {
			p = served
		}
		if err := muxRoute(r, method, p, h); err != nil {
			w.Errs = append(w.Errs, err)
			routes[route] = false
		}
	}
	opts := RESTOptions(o.Methods, o.Names, o.Declared, doc, NewGenIndex(nil).Wrapping(h))
	mux, isMux := h.(*http.ServeMux)
	for _, key := range slices.Sorted(maps.Keys(o.Names)) {
		// A refused route's name is not a second mistake.
		if method, p, _ := pattern.SplitKey(key); !routes[method+" "+p] {
			delete(opts.Names, strings.Replace(key, "{$}", "", 1))
			continue
		}
		var err error
		switch {
		case isMux:
			err = muxServes(mux, key)
		case own != nil:
			err = chiServes(own, key)
		}
		if err != nil {
			w.Errs = append(w.Errs, err)
		}
	}
	rep, err := detect.Inspect(r, &detect.Options{MCPPath: o.MCPPath, Reserved: o.Reserved, REST: opts})
	if err != nil {
		w.Errs = append(w.Errs, fmt.Errorf("mcpdoor: %w", err))
		return nil, r
	}
	w.Errs = append(w.Errs, rep.Problems...)
	gen := NewGenIndex(o.Log).Wrapping(h)
	defer gen.WarnStale(o.Log)
	var tools []Spec
	for i := range rep.Routes {
		rt := &rep.Routes[i]
		if rt.Kind != detect.Tool {
			w.Report = append(w.Report, detector.Row{Route: rt.Method + " " + rt.Pattern, Verdict: rt.Kind.String(), Reason: strings.Join(rt.Reasons, "; ")})
			continue
		}
		rt.Endpoint = h
		if rt.Verdict != detect.Refused {
			rt.Verdict, rt.Reasons = detect.Replay, o.Reasons
		}
		tools = append(tools, RESTRoute(rt, o.Declared, doc, gen))
	}
	w.Paths = pathRouter(h, tools, o.Log)
	return tools, r
}

// pathRouter returns what the templates of a wrapped handler h's tools
// check a path against, so that a path value cannot take a call to another
// of h's routes (GET /notes/export_all for get_note's {id}, when GET
// /notes/export_all is not a tool): h itself when it is a chi router, its
// route table when it is an *http.ServeMux. Any other handler has no route
// table to ask; its tools' paths are checked against the declared routes
// alone (nil), and a warning names the tools that have path parameters.
func pathRouter(h http.Handler, tools []Spec, log *slog.Logger) dispatch.Router {
	switch h := h.(type) {
	case *http.ServeMux:
		return muxRouter{h}
	case chi.Routes:
		return h
	}
	var named []string
	for _, t := range tools {
		if len(t.REST.Params) > 0 {
			named = append(named, t.Name)
		}
	}
	if len(named) > 0 {
		slices.Sort(named)
		log.Warn("mcpdoor: the wrapped handler is neither an *http.ServeMux nor a chi router, so a path value cannot be checked to reach its tool's route and no other; a value may reach a route the wrapped handler serves beside it",
			"tools", strings.Join(named, ", "),
			"fix", "wrap the *http.ServeMux or chi router itself, or name every route it serves beside those tools in mcp.rest.names, with mcp.exclude to keep it off MCP, so that the check knows it")
	}
	return nil
}

// chiPatterns returns a chi router's routes, "METHOD key" (see
// pattern.Key) → the route's own pattern.
func chiPatterns(r chi.Routes) map[string]string {
	own := map[string]string{}
	chi.Walk(r, func(method, p string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		p = pattern.Join("", p)
		own[method+" "+pattern.Key(p)] = p
		return nil
	})
	return own
}

// chiServes returns an error unless the wrapped chi router, whose routes
// are own (see chiPatterns), serves the route key ("GET /notes/{id}").
func chiServes(own map[string]string, key string) error {
	method, p, _ := pattern.SplitKey(key)
	if _, ok := own[method+" "+pattern.Key(p)]; ok {
		return nil
	}
	return &detect.RefusedError{
		Route:  method + " " + p,
		Reason: "mcp.rest.names names a route the wrapped chi router does not serve",
		Fix:    "name a route as the router's pattern has it (the startup report of Install lists them)",
	}
}

// muxRouter answers Find for an http.ServeMux, as a chi router does: the
// pattern of the route the mux serves method and path with, in chi's form
// (without its method, "{$}" left out), and the path's wildcard values.
type muxRouter struct{ mux *http.ServeMux }

func (m muxRouter) Find(rctx *chi.Context, method, path string) string {
	_, p := m.mux.Handler(&http.Request{Method: method, URL: &url.URL{Path: path}, Host: "localhost"})
	if _, rest, ok := strings.Cut(p, " "); ok {
		p = rest
	}
	if !strings.HasPrefix(p, "/") {
		return p // none, or a host's pattern: not a tool's
	}
	// A ServeMux wildcard is a whole segment: the path's segment at its
	// place is its value.
	segs := strings.Split(path, "/")
	for i, seg := range strings.Split(p, "/") {
		name, ok := strings.CutPrefix(seg, "{")
		if !ok || seg == "{$}" || i >= len(segs) {
			continue
		}
		name = strings.TrimSuffix(name, "}")
		if rest, ok := strings.CutSuffix(name, "..."); ok {
			rctx.URLParams.Add(rest, strings.Join(segs[i:], "/"))
			continue
		}
		rctx.URLParams.Add(name, segs[i])
	}
	return strings.Replace(p, "{$}", "", 1)
}

// muxSample is the value muxServes puts in a pattern's wildcards.
const muxSample = "mcpdoor_sample"

// muxRoute adds the route method p, an http.ServeMux pattern ("/notes/{id}",
// "/notes/{$}"), to r, served by h; or returns why it cannot be a tool.
func muxRoute(r chi.Router, method, p string, h http.Handler) (err error) {
	refuse := func(why string) error {
		return &detect.RefusedError{Route: method + " " + p, Reason: why, Fix: "name a route with a fixed path, its wildcards whole segments"}
	}
	switch {
	case strings.Contains(p, "...}"):
		return refuse("a {name...} wildcard matches any rest of a path; a tool has a fixed path to call")
	case !strings.HasPrefix(p, "/"):
		return refuse("a route with a host has no path a tool can call")
	}
	defer func() {
		if v := recover(); v != nil { // chi refuses a pattern it cannot route
			err = refuse(fmt.Sprint(v))
		}
	}()
	r.Method(method, strings.Replace(p, "{$}", "", 1), h)
	return nil
}

// muxServes returns an error unless mux serves the route key ("GET
// /notes/{id}") with that very pattern.
func muxServes(mux *http.ServeMux, key string) error {
	method, p, _ := pattern.SplitKey(key)
	parts, err := pattern.Parse(strings.Replace(p, "{$}", "", 1))
	if err != nil {
		return nil // muxRoute says why
	}
	var path strings.Builder
	for _, pt := range parts {
		if pt.Name != "" {
			path.WriteString(muxSample)
		} else {
			path.WriteString(pt.Literal)
		}
	}
	req := &http.Request{Method: method, URL: &url.URL{Path: path.String()}, Host: "localhost"}
	_, got := mux.Handler(req)
	if got == p || got == method+" "+p {
		return nil
	}
	serves := "with no pattern"
	if got != "" {
		serves = "with " + got
	}
	return &detect.RefusedError{
		Route:  method + " " + p,
		Reason: fmt.Sprintf("mcp.rest.names names a route the wrapped http.ServeMux does not serve (it serves %s %s %s)", method, path.String(), serves),
		Fix:    "name a route as the ServeMux's pattern has it",
	}
}
