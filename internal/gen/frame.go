package gen

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
)

// maxDepth is how deep gen follows calls into the module's functions from
// a handler: far enough for a handler's helper's helper (writeJSON called
// by writeError), not so far that one handler's facts cost the module.
const maxDepth = 6

// A summary is what one function reads and writes, in terms of its
// parameters where it is a helper: "decodes the body into its argument 1",
// "writes its argument 2 as JSON with the status of its argument 1".
type summary struct {
	decodes []decodeFact
	query   []queryFact
	typings []typing
	path    []str
	writes  []writeFact
	form    bool
	opaque  []opaqueCall // the calls it cannot follow
	// delegates: it serves the request with another handler it is given
	// (a wrapper's next), not one of its own.
	delegates bool
}

// A val is a value whose type matters: a type, or a parameter of the
// function summarized (whose caller's argument gives the type).
type val struct {
	t     types.Type // nil when unknown, or when param says
	param int        // the parameter's index, or -1
}

var unknown = val{param: -1}

// A str is a string that names something: a constant, or a parameter.
type str struct {
	s     string
	param int // -1: s is the constant; else the parameter, and s is ""
	ok    bool
}

// A source is where a decoder reads from.
type source struct {
	body  bool // the request's body
	param int  // else a parameter of the function, or -1: something else
}

type decodeFact struct {
	dest   val
	src    source
	strict bool
	at     token.Pos // the call, in the frame that made it
	arg    ast.Expr  // what was decoded into, in that frame
	binder bool      // render.Bind: the type's Bind method checks it
	// returned: the function decoded into a variable of its own, fresh
	// or not, and returns it; root is then the caller's variable that
	// takes the result.
	returned, fresh bool
	root            *types.Var
}

type queryFact struct {
	key      str
	typ      string
	required bool
}

// A typing is what a handler parses a query parameter as.
type typing struct {
	key str
	typ string
}

// A writeFact is an answer the function writes.
type writeFact struct {
	kind   string // "json", "text", "html", "redirect", "empty", or "error" (http.Error and the like)
	val    val    // what a "json" answer encodes
	status status
	errCtx bool      // written where the function handles an error
	at     token.Pos // the call, in the frame that made it
	// dest is -1 for an answer written to the response; else the
	// parameter of the function that is the writer written to, which a
	// caller may give the response.
	dest int
}

// A status is an answer's status code: a constant, a parameter, or
// unknown (0, -1).
type status struct {
	code  int
	param int
}

var noStatus = status{param: -1}

// error reports whether the answer is an error's: its status says so, or,
// when none is known, where it is written and what it writes do.
func (w writeFact) error() bool {
	switch {
	case w.kind == "error":
		return true
	case w.status.code >= 400:
		return true
	case w.status.code > 0:
		return false
	}
	return w.errCtx
}

// A frame reads one function's body.
type frame struct {
	a      *analyzer
	pkg    *pkg
	info   *types.Info
	params []*types.Var
	recv   *types.Var
	defs   map[*types.Var][]def
	sum    *summary
	depth  int
	html   bool // the function sets Content-Type: text/html
	body   *ast.BlockStmt
	// buffers are the local buffers an encoder wrote JSON into, with the
	// value it encoded.
	buffers map[*types.Var]val
}

// A def is one assignment to a local variable: the expression, and which
// of its results the variable takes (for a call with several).
type def struct {
	x     ast.Expr
	index int
	multi bool
}

// A ctx is what holds at a point of the body.
type ctx struct {
	status status
	err    bool // in a branch that handles an error
}

func (a *analyzer) newFrame(p *pkg, sig *types.Signature, depth int) *frame {
	f := &frame{a: a, pkg: p, info: p.TypesInfo, defs: map[*types.Var][]def{}, sum: &summary{}, depth: depth, recv: sig.Recv()}
	for i := range sig.Params().Len() {
		f.params = append(f.params, sig.Params().At(i))
	}
	return f
}

// walkBody reads the function's body.
func (f *frame) walkBody(body *ast.BlockStmt) {
	f.body = body
	f.collectDefs(body)
	f.walkStmt(body, &ctx{status: noStatus})
}

// collectDefs records every assignment to a local variable of the body.
func (f *frame) collectDefs(body *ast.BlockStmt) {
	add := func(lhs []ast.Expr, rhs []ast.Expr) {
		for i, l := range lhs {
			id, ok := ast.Unparen(l).(*ast.Ident)
			if !ok {
				continue
			}
			v, ok := f.info.ObjectOf(id).(*types.Var)
			if !ok {
				continue
			}
			switch {
			case len(rhs) == len(lhs):
				f.defs[v] = append(f.defs[v], def{x: rhs[i]})
			case len(rhs) == 1:
				f.defs[v] = append(f.defs[v], def{x: rhs[0], index: i, multi: true})
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			add(n.Lhs, n.Rhs)
		case *ast.ValueSpec:
			lhs := make([]ast.Expr, len(n.Names))
			for i, id := range n.Names {
				lhs[i] = id
			}
			add(lhs, n.Values)
		}
		return true
	})
}

// walkStmt reads a statement in c; a branch's changes to c stay in it.
func (f *frame) walkStmt(s ast.Stmt, c *ctx) {
	switch s := s.(type) {
	case nil:
	case *ast.BlockStmt:
		f.walkList(s.List, c)
	case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
		f.walkBranches(s, c)
	case *ast.LabeledStmt:
		f.walkStmt(s.Stmt, c)
	case *ast.ExprStmt:
		f.walkExpr(s.X, c)
	case *ast.AssignStmt:
		f.walkExprs(s.Rhs, c)
		f.walkExprs(s.Lhs, c)
	case *ast.DeclStmt:
		if gd, ok := s.Decl.(*ast.GenDecl); ok {
			for _, spec := range gd.Specs {
				if vs, ok := spec.(*ast.ValueSpec); ok {
					f.walkExprs(vs.Values, c)
				}
			}
		}
	case *ast.ReturnStmt:
		f.walkExprs(s.Results, c)
	case *ast.DeferStmt:
		f.walkExpr(s.Call, c)
	case *ast.GoStmt:
		// What a goroutine writes is not the answer.
	case *ast.SendStmt:
		f.walkExpr(s.Value, c)
	case *ast.IncDecStmt:
	}
}

// walkBranches reads a statement that branches, each branch in a copy of
// c: its changes stay in it.
func (f *frame) walkBranches(s ast.Stmt, c *ctx) {
	switch s := s.(type) {
	case *ast.IfStmt:
		f.walkStmt(s.Init, c)
		f.walkExpr(s.Cond, c)
		inner := *c
		inner.err = c.err || f.handlesError(s.Cond)
		f.walkStmt(s.Body, &inner)
		other := *c
		f.walkStmt(s.Else, &other)
	case *ast.ForStmt:
		f.walkStmt(s.Init, c)
		f.walkExpr(s.Cond, c)
		inner := *c
		f.walkStmt(s.Body, &inner)
	case *ast.RangeStmt:
		f.walkExpr(s.X, c)
		f.rangeKeys(s)
		inner := *c
		f.walkStmt(s.Body, &inner)
	case *ast.SwitchStmt:
		f.walkStmt(s.Init, c)
		f.walkExpr(s.Tag, c)
		for _, cl := range s.Body.List {
			inner := *c
			cc := cl.(*ast.CaseClause)
			f.walkExprs(cc.List, c)
			f.walkList(cc.Body, &inner)
		}
	case *ast.TypeSwitchStmt:
		f.walkStmt(s.Init, c)
		f.walkStmt(s.Assign, c)
		for _, cl := range s.Body.List {
			inner := *c
			f.walkList(cl.(*ast.CaseClause).Body, &inner)
		}
	case *ast.SelectStmt:
		for _, cl := range s.Body.List {
			inner := *c
			f.walkList(cl.(*ast.CommClause).Body, &inner)
		}
	}
}

// walkList reads statements in order, in c.
func (f *frame) walkList(list []ast.Stmt, c *ctx) {
	for _, st := range list {
		f.walkStmt(st, c)
	}
}

// walkExprs reads expressions in order, in c.
func (f *frame) walkExprs(xs []ast.Expr, c *ctx) {
	for _, x := range xs {
		f.walkExpr(x, c)
	}
}

// walkExpr reads the calls and index expressions in x, innermost last:
// a status set by an argument's call is not seen by its caller, which
// does not happen in real handlers.
func (f *frame) walkExpr(x ast.Expr, c *ctx) {
	if x == nil {
		return
	}
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // a closure of its own
		case *ast.CallExpr:
			f.call(n, c)
		case *ast.IndexExpr:
			f.index(n)
		case *ast.SelectorExpr:
			f.selector(n)
		}
		return true
	})
}

// handlesError reports whether a condition is one under which a handler
// answers an error: an error that is not nil, a value not found, a check
// that fails.
func (f *frame) handlesError(cond ast.Expr) bool {
	found := false
	ast.Inspect(cond, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.NEQ && (f.isNil(n.Y) && f.isError(n.X) || f.isNil(n.X) && f.isError(n.Y)) {
				found = true
			}
			if n.Op == token.EQL && (f.isZero(n.X) || f.isZero(n.Y)) {
				found = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.NOT {
				found = true
			}
		}
		return !found
	})
	return found
}

var errorType = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)

func (f *frame) isError(x ast.Expr) bool {
	t := f.info.TypeOf(x)
	return t != nil && types.Implements(t, errorType)
}

func (f *frame) isNil(x ast.Expr) bool {
	id, ok := ast.Unparen(x).(*ast.Ident)
	return ok && id.Name == "nil" && f.info.ObjectOf(id) == types.Universe.Lookup("nil")
}

// isZero reports whether x is nil, "", 0 or false.
func (f *frame) isZero(x ast.Expr) bool {
	if f.isNil(x) {
		return true
	}
	tv, ok := f.info.Types[x]
	if !ok || tv.Value == nil {
		return false
	}
	switch v := tv.Value; v.Kind() {
	case constant.String:
		return constant.StringVal(v) == ""
	case constant.Int, constant.Float:
		return constant.Sign(v) == 0
	case constant.Bool:
		return !constant.BoolVal(v)
	}
	return false
}

// constString returns x as a str: a constant string, or a parameter of
// the function.
func (f *frame) constString(x ast.Expr) str {
	if tv, ok := f.info.Types[x]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		return str{s: constant.StringVal(tv.Value), param: -1, ok: true}
	}
	if i := f.paramIndex(x); i >= 0 {
		return str{param: i, ok: true}
	}
	return str{}
}

// constStatus returns x as a status code.
func (f *frame) constStatus(x ast.Expr) status {
	if tv, ok := f.info.Types[x]; ok && tv.Value != nil && tv.Value.Kind() == constant.Int {
		if n, ok := constant.Int64Val(tv.Value); ok {
			return status{code: int(n), param: -1}
		}
	}
	if i := f.paramIndex(x); i >= 0 {
		return status{param: i}
	}
	return noStatus
}

// paramIndex returns the index of the parameter x names, or -1.
func (f *frame) paramIndex(x ast.Expr) int {
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return -1
	}
	obj := f.info.ObjectOf(id)
	for i, p := range f.params {
		if p == obj {
			return i
		}
	}
	return -1
}

// localVar returns the local variable x names, or nil.
func (f *frame) localVar(x ast.Expr) *types.Var {
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return nil
	}
	v, _ := f.info.ObjectOf(id).(*types.Var)
	if v == nil || v.IsField() || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	return v
}

// origin returns the one expression x was assigned from, when x is a
// local variable assigned once with a single value; else x.
func (f *frame) origin(x ast.Expr) ast.Expr {
	for range 4 {
		v := f.localVar(x)
		if v == nil {
			return x
		}
		defs := f.defs[v]
		if len(defs) != 1 || defs[0].multi {
			return x
		}
		x = defs[0].x
	}
	return x
}

// call reads one call.
func (f *frame) call(call *ast.CallExpr, c *ctx) {
	name, fn := f.callee(call)
	if name == "" {
		if tv, ok := f.info.Types[call.Fun]; !ok || !tv.IsType() && !tv.IsBuiltin() {
			f.funcValue(call, c)
		}
		return
	}
	if f.known(name, call, c) {
		return
	}
	if n, ok := f.a.decoders[name]; ok && n < len(call.Args) {
		f.decode(call, call.Args[n], source{body: true, param: -1}, false, false)
		return
	}
	if fn == nil {
		f.opaque(call, f.whyOpaque(nil))
		return
	}
	if isInterfaceMethod(fn) {
		impls, why := f.a.implementations(fn)
		if impls == nil {
			f.opaque(call, why)
			return
		}
		if len(impls) > 1 {
			targets := make([]funcTarget, len(impls))
			for i, m := range impls {
				targets[i] = funcTarget{fn: m}
			}
			f.callTargets(call, targets, c, why)
			return
		}
		fn = impls[0]
	}
	if f.depth >= maxDepth {
		f.opaque(call, f.whyOpaque(fn))
		return
	}
	src := f.resolve(fn, call)
	if src == nil {
		if fn.Pkg() != nil && !f.a.standard(fn.Pkg().Path()) {
			f.opaque(call, f.whyOpaque(fn))
		}
		return
	}
	if s := f.a.summarize(src, f.depth+1); s != nil {
		f.apply(s, call, fn.Name(), c)
	}
}

// callee returns the full name of the function a call calls
// ("encoding/json.Unmarshal", "(*encoding/json.Decoder).Decode",
// "github.com/go-chi/render.Decode" for a function variable), and the
// function when it is one.
func (f *frame) callee(call *ast.CallExpr) (string, *types.Func) {
	fun := ast.Unparen(call.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	var obj types.Object
	switch x := fun.(type) {
	case *ast.Ident:
		obj = f.info.Uses[x]
	case *ast.SelectorExpr:
		if sel := f.info.Selections[x]; sel != nil {
			obj = sel.Obj()
		} else {
			obj = f.info.Uses[x.Sel]
		}
	}
	switch o := obj.(type) {
	case *types.Func:
		o = o.Origin()
		return o.FullName(), o
	case *types.Var:
		if o.Pkg() != nil && o.Parent() == o.Pkg().Scope() {
			return o.Pkg().Path() + "." + o.Name(), nil
		}
	}
	return "", nil
}

// receiver returns the receiver expression of a method call.
func receiver(call *ast.CallExpr) ast.Expr {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		return sel.X
	}
	return nil
}

// isWriter reports whether x is an http.ResponseWriter: what a handler
// answers through.
func (f *frame) isWriter(x ast.Expr) bool {
	t := f.info.TypeOf(x)
	if t == nil {
		return false
	}
	if isNamed(t, "net/http", "ResponseWriter") {
		return true
	}
	rw := f.responseWriter()
	return rw != nil && types.Implements(t, rw)
}

// responseWriter returns the http.ResponseWriter interface, as p's
// imports know it.
func responseWriter(p *pkg) *types.Interface {
	var found *types.Interface
	var visit func(*types.Package, map[*types.Package]bool)
	visit = func(tp *types.Package, seen map[*types.Package]bool) {
		if found != nil || seen[tp] {
			return
		}
		seen[tp] = true
		if tp.Path() == "net/http" {
			if obj := tp.Scope().Lookup("ResponseWriter"); obj != nil {
				found, _ = obj.Type().Underlying().(*types.Interface)
			}
			return
		}
		for _, imp := range tp.Imports() {
			visit(imp, seen)
		}
	}
	visit(p.Types, map[*types.Package]bool{})
	return found
}

// mentionsBody reports whether x reads the request's body: it holds
// r.Body, directly or through the variables it was made from.
func (f *frame) mentionsBody(x ast.Expr) source {
	if i := f.paramIndex(x); i >= 0 && !isRequest(f.params[i].Type()) {
		return source{param: i}
	}
	found := false
	seen := map[*types.Var]bool{}
	var visit func(ast.Node)
	visit = func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if found {
				return false
			}
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.SelectorExpr:
				if n.Sel.Name == "Body" && isRequest(f.info.TypeOf(n.X)) {
					found = true
				}
			case *ast.Ident:
				if v := f.localVar(n); v != nil && !seen[v] {
					seen[v] = true
					for _, d := range f.defs[v] {
						visit(d.x)
					}
				}
			}
			return true
		})
	}
	visit(x)
	return source{body: found, param: -1}
}

// ok reports whether the frame's function name suggests an error.
func errorish(name string) bool {
	lower := strings.ToLower(name)
	return strings.HasPrefix(lower, "err") || strings.Contains(name, "Err") || strings.Contains(lower, "error") ||
		strings.Contains(lower, "fail") || strings.HasPrefix(lower, "bad") || strings.Contains(lower, "invalid") ||
		strings.Contains(lower, "notfound") || strings.Contains(lower, "forbidden") || strings.Contains(lower, "unauthori")
}

// rangeKeys reads a loop over a query's parameters, for key, values :=
// range r.URL.Query(): the names its body compares key with (a switch's
// cases, key == "x") are query parameters it reads.
func (f *frame) rangeKeys(s *ast.RangeStmt) {
	if s.Key == nil || f.values(s.X) != "query" {
		return
	}
	key := f.localVar(s.Key)
	if key == nil {
		return
	}
	isKey := func(x ast.Expr) bool { return f.localVar(x) == key }
	ast.Inspect(s.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SwitchStmt:
			if n.Tag != nil && isKey(n.Tag) {
				for _, cl := range n.Body.List {
					for _, x := range cl.(*ast.CaseClause).List {
						f.queryRead(x, "query", "")
					}
				}
			}
		case *ast.BinaryExpr:
			switch {
			case n.Op != token.EQL:
			case isKey(n.X):
				f.queryRead(n.Y, "query", "")
			case isKey(n.Y):
				f.queryRead(n.X, "query", "")
			}
		}
		return true
	})
}
