package gen

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/genfacts"
	"github.com/mcpdoor/mcpdoor/internal/pattern"
)

// The running program knows a route's handler by its function, and that
// is not always the handler that serves it:
//
//	r.Get("/items", wrap.NewHandler(api.List, logger).ServeHTTP)
//	r.Get("/items/{id}", wrap.E(api.Get))
//	r.With(middleware.Validate[form.ItemForm]).Post("/items", api.Create)
//
// Every route of the first shape runs (*wrap.Handler).ServeHTTP, every
// one of the second E's closure, and a generic middleware's instances
// share one name. So gen reads the code that registers the routes, as a
// flow of router values (chi.NewRouter, Route, Group, With, Mount, a
// function handed a router), and writes, for each route whose handler is
// such a wrapper or whose middleware decodes its body, the route's method
// and full pattern with the handler that serves it: the value the wrapper
// was given, followed through the wrapper's code (which parameter ends
// up serving the request), not through its name.

// A routeSite is a registration the router pass found.
type routeSite struct {
	pkg     *pkg // the package of the file that registers it
	at      token.Pos
	method  string // "" for any
	pattern string // as chi.Walk gives it
	partial bool   // the pattern's start is not known: a router of unknown place
	handler handlerRef
	body    types.Type // the body a generic middleware of the route decodes, or nil
	strict  bool
	note    string // why the handler is not known
}

// A handlerRef is a handler: a function or method, or a closure.
type handlerRef struct {
	fn      *types.Func
	closure *ast.FuncLit
	pkg     *pkg // the closure's
}

func (h handlerRef) ok() bool { return h.fn != nil || h.closure != nil }

// A routerVal is a router as the code makes it: the pattern its routes
// are joined to, as pattern.Join takes it ("/api/*"), and the generic
// middlewares its routes run.
type routerVal struct {
	parent string
	known  bool // parent is the router's from the root
	mws    []mwExpr
}

// An mwExpr is a middleware as the code that applies it writes it.
type mwExpr struct {
	x    ast.Expr
	info *types.Info
}

func (rv routerVal) mount(p string) routerVal {
	return routerVal{parent: rv.parent + strings.TrimSuffix(p, "/") + "/*", known: rv.known, mws: rv.mws}
}

func (rv routerVal) with(mws []mwExpr) routerVal {
	out := rv
	out.mws = append(append([]mwExpr{}, rv.mws...), mws...)
	return out
}

// A routeEnv is one function being walked for routes.
type routeEnv struct {
	f     *frame
	bind  map[*types.Var]routerVal // router parameters, as the caller gives them
	base  *routerVal               // where a router the function makes is mounted
	uses  map[*types.Var][]mwExpr  // a router variable's Use, so far
	mount map[*types.Var]mountSite // local routers that a Mount places
	outer *routeEnv                // the function a closure is in
	depth int
}

type mountSite struct {
	router ast.Expr
	prefix string
}

// maxRouteDepth is how deep the router pass follows a router handed to
// functions.
const maxRouteDepth = 6

// routeSites returns the routes of the module whose handler the running
// program cannot tell, or whose generic middleware decodes the body.
func (a *analyzer) routeSites() []routeSite {
	a.sites = map[siteKey]*routeSite{}
	mounted := a.mountedFuncs()
	for _, p := range a.module {
		for _, file := range p.Syntax {
			for _, d := range file.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func)
				if !ok || mounted[fn] || fd.Type.TypeParams != nil {
					continue
				}
				a.walkRoutes(p, fn.Signature(), fd.Body, nil, nil, nil, 0)
			}
		}
	}
	// A registration reached from where its router's place is known keeps
	// that; another reached only from elsewhere keeps its partial pattern.
	known := map[token.Pos]bool{}
	for _, s := range a.sites {
		if !s.partial {
			known[s.at] = true
		}
	}
	var out []routeSite
	for _, s := range a.sites {
		if s.partial && known[s.at] {
			continue
		}
		out = append(out, *s)
	}
	return out
}

type siteKey struct {
	at      token.Pos
	method  string
	pattern string
}

// mountedFuncs returns the functions whose router a Mount or a Route
// places, or that are handed a router: walked from there, not on their
// own.
func (a *analyzer) mountedFuncs() map[*types.Func]bool {
	out := map[*types.Func]bool{}
	for _, p := range a.module {
		for _, file := range p.Syntax {
			ast.Inspect(file, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
				if ok && isRouter(p.TypesInfo.TypeOf(sel.X)) && (sel.Sel.Name == "Mount" || sel.Sel.Name == "Route") && len(call.Args) == 2 {
					if fn := funcOf(p.TypesInfo, call.Args[1]); fn != nil {
						out[fn] = true
					}
					return true
				}
				if fn := funcOf(p.TypesInfo, call.Fun); fn != nil {
					for _, arg := range call.Args {
						if isRouter(p.TypesInfo.TypeOf(arg)) {
							out[fn] = true
						}
					}
				}
				return true
			})
		}
	}
	return out
}

// funcOf returns the function x names or calls (F, pkg.F, v.M, F(...)),
// or nil.
func funcOf(info *types.Info, x ast.Expr) *types.Func {
	x = ast.Unparen(x)
	if call, ok := x.(*ast.CallExpr); ok {
		x = ast.Unparen(call.Fun)
	}
	var obj types.Object
	switch e := x.(type) {
	case *ast.Ident:
		obj = info.Uses[e]
	case *ast.SelectorExpr:
		if sel := info.Selections[e]; sel != nil {
			obj = sel.Obj()
		} else {
			obj = info.Uses[e.Sel]
		}
	}
	fn, _ := obj.(*types.Func)
	if fn != nil {
		fn = fn.Origin()
	}
	return fn
}

// isRouter reports whether t is a chi router (chi.Router, *chi.Mux) or an
// *http.ServeMux.
func isRouter(t types.Type) bool {
	return isChi(t) || t != nil && isNamed(deref(t), "net/http", "ServeMux")
}

func isChi(t types.Type) bool {
	if t == nil {
		return false
	}
	for _, path := range []string{"github.com/go-chi/chi/v5", "github.com/go-chi/chi"} {
		if isNamed(t, path, "Router") || isNamed(deref(t), path, "Mux") {
			return true
		}
	}
	return false
}

// walkRoutes walks one function's body (a FuncDecl's or a closure's),
// its router parameters bound as bind says.
func (a *analyzer) walkRoutes(p *pkg, sig *types.Signature, body *ast.BlockStmt, bind map[*types.Var]routerVal, base *routerVal, outer *routeEnv, depth int) {
	f := a.newFrame(p, sig, depth)
	f.body = body
	f.collectDefs(body)
	env := &routeEnv{f: f, bind: bind, base: base, uses: map[*types.Var][]mwExpr{}, mount: map[*types.Var]mountSite{}, outer: outer, depth: depth}
	// Where a local router is mounted, before its routes are registered.
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Mount" && isChi(f.info.TypeOf(sel.X)) && len(call.Args) == 2 {
				if v := f.localVar(call.Args[1]); v != nil {
					if k := f.constString(call.Args[0]); k.ok && k.param < 0 {
						env.mount[v] = mountSite{router: sel.X, prefix: k.s}
					}
				}
			}
		}
		return true
	})
	env.walk(body)
}

// walk reads the registrations of node.
func (env *routeEnv) walk(node ast.Node) {
	f := env.f
	ast.Inspect(node, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if ok && isRouter(f.info.TypeOf(sel.X)) {
			return env.routerCall(call, sel)
		}
		if ok && sel.Sel.Name != "" && isPackage(f.info, sel.X, "net/http") && (sel.Sel.Name == "HandleFunc" || sel.Sel.Name == "Handle") {
			env.muxRoute(call, routerVal{known: true})
			return true
		}
		env.handOn(call)
		return true
	})
}

func isPackage(info *types.Info, x ast.Expr, path string) bool {
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return false
	}
	pn, ok := info.Uses[id].(*types.PkgName)
	return ok && pn.Imported().Path() == path
}

// routerCall reads a call of a router's method, and reports whether its
// arguments are to be walked on.
func (env *routeEnv) routerCall(call *ast.CallExpr, sel *ast.SelectorExpr) bool {
	f := env.f
	arg := func(i int) ast.Expr {
		if i < len(call.Args) {
			return call.Args[i]
		}
		return nil
	}
	if !isChi(f.info.TypeOf(sel.X)) { // an http.ServeMux
		if sel.Sel.Name == "Handle" || sel.Sel.Name == "HandleFunc" {
			env.muxRoute(call, env.routerOf(sel.X))
		}
		return true
	}
	rv := env.routerOf(sel.X)
	switch name := sel.Sel.Name; name {
	case "Get", "Head", "Post", "Put", "Patch", "Delete", "Connect", "Options", "Trace":
		env.register(call, rv, strings.ToUpper(name), arg(0), arg(1))
	case "Method", "MethodFunc":
		if m := f.constString(arg(0)); m.ok && m.param < 0 {
			env.register(call, rv, strings.ToUpper(m.s), arg(1), arg(2))
		}
	case "Handle", "HandleFunc":
		env.register(call, rv, "", arg(0), arg(1))
	case "Use":
		env.use(call, sel)
	case "Route":
		if k := f.constString(arg(0)); k.ok && k.param < 0 && arg(1) != nil {
			env.handTo(arg(1), rv.mount(k.s))
			return false
		}
	case "Group":
		if arg(0) != nil {
			env.handTo(arg(0), rv)
			return false
		}
	case "Mount":
		env.mountCall(rv, arg(0), arg(1))
	}
	return true
}

// use records the middlewares of a call of a router's Use on the
// variable or parameter the router is.
func (env *routeEnv) use(call *ast.CallExpr, sel *ast.SelectorExpr) {
	if v := env.f.localVar(sel.X); v != nil {
		env.uses[v] = append(env.uses[v], env.mwExprs(call.Args)...)
	} else if v := env.param(sel.X); v != nil {
		env.uses[v] = append(env.uses[v], env.mwExprs(call.Args)...)
	}
}

// mountCall reads a router's Mount of h at prefix: when h is what a call
// of the program's returns, that function's routes are read under it.
func (env *routeEnv) mountCall(rv routerVal, prefix, h ast.Expr) {
	f := env.f
	k := f.constString(prefix)
	if !k.ok || k.param >= 0 || h == nil {
		return
	}
	sub := rv.mount(k.s)
	if c, ok := f.origin(ast.Unparen(h)).(*ast.CallExpr); ok {
		if fn := funcOf(f.info, c); fn != nil && !isChiFunc(fn) {
			env.callee(fn, c, &sub)
		}
	}
}

// isChiFunc reports whether fn is chi's own (NewRouter, a router method).
func isChiFunc(fn *types.Func) bool {
	return fn.Pkg() != nil && strings.HasPrefix(fn.Pkg().Path(), "github.com/go-chi/chi")
}

// muxRoute reads an http.ServeMux registration: "GET /items/{id}".
func (env *routeEnv) muxRoute(call *ast.CallExpr, rv routerVal) {
	if len(call.Args) != 2 {
		return
	}
	k := env.f.constString(call.Args[0])
	if !k.ok || k.param >= 0 {
		return
	}
	method, path := "", k.s
	if m, rest, ok := strings.Cut(k.s, " "); ok {
		method, path = m, strings.TrimLeft(rest, " \t")
	}
	if i := strings.Index(path, "/"); i > 0 {
		path = path[i:] // a host
	}
	rv.parent = ""
	env.registerPattern(call, rv, method, path, call.Args[1])
}

// handTo walks fn, a function of a router (Route's, Group's), with the
// router rv.
func (env *routeEnv) handTo(fnExpr ast.Expr, rv routerVal) {
	f := env.f
	switch x := ast.Unparen(fnExpr).(type) {
	case *ast.FuncLit:
		sig, ok := f.info.TypeOf(x).(*types.Signature)
		if !ok || sig.Params().Len() != 1 || env.depth >= maxRouteDepth {
			return
		}
		f.a.walkRoutes(f.pkg, sig, x.Body, map[*types.Var]routerVal{sig.Params().At(0): rv}, nil, env, env.depth+1)
	default:
		if fn := funcOf(f.info, x); fn != nil {
			if d, ok := f.a.decls[fn]; ok && env.depth < maxRouteDepth && fn.Signature().Params().Len() == 1 {
				f.a.walkRoutes(d.pkg, fn.Signature(), d.decl.Body, map[*types.Var]routerVal{fn.Signature().Params().At(0): rv}, nil, nil, env.depth+1)
			}
		}
	}
}

// handOn follows a call of a module function that is handed routers.
func (env *routeEnv) handOn(call *ast.CallExpr) {
	f := env.f
	fn := funcOf(f.info, call.Fun)
	if fn == nil {
		return
	}
	if _, ok := f.a.decls[fn]; !ok {
		return
	}
	handed := false
	for _, x := range call.Args {
		if isRouter(f.info.TypeOf(x)) {
			handed = true
		}
	}
	if handed {
		env.callee(fn, call, nil)
	}
}

// callee walks fn, called by call, with the routers its arguments give
// its parameters, and base as the place of a router it makes.
func (env *routeEnv) callee(fn *types.Func, call *ast.CallExpr, base *routerVal) {
	f := env.f
	d, ok := f.a.decls[fn]
	if !ok || env.depth >= maxRouteDepth {
		return
	}
	sig := fn.Signature()
	bind := map[*types.Var]routerVal{}
	for i := 0; i < sig.Params().Len() && i < len(call.Args); i++ {
		if isRouter(f.info.TypeOf(call.Args[i])) {
			bind[sig.Params().At(i)] = env.routerOf(call.Args[i])
		}
	}
	f.a.walkRoutes(d.pkg, sig, d.decl.Body, bind, base, nil, env.depth+1)
}

// param returns the router parameter x names, in this function or the
// one a closure is in.
func (env *routeEnv) param(x ast.Expr) *types.Var {
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return nil
	}
	v, _ := env.f.info.ObjectOf(id).(*types.Var)
	for e := env; e != nil && v != nil; e = e.outer {
		if _, ok := e.bind[v]; ok {
			return v
		}
	}
	return nil
}

// routerOf returns the router x is: a variable's, or a call's.
func (env *routeEnv) routerOf(x ast.Expr) routerVal {
	switch e := ast.Unparen(x).(type) {
	case *ast.Ident:
		return env.routerOfVar(e)
	case *ast.CallExpr:
		return env.routerOfCall(e)
	}
	return routerVal{}
}

// routerOfVar returns the router the variable e is: as bound, or as its
// one assignment makes it, in the innermost environment that knows it.
func (env *routeEnv) routerOfVar(e *ast.Ident) routerVal {
	v, _ := env.f.info.ObjectOf(e).(*types.Var)
	if v == nil {
		return routerVal{}
	}
	for en := env; en != nil; en = en.outer {
		if rv, ok := en.bind[v]; ok {
			return rv.with(en.uses[v])
		}
		if defs := en.f.defs[v]; len(defs) == 1 && !defs[0].multi {
			rv := en.routerOfDef(v, defs[0].x)
			return rv.with(en.uses[v])
		}
	}
	return routerVal{}
}

// routerOfCall returns the router call e makes: a new one, or one of
// chi's With, Group and Route on another.
func (env *routeEnv) routerOfCall(e *ast.CallExpr) routerVal {
	f := env.f
	fn := funcOf(f.info, e)
	sel, isSel := ast.Unparen(e.Fun).(*ast.SelectorExpr)
	onChi := isSel && isChi(f.info.TypeOf(sel.X))
	switch {
	case fn != nil && isChiFunc(fn) && (fn.Name() == "NewRouter" || fn.Name() == "NewMux"):
		if env.base != nil {
			return *env.base
		}
		return routerVal{known: true}
	case onChi && sel.Sel.Name == "With":
		return env.routerOf(sel.X).with(env.mwExprs(e.Args))
	case onChi && sel.Sel.Name == "Group":
		return env.routerOf(sel.X)
	case onChi && sel.Sel.Name == "Route" && len(e.Args) > 0:
		if k := f.constString(e.Args[0]); k.ok && k.param < 0 {
			return env.routerOf(sel.X).mount(k.s)
		}
	case fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "net/http" && fn.Name() == "NewServeMux":
		return routerVal{known: true}
	}
	return routerVal{}
}

// routerOfDef returns the router a local variable v, assigned x once, is.
func (env *routeEnv) routerOfDef(v *types.Var, x ast.Expr) routerVal {
	if m, ok := env.mount[v]; ok {
		return env.routerOf(m.router).mount(m.prefix)
	}
	return env.routerOf(x)
}

// mwExprs returns middleware expressions as the router pass keeps them.
func (env *routeEnv) mwExprs(args []ast.Expr) []mwExpr {
	out := make([]mwExpr, len(args))
	for i, x := range args {
		out[i] = mwExpr{x: x, info: env.f.info}
	}
	return out
}

// register records a chi route of pattern expression p.
func (env *routeEnv) register(call *ast.CallExpr, rv routerVal, method string, p, h ast.Expr) {
	if p == nil || h == nil {
		return
	}
	k := env.f.constString(p)
	if !k.ok || k.param >= 0 {
		return
	}
	env.registerPattern(call, rv, method, k.s, h)
}

// registerPattern records a route, when the running program needs to be
// told of it: its handler is a wrapper, or its middleware a generic one
// that decodes the body.
func (env *routeEnv) registerPattern(call *ast.CallExpr, rv routerVal, method, p string, h ast.Expr) {
	f := env.f
	ref, wrapped, note := f.a.innerOf(f, h, 0)
	site := routeSite{pkg: f.pkg, at: call.Pos(), method: method, pattern: pattern.Join(rv.parent, p), partial: !rv.known, handler: ref, note: note}
	if method != "" && method != http.MethodGet && method != http.MethodHead {
		for _, mw := range rv.mws {
			if t, strict := f.a.middlewareBody(mw); t != nil {
				site.body, site.strict = t, strict
			}
		}
	}
	if !wrapped && site.body == nil {
		return
	}
	key := siteKey{at: site.at, method: site.method, pattern: site.pattern}
	if old, ok := f.a.sites[key]; !ok || old.partial && !site.partial {
		f.a.sites[key] = &site
	}
}

// routeFacts returns the routes package p's code registers, as its
// generated file holds them, in source order.
func (a *analyzer) routeFacts(p *pkg, tw *typeWriter) []genfacts.Route {
	var sites []routeSite
	for _, s := range a.routes {
		if s.pkg == p {
			sites = append(sites, s)
		}
	}
	slices.SortFunc(sites, func(x, y routeSite) int {
		px, py := a.fset.Position(x.at), a.fset.Position(y.at)
		return cmp.Or(cmp.Compare(filepath.Base(px.Filename), filepath.Base(py.Filename)), cmp.Compare(px.Offset, py.Offset),
			cmp.Compare(x.method, y.method), cmp.Compare(x.pattern, y.pattern))
	})
	var out []genfacts.Route
	for _, s := range sites {
		r := genfacts.Route{Method: s.method, Pattern: s.pattern, Partial: s.partial, At: a.at(s.at), Note: s.note}
		switch h := s.handler; {
		case h.fn != nil:
			if d, ok := a.decls[h.fn]; ok {
				r.Func = a.funcName(d.pkg, h.fn)
			}
		case h.closure != nil:
			r.Pkg, r.Closure = genfacts.PathPrefix(runtimePackage(h.pkg.Types)), a.at(h.closure.Type.Func)
		}
		if s.body != nil {
			b := &genfacts.Body{Type: -1, Strict: s.strict}
			if n, err := tw.index(s.body); err == nil {
				b.Type = n
			} else {
				r.Note = "the body its middleware decodes cannot be named from the generated file: " + err.Error()
			}
			r.Body = b
		}
		out = append(out, r)
	}
	return out
}
