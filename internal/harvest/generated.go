package harvest

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/genfacts"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
	"github.com/mcpdoor/mcpdoor/internal/pattern"
	"github.com/mcpdoor/mcpdoor/internal/typeschema"
)

// genCommand is the command a stale or unreadable generated file asks for.
const genCommand = "go run github.com/mcpdoor/mcpdoor/cmd/mcpdoor gen ./... (or go generate ./...) from the module's root"

// Register records the facts that mcpdoor gen read from the package of
// the generated file file (autoexpose.Generated).
func Register(file, facts string, types ...reflect.Type) {
	p := &genPackage{file: file, dir: path.Dir(file), types: types}
	p.facts, p.err = genfacts.Decode(facts)
	genRegistry.Lock()
	genRegistry.pkgs = append(genRegistry.pkgs, p)
	genRegistry.Unlock()
}

// genRegistry holds what every generated file of the program recorded.
var genRegistry struct {
	sync.Mutex
	pkgs []*genPackage
}

// A genPackage is one generated file's facts.
type genPackage struct {
	// file is the generated file's path as the runtime names it: absolute,
	// or under -trimpath the package path and the file name. dir is its
	// directory, that of every handler of the package in the same form.
	file, dir string
	facts     *genfacts.File
	types     []reflect.Type
	err       error // why facts cannot be read
}

// A genHandler is the facts of one handler, as a tool's parts, with
// those of the route it serves: its registration's (a wrapped handler's
// route, a generic middleware's body) and its middlewares'.
type genHandler struct {
	pkg   *genPackage
	facts *genfacts.Handler
	// mwBody is the body a middleware of the route decodes, from the file
	// mwPkg: the route's registration's (Validate[T]), or a middleware's
	// own facts (a context-loading middleware).
	mwBody *genfacts.Body
	mwPkg  *genPackage
}

// A genRoute is a route as its registration's generated file says.
type genRoute struct {
	pkg   *genPackage
	facts *genfacts.Route
}

// GenIndex finds the generated facts of a route's handler. One is made
// for each Install, from the files recorded by then.
type GenIndex struct {
	byName map[string]*genHandler // named functions and methods, by runtime name
	byAt   map[string]*genHandler // every handler, by dir/file:line
	dirs   map[string]*genPackage
	pkgs   map[string]*genPackage // by the runtime's package prefix
	routes []genRoute             // routes as their registrations say
	// stale collects, by generated file, why a tool goes without its
	// handler's facts, for one warning a file.
	stale map[*genPackage][]string
	// resolve, when set, finds the handler that serves a route whose
	// endpoint is a whole wrapped handler (Wrap): nil when it cannot.
	resolve func(*detect.Route) http.Handler
}

// NewGenIndex indexes the generated files recorded so far, and warns of
// those it cannot read; with a nil log it warns of nothing, for an index
// read twice at Install (the one that harvests the tools warns).
func NewGenIndex(log *slog.Logger) *GenIndex {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	genRegistry.Lock()
	pkgs := slices.Clone(genRegistry.pkgs)
	genRegistry.Unlock()
	g := &GenIndex{byName: map[string]*genHandler{}, byAt: map[string]*genHandler{}, dirs: map[string]*genPackage{}, pkgs: map[string]*genPackage{},
		stale: map[*genPackage][]string{}}
	for _, p := range pkgs {
		if p.err != nil {
			log.Warn("mcpdoor: a generated file cannot be read, so its handlers' tools go without its facts: "+p.err.Error()+"; fix: rerun "+genCommand,
				"file", p.file)
			continue
		}
		g.dirs[p.dir] = p
		g.pkgs[p.facts.Package] = p
		for i := range p.facts.Handlers {
			h := &genHandler{pkg: p, facts: &p.facts.Handlers[i]}
			if h.facts.Func != "" {
				g.byName[h.facts.Func] = h
			}
			g.byAt[p.dir+"/"+h.facts.At] = h
		}
		for i := range p.facts.Routes {
			g.routes = append(g.routes, genRoute{pkg: p, facts: &p.facts.Routes[i]})
		}
	}
	return g
}

// Wrapping has g find the handler of a route whose endpoint is the whole
// wrapped handler h (Wrap) among h's own routes.
func (g *GenIndex) Wrapping(h http.Handler) *GenIndex {
	g.resolve = func(rt *detect.Route) http.Handler { return wrappedEndpoint(h, rt.Method, rt.Pattern) }
	return g
}

// route returns what the code that registers rt says of it: the route of
// its method and full pattern; else, for a registration whose router gen
// could not place, the one route whose pattern ends as rt's does.
func (g *GenIndex) route(rt *detect.Route) *genRoute {
	method := func(r *genRoute) bool { return r.facts.Method == rt.Method || r.facts.Method == "" }
	var byKey, bySuffix []*genRoute
	for i := range g.routes {
		r := &g.routes[i]
		switch {
		case !method(r):
		case !r.facts.Partial && r.facts.Pattern == rt.Pattern:
			return r
		case !r.facts.Partial && pattern.Key(r.facts.Pattern) == pattern.Key(rt.Pattern):
			byKey = append(byKey, r)
		case r.facts.Partial && strings.HasSuffix(pattern.Key(rt.Pattern), pattern.Key(r.facts.Pattern)):
			bySuffix = append(bySuffix, r)
		}
	}
	switch {
	case len(byKey) == 1:
		return byKey[0]
	case len(byKey) == 0 && len(bySuffix) == 1:
		return bySuffix[0]
	}
	return nil
}

// routeHandler returns the facts of the handler a route's registration
// names; for one gen could not tell, facts that say why.
func (g *GenIndex) routeHandler(r *genRoute) *genHandler {
	f := r.facts
	var h *genHandler
	switch {
	case f.Func != "":
		h = g.byName[f.Func]
	case f.Closure != "":
		if p := g.pkgs[f.Pkg]; p != nil {
			h = g.byAt[p.dir+"/"+f.Closure]
		}
	}
	if h == nil {
		note := f.Note
		if note == "" {
			note = "the generated files do not describe the handler its registration at " + f.At + " names"
		}
		h = &genHandler{pkg: r.pkg, facts: &genfacts.Handler{At: f.At, Note: note}}
	} else {
		c := *h
		h = &c
	}
	if f.Body != nil {
		h.mwBody, h.mwPkg = f.Body, r.pkg
	}
	return h
}

// middlewareBody returns the body a middleware of rt decodes that
// generated facts describe (a context-loading middleware's), and the file
// of its facts.
func (g *GenIndex) middlewareBody(rt *detect.Route) (*genfacts.Body, *genPackage) {
	for _, mw := range rt.Middlewares {
		id, ok := funcIdentity(reflect.ValueOf(mw).Pointer())
		if !ok {
			continue
		}
		if h := g.find(id); h != nil && h.facts.Middleware && h.facts.Body != nil {
			return h.facts.Body, h.pkg
		}
	}
	return nil, nil
}

// of returns the facts of the handler that serves rt as the tool named
// tool, or nil. A handler of a generated package that the file does not
// describe as it stands (it moved, or is newer than the file) is recorded
// as stale, and has none.
func (g *GenIndex) of(rt *detect.Route, tool string) *genHandler {
	h, id, ok := g.lookup(rt)
	if h != nil || !ok {
		return h
	}
	if p := g.owner(id); p != nil {
		g.stale[p] = append(g.stale[p], fmt.Sprintf("%s (%s, %s)", tool, rt.Method+" "+rt.Pattern, id.why(p)))
	}
	return nil
}

// peek returns the facts of the handler that serves rt, as of does,
// without noting a stale file: for deciding, before the tools are
// harvested, whether a route is a browser's (see leftOff).
func (g *GenIndex) peek(rt *detect.Route) *genHandler {
	h, _, _ := g.lookup(rt)
	return h
}

// lookup returns the facts of the handler that serves rt, or nil and, when
// the handler is a function the facts could describe, its identity (ok).
func (g *GenIndex) lookup(rt *detect.Route) (h *genHandler, id funcID, ok bool) {
	if g == nil || len(g.dirs) == 0 {
		return nil, funcID{}, false
	}
	ep := rt.Endpoint
	if g.resolve != nil {
		ep = g.resolve(rt)
	}
	if _, typed := ep.(Typed); typed || ep == nil {
		return nil, funcID{}, false
	}
	if r := g.route(rt); r != nil {
		return g.routeHandler(r), funcID{}, false
	}
	if id, ok = identify(ep); !ok {
		return nil, id, false
	}
	if h = g.find(id); h != nil && (h.facts.Middleware || h.facts.Wraps) {
		return nil, id, false
	}
	if h != nil && h.facts.Delegates {
		// A wrapper's own facts say nothing of the handler it serves.
		name := strings.TrimPrefix(h.facts.Func, h.pkg.facts.Package+".")
		if name == "" {
			name = "the closure at " + h.facts.At
		}
		return &genHandler{pkg: h.pkg, facts: &genfacts.Handler{At: h.facts.At, Note: "the route's handler, " + name +
			", serves another handler it is given, and no generated file says which for this route (its registration is not one gen could read): declare the tool in Config.Declared"}}, id, true
	}
	if h != nil {
		if b, p := g.middlewareBody(rt); b != nil {
			c := *h
			c.mwBody, c.mwPkg, h = b, p, &c
		}
	}
	return h, id, true
}

// find returns the facts the file holds for the function id names, if
// they still describe it: a named function must be where the file says
// (a method value's wrapper tells nothing of its method's place).
func (g *GenIndex) find(id funcID) *genHandler {
	if h, ok := g.byName[id.name]; ok {
		if id.method || h.pkg.dir+"/"+h.facts.At == id.at() {
			return h
		}
		return nil
	}
	if id.method {
		return nil
	}
	return g.byAt[id.at()]
}

// owner returns the generated file of the package that id's function is
// in, or nil when that package has none.
func (g *GenIndex) owner(id funcID) *genPackage {
	if !id.method {
		if p, ok := g.dirs[path.Dir(id.file)]; ok {
			return p
		}
	}
	return g.pkgs[id.pkg()]
}

// middlewareQuery returns the query parameters the route's middlewares
// read, those generated files describe.
func (g *GenIndex) middlewareQuery(rt *detect.Route) []genfacts.Param {
	if g == nil || len(g.dirs) == 0 {
		return nil
	}
	var out []genfacts.Param
	for _, mw := range rt.Middlewares {
		id, ok := funcIdentity(reflect.ValueOf(mw).Pointer())
		if !ok {
			continue
		}
		if h := g.find(id); h != nil && h.facts.Middleware {
			out = append(out, h.facts.Query...)
		}
	}
	return out
}

// WarnStale warns, once for each generated file, of the tools that go
// without their handlers' facts because the file no longer matches them.
func (g *GenIndex) WarnStale(log *slog.Logger) {
	if g == nil {
		return
	}
	for p, tools := range g.stale {
		log.Warn("mcpdoor: a generated file is stale: it does not describe these tools' handlers as they are now, so they go without its facts (description, schemas); fix: rerun "+genCommand,
			"file", p.file, "tools", strings.Join(tools, "; "))
	}
}

// A funcID is what the runtime tells of a handler's function.
type funcID struct {
	name   string // the runtime's name, without a method value's "-fm"
	method bool   // a method value (its wrapper's place is <autogenerated>)
	file   string
	line   int
}

// at returns the function's place as a GenIndex keys it.
func (id funcID) at() string { return id.file + ":" + strconv.Itoa(id.line) }

// pkg returns the runtime's package prefix of the function's name: what
// comes before the first dot after the last slash.
func (id funcID) pkg() string {
	slash := strings.LastIndex(id.name, "/")
	dot := strings.Index(id.name[slash+1:], ".")
	if dot < 0 {
		return ""
	}
	return id.name[:slash+1+dot]
}

// why says why the file p holds no facts for id.
func (id funcID) why(p *genPackage) string {
	short := strings.TrimPrefix(id.name, p.facts.Package+".")
	if h, ok := handlerOf(p.facts, id.name); ok && !id.method {
		return fmt.Sprintf("%s is at %s:%d, the file has it at %s", short, path.Base(id.file), id.line, h.At)
	}
	if id.method || !strings.Contains(path.Base(id.name), ".func") {
		return short + " is not in the file"
	}
	return fmt.Sprintf("the closure at %s:%d is not in the file", path.Base(id.file), id.line)
}

// identify returns the identity of handler h's function: an
// http.HandlerFunc's own, or the ServeHTTP method of h's type.
func identify(h http.Handler) (funcID, bool) {
	if f, ok := h.(http.HandlerFunc); ok {
		return funcIdentity(reflect.ValueOf(f).Pointer())
	}
	m, ok := reflect.TypeOf(h).MethodByName("ServeHTTP")
	if !ok {
		return funcID{}, false
	}
	id, ok := funcIdentity(m.Func.Pointer())
	id.method = true // a wrapper may stand for a value receiver's method
	return id, ok
}

// funcIdentity returns the identity of the function at pc.
func funcIdentity(pc uintptr) (funcID, bool) {
	fn := runtime.FuncForPC(pc)
	if fn == nil {
		return funcID{}, false
	}
	file, line := fn.FileLine(fn.Entry())
	name, method := strings.CutSuffix(fn.Name(), "-fm")
	return funcID{name: name, method: method, file: file, line: line}, true
}

// handler returns the facts of the named function.
func handlerOf(f *genfacts.File, name string) (*genfacts.Handler, bool) {
	for i := range f.Handlers {
		if f.Handlers[i].Func == name {
			return &f.Handlers[i], true
		}
	}
	return nil, false
}

// body returns the input schema of the body the handler decodes, and why
// there is none when it decodes one the schema cannot stand for.
// browser says why the handler is a browser's, not an API's — it reads
// a form, or answers a page and no JSON — or "".
func (h *genHandler) browser() string {
	switch {
	case h == nil:
		return ""
	case h.facts.Form:
		return "mcpdoor gen read that it reads a form, a page's for a browser"
	case slices.Contains(h.facts.Answers, "html") && !slices.Contains(h.facts.Answers, "json"):
		return "mcpdoor gen read that it answers a page (text/html) and no JSON, for a browser"
	}
	return ""
}

// A body that is not an object (an array of strings) is returned as it
// is; the tool then takes it as its argument "body" (see bodyInput). A
// body a middleware decodes requires nothing: its checks are the
// middleware's, which some callers may skip, and only the handler's own
// make a member required.
func (h *genHandler) body() (*jsonschema.Schema, string) {
	b, p := h.facts.Body, h.pkg
	if b == nil && h.mwBody != nil {
		b, p = &genfacts.Body{Type: h.mwBody.Type, Strict: h.mwBody.Strict}, h.mwPkg
	}
	if b == nil {
		if h.facts.Note != "" {
			return nil, "generated: " + h.facts.Note
		}
		return nil, ""
	}
	t, why := p.typ(b.Type, h.facts.Note)
	if t == nil {
		return nil, why
	}
	s, err := typeschema.Decoded(t, b.Strict)
	if err != nil {
		return nil, fmt.Sprintf("generated: the body's type %s has no schema: %v", t, err)
	}
	for _, path := range b.Required {
		require(s, path)
	}
	return s, ""
}

// readsNoBody reports whether the facts say the handler reads no body at
// all: none is decoded, by it or a middleware, no form, and no call gen
// could not follow that might.
func (h *genHandler) readsNoBody() bool {
	return h != nil && h.facts.Body == nil && h.mwBody == nil && !h.facts.Form && h.facts.Note == ""
}

// require marks the members on path required, from the root down, as far
// as the schema has them (a type changed since the file was generated
// may not).
func require(s *jsonschema.Schema, path []string) {
	for _, name := range path {
		p := s.Properties[name]
		if p == nil {
			return
		}
		if !slices.Contains(s.Required, name) {
			s.Required = append(s.Required, name)
		}
		s = p
	}
}

// output returns the output schema of what the handler answers on
// success, when that is a JSON object; and, for a JSON array, a sentence
// saying so for the description, since a tool's structured output is an
// object.
func (h *genHandler) output() (*jsonschema.Schema, string) {
	if h.facts.Output == nil {
		return nil, ""
	}
	t, _ := h.pkg.typ(*h.facts.Output, "")
	if t == nil {
		return nil, ""
	}
	s, err := typeschema.Encoded(t)
	if err != nil {
		return nil, ""
	}
	switch {
	case s.Type == "object":
		return s, ""
	case hasType(s, "array") && s.Items != nil && len(s.Items.Properties) > 0:
		return nil, "Answers a JSON array of objects with " + strings.Join(propertyNames(s.Items), ", ") + "."
	case hasType(s, "array"):
		return nil, "Answers a JSON array."
	}
	return nil, ""
}

// query returns the query parameters the handler reads, with those of
// the route's middlewares (mw), as OpenAPI parameters are.
func (h *genHandler) query(mw []genfacts.Param) []openapi.Param {
	var out []openapi.Param
	for _, p := range append(slices.Clip(h.facts.Query), mw...) {
		if slices.ContainsFunc(out, func(q openapi.Param) bool { return q.Name == p.Name }) {
			continue
		}
		s := &jsonschema.Schema{Type: "string"}
		switch p.Type {
		case "integer", "number", "boolean":
			s.Type = p.Type
		case "array":
			// Read with Query()["x"]: one value or several.
			s = &jsonschema.Schema{Types: []string{"string", "array"}, Items: &jsonschema.Schema{Type: "string"}}
		}
		out = append(out, openapi.Param{Name: p.Name, In: "query", Required: p.Required, Schema: s, Description: p.Doc})
	}
	return out
}

// outputNote says why the tool has no output schema from the facts, for
// the report, or "".
func (h *genHandler) outputNote() string {
	if h == nil || h.facts.OutNote == "" {
		return ""
	}
	return "generated: no output schema: " + h.facts.OutNote
}

// typ returns the file's type i, or why there is none (note: the facts'
// own).
func (p *genPackage) typ(i int, note string) (reflect.Type, string) {
	if i < 0 || i >= len(p.types) {
		if note != "" {
			return nil, "generated: " + note
		}
		return nil, "generated: the generator could not name the body's type"
	}
	return p.types[i], ""
}

// description returns the doc comment, with the sentence of an array
// answer after it.
func (h *genHandler) description(arrayNote string) string {
	switch {
	case arrayNote == "":
		return h.facts.Doc
	case h.facts.Doc == "":
		return arrayNote
	}
	return h.facts.Doc + "\n\n" + arrayNote
}

// fillTool sets what the facts give of a tool route's tool and nothing
// gave before them (the OpenAPI document): its input schema, output schema
// and description. A typed handler or a declaration sets its own after.
func (h *genHandler) fillTool(t *Spec) {
	if h == nil {
		return
	}
	out, arrayNote := h.output()
	if t.SchemaSource == SourcePermissive {
		body, note := h.body()
		if body != nil {
			t.InputSchema = body
		}
		t.SchemaSource, t.Note = SourceGenerated, note
	}
	if t.OutputSchema == nil {
		t.OutputSchema = out
		if out == nil && arrayNote == "" {
			t.Note = joinNotes(t.Note, h.outputNote())
		}
	}
	if t.Description == "" {
		t.Description = h.description(arrayNote)
	}
}

func propertyNames(s *jsonschema.Schema) []string {
	names := slices.Clone(s.PropertyOrder)
	for _, n := range sortedKeys(s.Properties) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

func hasType(s *jsonschema.Schema, typ string) bool {
	return s.Type == typ || slices.Contains(s.Types, typ)
}

// withoutParams returns a generated body schema without the members named
// like the route's path parameters, and why, with note: a tool's
// arguments are one object, where the name is the parameter's. Facts read
// from the code are not a declaration: they describe what they can,
// rather than fail Install.
func withoutParams(body *jsonschema.Schema, note string, params []detect.Param) (*jsonschema.Schema, string) {
	if body == nil {
		return nil, note
	}
	var dropped []string
	for _, p := range params {
		if _, ok := body.Properties[p.Name]; ok {
			dropped = append(dropped, p.Name)
		}
	}
	if len(dropped) == 0 {
		return body, note
	}
	body = rootClone(body)
	for _, name := range dropped {
		delete(body.Properties, name)
		body.Required = slices.DeleteFunc(body.Required, func(r string) bool { return r == name })
		body.PropertyOrder = slices.DeleteFunc(body.PropertyOrder, func(r string) bool { return r == name })
	}
	why := "generated: the body's member " + strings.Join(dropped, ", ") + " is named like a path parameter, which the argument fills; the member is not Advertised"
	if note != "" {
		why = note + "; " + why
	}
	return body, why
}

// unclashed returns the generated query parameters that are named like
// neither a path parameter nor a member of the generated body: the
// argument of that name is theirs.
func unclashed(query []openapi.Param, params []detect.Param, body *jsonschema.Schema) []openapi.Param {
	return slices.DeleteFunc(query, func(q openapi.Param) bool {
		if slices.ContainsFunc(params, func(p detect.Param) bool { return p.Name == q.Name }) {
			return true
		}
		return slices.Contains(properties(body), q.Name)
	})
}

// wrappedEndpoint returns the handler that wrapped handler h serves route
// method p with, when h is an *http.ServeMux or a chi router that serves
// it under that very pattern; else nil.
func wrappedEndpoint(h http.Handler, method, p string) http.Handler {
	switch h := h.(type) {
	case *http.ServeMux:
		var path []string
		for _, seg := range strings.Split(strings.Replace(p, "{$}", "", 1), "/") {
			if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
				seg = "x"
			}
			path = append(path, seg)
		}
		ep, served := h.Handler(&http.Request{Method: method, URL: &url.URL{Path: strings.Join(path, "/")}, Host: "localhost"})
		if _, sp, ok := strings.Cut(served, " "); ok {
			served = sp
		}
		if strings.Replace(served, "{$}", "", 1) != strings.Replace(p, "{$}", "", 1) {
			return nil
		}
		return ep
	case chi.Routes:
		var ep http.Handler
		chi.Walk(h, func(m, route string, handler http.Handler, mws ...func(http.Handler) http.Handler) error {
			if m == method && pattern.Key(route) == pattern.Key(p) && len(mws) == 0 {
				ep = handler
			}
			return nil
		})
		return ep
	}
	return nil
}

// joinNotes joins the report's notes a and b.
func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
