package detect

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/mcpdoor/mcpdoor/internal/pattern"
)

// A Kind says what a POST route is to mcpdoor.
type Kind int

const (
	// Tool: POST /<name>, one MCP tool.
	Tool Kind = iota + 1
	// CatchAll: POST /{param}, a dispatcher that backs tools declared in code.
	CatchAll
	// ReservedRoute: a route whose name Options.Reserved lists (the MCP
	// endpoint's, a protocol's own routes): never a tool.
	ReservedRoute
	// Skipped: a wildcard route or mounted handler, POST /: no tool name.
	Skipped
)

func (k Kind) String() string {
	switch k {
	case Tool:
		return "tool"
	case CatchAll:
		return "catch-all"
	case ReservedRoute:
		return "reserved"
	case Skipped:
		return "skipped"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// A Route is one route of the router, as the detector sees it: a POST
// route, or under Options.REST a route of any method.
type Route struct {
	// Method is the route's method, or "ANY" for the report's row of a
	// route that serves every method (Handle, Mount).
	Method  string
	Pattern string // the full chi pattern, e.g. "/get_weather" or "/{tool}"
	// Bare reports that the router serves the route at Pattern without its
	// trailing slash too: a sub-router's "/" route, which chi.Walk reports
	// at "/notes/" and the router serves at /notes and /notes/. A route
	// registered as "/notes/" is served there only.
	Bare bool
	Kind Kind
	// Name is the tool name: the pattern without its leading slash, or
	// under Options.REST as NameFrom says. Empty for a catch-all.
	Name string
	// NameFrom says where Name comes from: NameFromPath, NameFromRule,
	// NameFromOperationID or NameFromConfig. Set under Options.REST.
	NameFrom string
	// Params are a REST tool's path parameters, in the pattern's order.
	Params []Param
	// Hints are the annotations a REST tool's method implies.
	Hints Hints
	// Param is a catch-all's parameter name ("tool" for /{tool}).
	Param string
	// Endpoint is the route's own handler, without its middlewares.
	Endpoint http.Handler
	// Middlewares is the route's full middleware chain, outermost first:
	// the root's Use, sub-routers', Group's and inline With's.
	Middlewares     []func(http.Handler) http.Handler
	MiddlewareNames []string
	Verdict         Verdict
	// Reasons explain a Replay or Refused verdict; Fix says how to resolve a
	// refusal.
	Reasons []string
	Fix     string

	mounts []opaqueMount // the opaque mounts above the route (mount.go), outermost first
	// suggest is the name a REST refusal's Fix suggests, where the Fix
	// says suggested; suggest makes it one no other tool has.
	suggest string
}

// Refusal returns the route's refusal as an error naming the route, the
// reasons and the fix, or nil when the route is not refused.
func (rt *Route) Refusal() error {
	if rt.Verdict != Refused {
		return nil
	}
	return &RefusedError{Route: rt.Method + " " + rt.Pattern, Reason: strings.Join(rt.Reasons, "; "), Fix: rt.Fix}
}

// RefusedError is a setup refusal: a route, or the router, that mcpdoor
// will not serve as it stands.
type RefusedError struct {
	Route  string // "POST /a/b", or "" for the whole router
	Reason string
	Fix    string
}

func (e *RefusedError) Error() string {
	var b strings.Builder
	b.WriteString("mcpdoor: ")
	if e.Route != "" {
		b.WriteString(e.Route + ": ")
	}
	b.WriteString(e.Reason)
	if e.Fix != "" {
		b.WriteString("; fix: " + e.Fix)
	}
	return b.String()
}

// Options configures Inspect. A nil *Options means the defaults.
type Options struct {
	// Mode is the dispatch policy. Default Auto.
	Mode Mode
	// Transparent lists further middleware function names (see FuncName)
	// that a fabricated request may skip. A name also covers the closures
	// its function returns: "pkg.Trace" covers "pkg.Trace.func1". When the
	// compiler inlines Trace into its caller, Go names the closure after
	// the caller ("main.main.Trace.func1"); declare the name the report
	// shows, or mark Trace //go:noinline.
	Transparent []string
	// MCPPath is where the MCP endpoint will be mounted. Default "/mcp".
	MCPPath string
	// Reserved lists route names that are never tools, such as the routes
	// of a protocol the server follows besides its tools (NeMo Gym's
	// /seed_session and /verify). A POST route of such a name is a
	// ReservedRoute. MCPPath's name is always reserved.
	Reserved []string
	// REST, when set, reads routes of any method and depth as tools (see
	// RESTOptions). Nil keeps the tool-route convention: POST /<name>.
	REST *RESTOptions
}

// A Report is what Inspect found.
type Report struct {
	// Routes holds every POST route (under Options.REST, every route):
	// tools by name, then the others by pattern and method.
	Routes []Route
	// Problems are refusals of the router as a whole: an existing MCP
	// endpoint, more than one catch-all.
	Problems []error
	// RootMiddlewareNames are the router's own middlewares, which also run
	// in front of the MCP endpoint.
	RootMiddlewareNames []string
}

// Inspect walks r and classifies its POST routes, or under Options.REST
// all its routes. It reports what it finds; it returns an error only when
// opts is invalid or the walk itself fails.
func Inspect(r chi.Routes, opts *Options) (*Report, error) {
	o, methods, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	rep := &Report{}
	for _, mw := range r.Middlewares() {
		rep.RootMiddlewareNames = append(rep.RootMiddlewareNames, FuncName(mw))
	}
	mcpRoutes := map[string][]string{} // pattern -> methods
	var all []Route                    // under REST, every route, to classify once all are known
	err = walk(r, func(method, pattern string, bare bool, h http.Handler, mws []func(http.Handler) http.Handler, mounts []opaqueMount) error {
		if pattern == o.MCPPath || strings.HasPrefix(pattern, o.MCPPath+"/") {
			mcpRoutes[pattern] = append(mcpRoutes[pattern], method)
		}
		if method != http.MethodPost && o.REST == nil {
			return nil
		}
		rt := Route{
			Method:      method,
			Pattern:     pattern,
			Bare:        bare,
			Endpoint:    h,
			Middlewares: slices.Clone(mws), // walk reuses the backing array
			mounts:      mounts,
		}
		for _, mw := range mws {
			rt.MiddlewareNames = append(rt.MiddlewareNames, FuncName(mw))
		}
		if o.REST != nil {
			all = append(all, rt)
			return nil
		}
		classify(&rt, o)
		rep.Routes = append(rep.Routes, rt)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walking the router: %w", err)
	}
	if o.REST != nil {
		var problems []error
		rep.Routes, problems = readREST(all, o, methods)
		rep.Problems = append(rep.Problems, problems...)
	} else {
		restFixes(r, rep.Routes, o)
	}
	if len(mcpRoutes) > 0 {
		rep.Problems = append(rep.Problems, &RefusedError{
			Route:  methodsAndPatterns(mcpRoutes),
			Reason: "the server already serves " + o.MCPPath + ", where the MCP endpoint goes",
			Fix:    "remove that route (a hand-written MCP mount would be shadowed), or set mcp.path to another path",
		})
	}
	rep.refuseCatchAlls()
	slices.SortFunc(rep.Routes, compareRoutes)
	return rep, nil
}

// withDefaults returns the options opts (nil: the zero Options) with their
// defaults set, and, under REST, the methods it reads.
func withDefaults(opts *Options) (o Options, methods []string, err error) {
	if opts != nil {
		o = *opts
	}
	if o.REST != nil {
		if methods, err = o.REST.methods(); err != nil {
			return o, nil, err
		}
	}
	if o.Mode == "" {
		o.Mode = Auto
	}
	if o.MCPPath == "" {
		o.MCPPath = "/mcp"
	}
	if name := strings.TrimPrefix(o.MCPPath, "/"); !slices.Contains(o.Reserved, name) {
		o.Reserved = append(slices.Clip(o.Reserved), name)
	}
	return o, methods, nil
}

// refuseCatchAlls reports more than one catch-all route: which backs the
// catch-all tools cannot be told.
func (rep *Report) refuseCatchAlls() {
	var catchAlls []string
	for _, rt := range rep.Routes {
		if rt.Kind == CatchAll {
			catchAlls = append(catchAlls, rt.Method+" "+rt.Pattern)
		}
	}
	slices.Sort(catchAlls)
	if len(catchAlls) > 1 {
		rep.Problems = append(rep.Problems, &RefusedError{
			Route:  strings.Join(catchAlls, ", "),
			Reason: "more than one parameterized catch-all route; mcpdoor cannot tell which one backs the catch-all tools",
			Fix:    "keep one POST /{tool} dispatcher",
		})
	}
}

// anyMethod are the methods chi's Handle and Mount register a route for.
var anyMethod = []string{
	http.MethodConnect, http.MethodDelete, http.MethodGet, http.MethodHead, http.MethodOptions,
	http.MethodPatch, http.MethodPost, http.MethodPut, http.MethodTrace,
}

// methodsAndPatterns names routes by pattern as "GET /mcp, POST /mcp", and a
// pattern that every method reaches (Handle, Mount) as "ANY /mcp/*".
func methodsAndPatterns(routes map[string][]string) string {
	return strings.Join(routeNames(routes), ", ")
}

// routeNames names routes by pattern, one "GET /mcp" per method, or one
// "ANY /mcp/*" for a pattern that every method reaches.
func routeNames(routes map[string][]string) []string {
	var out []string
	for _, pattern := range slices.Sorted(maps.Keys(routes)) {
		methods := routes[pattern]
		slices.Sort(methods)
		missing := slices.ContainsFunc(anyMethod, func(m string) bool { return !slices.Contains(methods, m) })
		if !missing {
			methods = []string{"ANY"}
		}
		for _, m := range methods {
			out = append(out, m+" "+pattern)
		}
	}
	return out
}

// compareRoutes orders tools by name first, then everything else by
// pattern and method.
func compareRoutes(a, b Route) int {
	if (a.Kind == Tool) != (b.Kind == Tool) {
		if a.Kind == Tool {
			return -1
		}
		return 1
	}
	if a.Kind == Tool {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
	}
	if c := strings.Compare(a.Pattern, b.Pattern); c != 0 {
		return c
	}
	return strings.Compare(a.Method, b.Method)
}

// classify sets rt's Kind, Name, Param and Verdict.
func classify(rt *Route, o Options) {
	p := rt.Pattern
	switch {
	case p == "/":
		rt.Kind = Skipped
		rt.Reasons = []string{"the root route has no tool name"}
		return
	case strings.HasSuffix(p, "*"):
		rt.Kind = Skipped
		rt.Reasons = []string{"a wildcard route or mounted handler has no tool name"}
		return
	case slices.Contains(o.Reserved, strings.TrimPrefix(p, "/")):
		rt.Kind = ReservedRoute
		rt.Name = strings.TrimPrefix(p, "/")
		return
	}
	if param, ok := catchAllParam(p); ok {
		rt.Kind = CatchAll
		rt.Param = param
	} else {
		rt.Kind = Tool
		rt.Name = strings.TrimPrefix(p, "/")
	}
	judge(rt, o.Mode, o.Transparent)
	if rt.Kind != Tool {
		return
	}
	if err := ValidName(rt.Name); err != nil {
		// The name is the refusal; how the route would dispatch is moot.
		rt.Verdict = Refused
		reason := err.Error()
		switch i := strings.Index(rt.Name, "/"); {
		case i == len(rt.Name)-1:
			reason += " (a trailing slash)"
		case i >= 0:
			reason += " (a nested route)"
		}
		rt.Reasons = []string{reason}
		exclude := fmt.Sprintf("keep the route off MCP with mcp.exclude: [%q]", rt.Name)
		deep := strings.Contains(rt.Name, "/") // nested, or a trailing slash
		rest := RESTName(rt.Method, p)
		switch params := paramNames(p); {
		case deep && rest != "":
			// The REST reading serves the route as it stands: no route
			// changes, which a top-level path would be.
			fix := "set mcp.rest to read routes of any depth (an empty block, rest: {}, will do), where this one would be the tool " + suggested
			rt.suggest = rest // restFixes puts in the name the REST reading gives
			if len(params) > 0 {
				// A top-level path would lose the parameters.
				rt.Fix = fmt.Sprintf("%s, with %s among its arguments; or %s", fix, strings.Join(params, ", "), exclude)
			} else {
				rt.Fix = fmt.Sprintf("%s; or serve the tool at a top-level path such as /%s; or %s", fix, suggestName(rt.Name), exclude)
			}
		default:
			rt.Fix = fmt.Sprintf("serve the tool at a top-level path such as /%s, or %s", suggestName(rt.Name), exclude)
		}
	}
}

// restFixes puts into the fixes of the routes refused for their depth the
// tool each would be under an empty mcp.rest block: the name the REST
// reading of the whole router gives it, told apart from the others' (see
// collide.go), so that two fixes never name one tool.
func restFixes(r chi.Routes, routes []Route, o Options) {
	if !slices.ContainsFunc(routes, func(rt Route) bool { return rt.suggest != "" }) {
		return
	}
	o.REST = &RESTOptions{}
	rest, err := Inspect(r, &o)
	for i := range routes {
		rt := &routes[i]
		if rt.suggest == "" {
			continue
		}
		name := rt.suggest
		if err == nil {
			if rr := rest.Lookup(rt.Method, rt.Pattern); rr != nil && rr.Kind == Tool {
				name = rr.Name
			}
		}
		rt.Fix, rt.suggest = strings.Replace(rt.Fix, suggested, name, 1), ""
	}
}

// paramNames returns a pattern's parameters as "{name}", in order.
func paramNames(p string) []string {
	parts, err := pattern.Parse(p)
	if err != nil {
		return nil
	}
	var out []string
	for _, name := range pattern.Params(parts) {
		out = append(out, "{"+name+"}")
	}
	return out
}

// catchAllParam reports whether pattern is a single parameterized segment,
// /{name} or /{name:regexp}, and returns the parameter's name.
func catchAllParam(pattern string) (string, bool) {
	seg, ok := strings.CutPrefix(pattern, "/")
	if !ok || strings.Contains(seg, "/") || !strings.HasPrefix(seg, "{") || !strings.HasSuffix(seg, "}") {
		return "", false
	}
	name, _, _ := strings.Cut(seg[1:len(seg)-1], ":")
	return name, name != ""
}

// suggestName turns a nested or otherwise invalid route path into a name
// that passes ValidName, for the fix in a refusal.
func suggestName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		case r == '{' || r == '}':
		default:
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), "_")
	if len(s) > MaxNameLen {
		s = s[:MaxNameLen]
	}
	if s == "" {
		s = "tool_name"
	}
	return s
}
