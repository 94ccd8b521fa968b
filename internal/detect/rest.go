package detect

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/pattern"
)

// RESTOptions turn on the REST reading of a router: every route of the
// named methods is a tool, at any depth (sub-routers, Route, Group and
// Mount included), whatever its path parameters. The tool-route
// convention (POST /<name>) stays the default: Options.REST is nil.
type RESTOptions struct {
	// Methods are the methods whose routes become tools: any of POST, PUT,
	// PATCH, DELETE and GET. Empty means POST, PUT, PATCH and DELETE. GET
	// routes become tools only when GET is named, or one by one in Names,
	// so that a server's /metrics or /debug pages do not turn into tools by
	// accident.
	Methods []string
	// Names names routes' tools, by "METHOD /pattern" ("GET /api/notes/{id}").
	// A pattern may leave out chi regexps ("{id}" for "{id:[0-9]+}") and a
	// trailing slash. A name here wins over the OpenAPI operationId and the
	// default (see RESTName), so that a bad or colliding name can always be
	// fixed in the config. Naming a route asks for it: a route of any of
	// the methods Methods may list is a tool when it is named, whether or
	// not its method is listed. A key that names no such route is a problem.
	Names map[string]string
	// Document, when set, says what the OpenAPI document says of a route
	// that may be a tool: its operation's operationId, which wins over the
	// default name, or ""; and why the route is left off by default (the
	// document does not describe it, or describes a page's form), or "". A
	// route named in Names is a tool whatever it says.
	Document func(rt *Route) (operationID, leave string)
}

// Where a REST tool's name comes from: Route.NameFrom.
const (
	NameFromPath        = "path"        // the tool-route convention: POST /<name>
	NameFromRule        = "rule"        // RESTName
	NameFromOperationID = "operationId" // RESTOptions.Document
	NameFromConfig      = "config"      // RESTOptions.Names
)

// A Param is a path parameter of a route, in the order of the pattern.
type Param struct {
	Name string
	// Regexp is the regular expression chi matches the value with, anchored
	// as chi anchors it ("{id:[0-9]+}" gives "^[0-9]+$"), or "" when the
	// parameter takes any non-empty text without a "/".
	Regexp string
}

// Hints are the MCP tool annotations a route's method implies: GET is
// read-only, PUT and DELETE are idempotent (as HTTP defines them), DELETE
// is destructive. A false field sets nothing, leaving MCP's default; the
// config and the OpenAPI document may override any of them.
type Hints struct {
	ReadOnly, Destructive, Idempotent bool
}

// restMethods are the methods whose routes may be tools, in the order
// errors list them.
var restMethods = []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodGet}

// RESTMethods returns the methods whose routes the REST reading can make
// tools: POST, PUT, PATCH, DELETE and GET, in that order.
func RESTMethods() []string { return slices.Clone(restMethods) }

// methods returns the validated, upper-cased method set.
func (o *RESTOptions) methods() ([]string, error) {
	if len(o.Methods) == 0 {
		return restMethods[:4], nil
	}
	var out []string
	for _, m := range o.Methods {
		up := strings.ToUpper(strings.TrimSpace(m))
		if !slices.Contains(restMethods, up) {
			return nil, fmt.Errorf("REST method %q is not one of %s", m, strings.Join(restMethods, ", "))
		}
		if !slices.Contains(out, up) {
			out = append(out, up)
		}
	}
	return out, nil
}

// hintsFor returns the annotations method implies.
func hintsFor(method string) Hints {
	switch method {
	case http.MethodGet:
		return Hints{ReadOnly: true}
	case http.MethodPut:
		return Hints{Idempotent: true}
	case http.MethodDelete:
		return Hints{Destructive: true, Idempotent: true}
	}
	return Hints{}
}

// readREST classifies every route of the router the REST way. all holds
// one Route per method and pattern, as chi.Walk gives them.
func readREST(all []Route, o Options, methods []string) ([]Route, []error) {
	byPattern := map[string][]string{}
	for _, rt := range all {
		byPattern[rt.Pattern] = append(byPattern[rt.Pattern], rt.Method)
	}
	names := newKeyed(o.REST.Names)
	var out []Route
	for _, p := range slices.Sorted(maps.Keys(byPattern)) {
		if everyMethod(byPattern[p]) {
			reason := "serves every method (Handle, HandleFunc or Mount); only its POST can be a tool"
			switch {
			case strings.Contains(p, "*"):
				reason = "a wildcard route serves every path under its prefix; it has no fixed path to call"
			case !asked(http.MethodPost, p, methods, names):
				reason = "serves every method (Handle, HandleFunc or Mount); it could be a tool as POST, which is not among mcp.rest.methods"
			}
			out = append(out, Route{Method: "ANY", Pattern: p, Kind: Skipped, Reasons: []string{reason}})
		}
	}
	for _, rt := range all {
		if everyMethod(byPattern[rt.Pattern]) && (rt.Method != http.MethodPost || strings.Contains(rt.Pattern, "*") || !asked(rt.Method, rt.Pattern, methods, names)) {
			continue // the ANY row speaks for it
		}
		classifyREST(&rt, o, methods, names)
		out = append(out, rt)
	}
	aliases(out)
	collisions(out)
	suggest(out)
	return out, names.unused(out)
}

// everyMethod reports whether a pattern is served for every method, as
// Handle and Mount register it.
func everyMethod(methods []string) bool {
	return !slices.ContainsFunc(anyMethod, func(m string) bool { return !slices.Contains(methods, m) })
}

// classifyREST sets rt's Kind, Name and the rest, for the REST reading.
func classifyREST(rt *Route, o Options, methods []string, names *keyed) {
	p := rt.Pattern
	if strings.Contains(p, "*") {
		rt.Kind, rt.Reasons = Skipped, []string{"a wildcard route serves every path under its prefix; it has no fixed path to call"}
		return
	}
	if seg := strings.TrimPrefix(p, "/"); slices.Contains(o.Reserved, seg) {
		rt.Kind, rt.Name = ReservedRoute, seg
		return
	}
	if !asked(rt.Method, p, methods, names) {
		rt.Kind, rt.Reasons = Skipped, []string{notAsked(rt.Method)}
		return
	}
	if param, ok := catchAllParam(p); ok && rt.Method == http.MethodPost {
		rt.Kind, rt.Param = CatchAll, param
		judge(rt, o.Mode, o.Transparent)
		return
	}
	parts, err := pattern.Parse(p)
	if err != nil {
		rt.Kind, rt.Reasons = Skipped, []string{err.Error()}
		return
	}
	for _, pt := range parts {
		if pt.Name != "" {
			rt.Params = append(rt.Params, Param{Name: pt.Name, Regexp: pt.Regexp})
		}
	}
	rt.Hints = hintsFor(rt.Method)
	leave := nameREST(rt, o, names)
	if rt.Name == "" {
		what := "the path has no ASCII letters or digits"
		if p == "/" {
			what = "the root route has no words"
		}
		rt.Kind, rt.Reasons = Skipped, []string{what + " to name a tool after; name it in mcp.rest.names to make it a tool"}
		return
	}
	if leave != "" {
		rt.Kind, rt.Reasons = Skipped, []string{leave}
		return
	}
	rt.Kind = Tool
	judge(rt, o.Mode, o.Transparent)
	refuseRESTName(rt, o)
}

// notAsked says why a route of method the REST reading was not asked for
// is no tool.
func notAsked(method string) string {
	switch {
	case method == http.MethodGet:
		return "GET routes are tools only when GET is among mcp.rest.methods, or the route is named in mcp.rest.names"
	case slices.Contains(restMethods, method):
		return method + " is not among mcp.rest.methods, and the route is not named in mcp.rest.names"
	default:
		return method + " routes are never tools"
	}
}

// nameREST names the tool of rt: as mcp.rest.names names it, else by the
// OpenAPI document's operationId, else by the naming rule. It returns why
// the document leaves the route off, or "" (a route names names is kept).
func nameREST(rt *Route, o Options, names *keyed) (leave string) {
	p := rt.Pattern
	var opID string
	if o.REST.Document != nil {
		opID, leave = o.REST.Document(rt)
	}
	switch {
	case names.lookup(rt.Method, p) != "":
		rt.Name, rt.NameFrom = names.lookup(rt.Method, p), NameFromConfig
		leave = ""
	case opID != "":
		rt.Name, rt.NameFrom = opID, NameFromOperationID
	default:
		rt.Name, rt.NameFrom = RESTName(rt.Method, p), NameFromRule
		if rt.Name != "" && rt.Method == http.MethodPost && rt.Name == strings.TrimPrefix(p, "/") {
			rt.NameFrom = NameFromPath
		}
	}
	return leave
}

// refuseRESTName refuses the tool rt of a name that is not valid, or is
// reserved, with the fix: naming it in mcp.rest.names.
func refuseRESTName(rt *Route, o Options) {
	key := rt.Method + " " + rt.Pattern
	var bad string
	switch {
	case ValidName(rt.Name) != nil:
		bad = ValidName(rt.Name).Error()
	case slices.Contains(o.Reserved, rt.Name):
		bad = fmt.Sprintf("tool name %q is reserved (%s)", rt.Name, strings.Join(o.Reserved, ", "))
	default:
		return
	}
	if rt.NameFrom == NameFromOperationID {
		bad += " (the OpenAPI operationId)"
	}
	rt.Verdict, rt.Reasons = Refused, []string{bad}
	rt.Fix, rt.suggest = fmt.Sprintf("name the route in mcp.rest.names, e.g. %q: %s", key, suggested), suggestName(rt.Name+"_tool")
}

// asked reports whether the route method p is to be a tool: its method is
// among methods, or it is one of the REST methods and names names it.
func asked(method, p string, methods []string, names *keyed) bool {
	return slices.Contains(methods, method) || slices.Contains(restMethods, method) && names.has(method, p)
}

// keyed holds a map by "METHOD /pattern" and finds a route's entry in it,
// exactly or with chi regexps and a trailing slash left out.
type keyed struct {
	exact map[string]string // "METHOD pattern" as given, method upper-cased
	loose map[string]string // the same, patterns loosened
	keys  map[string]string // loose key → the key as given, for reports
	used  map[string]bool   // loose keys a route used
}

func newKeyed(m map[string]string) *keyed {
	k := &keyed{exact: map[string]string{}, loose: map[string]string{}, keys: map[string]string{}, used: map[string]bool{}}
	for _, key := range slices.Sorted(maps.Keys(m)) {
		method, p, _ := pattern.SplitKey(key)
		p = pattern.Join("", p) // a pattern as chi.Walk gives it, "/api/*/avatar"
		k.exact[method+" "+p] = m[key]
		l := method + " " + pattern.Key(p)
		k.loose[l], k.keys[l] = m[key], key
	}
	return k
}

// lookup returns the entry for the route, or "".
func (k *keyed) lookup(method, p string) string {
	l := method + " " + pattern.Key(p)
	if v, ok := k.exact[method+" "+p]; ok {
		k.used[l] = true
		return v
	}
	if v, ok := k.loose[l]; ok {
		k.used[l] = true
		return v
	}
	return ""
}

// has reports whether k has an entry for the route, without marking it
// used.
func (k *keyed) has(method, p string) bool {
	_, exact := k.exact[method+" "+p]
	_, loose := k.loose[method+" "+pattern.Key(p)]
	return exact || loose
}

// unused reports the keys that named no tool route, and why.
func (k *keyed) unused(routes []Route) []error {
	var errs []error
	for _, l := range slices.Sorted(maps.Keys(k.keys)) {
		if k.used[l] {
			continue
		}
		err := &RefusedError{Route: k.keys[l], Reason: "mcp.rest.names names a route the router does not have", Fix: "use a route as the report lists it: the method, a space and the pattern"}
		if i := slices.IndexFunc(routes, func(rt Route) bool { return rt.Method+" "+pattern.Key(rt.Pattern) == l }); i >= 0 {
			rt := routes[i]
			why := rt.Kind.String()
			if len(rt.Reasons) > 0 {
				why += ": " + rt.Reasons[0]
			}
			err.Reason, err.Fix = "mcp.rest.names names a route that is not a tool ("+why+")", "remove the name"
		}
		errs = append(errs, err)
	}
	return errs
}
