package gen

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"
)

// A member of a decoded body is required only where the handler evidently
// refuses a request without it: a check at the top of the handler's body
// (not under another condition), such as
//
//	if in.Title == "" || len(in.Tags) == 0 {
//		http.Error(w, "title and tags are required", http.StatusBadRequest)
//		return
//	}
//
// on a value decoded fresh (var in T, T{}, &T{}, new(T): not one filled in
// before, whose members a body may leave as they were), or the same check
// in a method of the value, or a function given it, whose error the
// handler refuses the request for (if err := in.Validate(); err != nil),
// render.Bind's Bind method among them. A check under && or on an embedded
// struct's pointer (a.Article == nil) requires nothing.

// required returns the members of the body decoded by d that the handler
// refuses to go without, each a path of JSON names.
func (f *frame) required(d decodeFact) [][]string {
	root, fresh := d.root, d.fresh
	if root == nil {
		root = f.root(d.arg)
		fresh = root != nil && f.fresh(root)
	}
	if root == nil || !fresh {
		return nil
	}
	var out [][]string
	for _, s := range f.always(f.body.List, f.refuses) {
		ifs, ok := s.(*ast.IfStmt)
		if !ok {
			continue
		}
		for ; ifs != nil; ifs = elseIf(ifs) {
			if !f.refuses(ifs.Body) {
				break
			}
			out = append(out, f.zeroChecks(ifs.Cond, root)...)
			out = append(out, f.delegated(ifs, root, d)...)
		}
	}
	return dedupPaths(out)
}

func elseIf(s *ast.IfStmt) *ast.IfStmt {
	next, _ := s.Else.(*ast.IfStmt)
	return next
}

// root returns the local variable a decode's argument (v, &v) is.
func (f *frame) root(arg ast.Expr) *types.Var {
	if arg == nil {
		return nil
	}
	arg = ast.Unparen(arg)
	if u, ok := arg.(*ast.UnaryExpr); ok && u.Op == token.AND {
		arg = u.X
	}
	return f.localVar(arg)
}

// fresh reports whether v holds a zero value when it is decoded into: it
// is declared without a value, or assigned one empty literal or new(T).
func (f *frame) fresh(v *types.Var) bool {
	defs := f.defs[v]
	switch len(defs) {
	case 0:
		return true
	case 1:
	default:
		return false
	}
	x := ast.Unparen(defs[0].x)
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
		x = ast.Unparen(u.X)
	}
	switch x := x.(type) {
	case *ast.CompositeLit:
		return len(x.Elts) == 0
	case *ast.CallExpr:
		id, ok := callFun(x)
		return ok && id.Name == "new" && f.info.Uses[id] == types.Universe.Lookup("new")
	}
	return false
}

// refuses reports whether a handler's block answers an error and returns.
func (f *frame) refuses(b *ast.BlockStmt) bool {
	returns := slices.ContainsFunc(b.List, func(s ast.Stmt) bool { _, ok := s.(*ast.ReturnStmt); return ok })
	if !returns {
		return false
	}
	return slices.ContainsFunc(f.sum.writes, func(w writeFact) bool { return w.at >= b.Pos() && w.at < b.End() && w.error() })
}

// returnsError reports whether a validator's block returns an error that
// is not nil.
func (f *frame) returnsError(b *ast.BlockStmt) bool {
	return slices.ContainsFunc(b.List, func(s ast.Stmt) bool {
		r, ok := s.(*ast.ReturnStmt)
		if !ok || len(r.Results) == 0 {
			return false
		}
		last := r.Results[len(r.Results)-1]
		return !f.isNil(last) && f.isError(last)
	})
}

// zeroChecks returns the members of root that cond refuses when they are
// missing: the disjuncts of cond that are zero checks on them.
func (f *frame) zeroChecks(cond ast.Expr, root *types.Var) [][]string {
	var out [][]string
	for _, atom := range disjuncts(cond) {
		if x := f.zeroChecked(atom); x != nil {
			if p, ok := f.jsonPath(x, root); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// disjuncts splits a condition on ||.
func disjuncts(x ast.Expr) []ast.Expr {
	x = ast.Unparen(x)
	if b, ok := x.(*ast.BinaryExpr); ok && b.Op == token.LOR {
		return append(disjuncts(b.X), disjuncts(b.Y)...)
	}
	return []ast.Expr{x}
}

// zeroChecked returns the expression a condition holds for when it is
// zero (nil, "", 0, false, empty), and so refuses when it is missing: x in
// x == "", x == nil, x == 0, x <= 0, x < 8, len(x) == 0, len(x) < 8,
// strings.TrimSpace(x) == "", !x, x.IsZero(); or nil.
func (f *frame) zeroChecked(atom ast.Expr) ast.Expr {
	switch a := ast.Unparen(atom).(type) {
	case *ast.BinaryExpr:
		x, c, op := a.X, a.Y, a.Op
		if f.constant(x) != nil {
			x, c, op = a.Y, a.X, mirror(a.Op)
		}
		v := f.constant(c)
		switch {
		case f.isNil(c) && op == token.EQL:
		case v == nil:
			return nil
		case op == token.EQL && f.isZero(c):
		case (op == token.LSS || op == token.LEQ) && (v.Kind() == constant.Int || v.Kind() == constant.Float):
			// The zero value is under the bound: 0 < c, or 0 <= c.
			if sign := constant.Sign(v); sign < 0 || sign == 0 && op == token.LSS {
				return nil
			}
		default:
			return nil
		}
		return f.inner(x)
	case *ast.UnaryExpr:
		if t := f.info.TypeOf(a.X); a.Op == token.NOT && t != nil {
			if b, ok := t.Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
				return a.X
			}
		}
	case *ast.CallExpr:
		if sel, ok := ast.Unparen(a.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "IsZero" && len(a.Args) == 0 {
			return sel.X
		}
	}
	return nil
}

// inner returns the value a check is on: x itself, or the argument of
// len(x) and of a string function that keeps an empty string empty.
func (f *frame) inner(x ast.Expr) ast.Expr {
	call, ok := ast.Unparen(x).(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return x
	}
	if id, ok := callFun(call); ok && id.Name == "len" && f.info.Uses[id] == types.Universe.Lookup("len") {
		return call.Args[0]
	}
	if name, _ := f.callee(call); keepsEmpty[name] {
		return call.Args[0]
	}
	return x
}

// keepsEmpty are the functions of a string that return "" for "".
var keepsEmpty = map[string]bool{
	"strings.TrimSpace": true, "strings.ToLower": true, "strings.ToUpper": true,
	"strings.Trim": true, "strings.TrimLeft": true, "strings.TrimRight": true,
	"strings.TrimPrefix": true, "strings.TrimSuffix": true,
}

// constant returns the constant value of x, or nil.
func (f *frame) constant(x ast.Expr) constant.Value {
	if tv, ok := f.info.Types[x]; ok && tv.Value != nil {
		return tv.Value
	}
	return nil
}

// mirror returns the operator that holds with its operands swapped.
func mirror(op token.Token) token.Token {
	switch op {
	case token.LSS:
		return token.GTR
	case token.GTR:
		return token.LSS
	case token.LEQ:
		return token.GEQ
	case token.GEQ:
		return token.LEQ
	}
	return op
}

// jsonPath returns the JSON names of the members x selects from root
// (root.Article.Title: "article", "title"; a promoted field of an
// embedded struct has no name of its own). It fails for anything but a
// chain of field selections from root, and for one that ends on an
// embedded struct, whose absence no single member stands for.
func (f *frame) jsonPath(x ast.Expr, root *types.Var) ([]string, bool) {
	var chain []*ast.SelectorExpr
	for {
		x = ast.Unparen(x)
		if star, ok := x.(*ast.StarExpr); ok {
			x = star.X
			continue
		}
		sel, ok := x.(*ast.SelectorExpr)
		if !ok {
			break
		}
		chain = append(chain, sel)
		x = sel.X
	}
	if id, ok := x.(*ast.Ident); !ok || f.info.ObjectOf(id) != root || len(chain) == 0 {
		return nil, false
	}
	var path []string
	for i := len(chain) - 1; i >= 0; i-- {
		sel := f.info.Selections[chain[i]]
		if sel == nil || sel.Kind() != types.FieldVal {
			return nil, false
		}
		t := sel.Recv()
		for j, index := range sel.Index() {
			st, ok := deref(t).Underlying().(*types.Struct)
			if !ok {
				return nil, false
			}
			fld, tag := st.Field(index), st.Tag(index)
			name, named, skip := jsonTag(tag)
			switch {
			case skip:
				return nil, false
			case fld.Embedded() && !named && isStruct(fld.Type()):
				if i == 0 && j == len(sel.Index())-1 {
					return nil, false // the embedded struct itself
				}
			case !fld.Exported():
				return nil, false
			case named:
				path = append(path, name)
			default:
				path = append(path, fld.Name())
			}
			t = fld.Type()
		}
	}
	return path, len(path) > 0
}

// delegated returns the members that a call in an if's header checks on
// root, in a method of root or a function given root, when the if refuses
// the request on its error; and, for the render.Bind that decoded root,
// those its Bind method checks.
func (f *frame) delegated(ifs *ast.IfStmt, root *types.Var, d decodeFact) [][]string {
	var out [][]string
	header := []ast.Node{ifs.Cond}
	if ifs.Init != nil {
		header = append(header, ifs.Init)
	}
	for _, h := range header {
		ast.Inspect(h, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			_, fn := f.callee(call)
			if fn == nil {
				return true
			}
			if call.Pos() == d.at && d.binder {
				if m := method(f.info.TypeOf(d.arg), "Bind"); m != nil {
					out = append(out, f.a.validated(m, -1)...)
				}
				return true
			}
			if recv := receiver(call); recv != nil && f.root(recv) == root && fn.Signature().Recv() != nil {
				out = append(out, f.a.validated(fn, -1)...)
				return true
			}
			for i, arg := range call.Args {
				if f.root(arg) == root && fn.Signature().Recv() == nil {
					out = append(out, f.a.validated(fn, i)...)
				}
			}
			return true
		})
	}
	return out
}

// validated returns the members that fn checks on its receiver (param
// -1) or its parameter param, refusing with an error.
func (a *analyzer) validated(fn *types.Func, param int) [][]string {
	d, ok := a.decls[fn]
	if !ok {
		return nil
	}
	sig := fn.Signature()
	fr := a.newFrame(d.pkg, sig, maxDepth)
	fr.body = d.decl.Body
	fr.collectDefs(d.decl.Body)
	var root *types.Var
	switch {
	case param < 0:
		root = sig.Recv()
	case param < sig.Params().Len():
		root = sig.Params().At(param)
	}
	if root == nil || sig.Results().Len() == 0 || !fr.isErrorType(sig.Results().At(sig.Results().Len()-1).Type()) {
		return nil
	}
	var out [][]string
	for _, s := range fr.always(d.decl.Body.List, fr.returnsError) {
		if ifs, ok := s.(*ast.IfStmt); ok && ifs.Init == nil && fr.returnsError(ifs.Body) {
			out = append(out, fr.zeroChecks(ifs.Cond, root)...)
		}
	}
	return out
}

func (f *frame) isErrorType(t types.Type) bool { return types.Implements(t, errorType) }

// method returns the method name of t's method set (a pointer's, for an
// addressable value), or nil.
func method(t types.Type, name string) *types.Func {
	if t == nil {
		return nil
	}
	if _, ok := t.Underlying().(*types.Pointer); !ok {
		t = types.NewPointer(t)
	}
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, name)
	fn, _ := obj.(*types.Func)
	return fn
}

func deref(t types.Type) types.Type {
	for {
		p, ok := t.Underlying().(*types.Pointer)
		if !ok {
			return t
		}
		t = p.Elem()
	}
}

func isStruct(t types.Type) bool {
	_, ok := deref(t).Underlying().(*types.Struct)
	return ok
}

// jsonTag reads a struct tag's json name: the name, whether the tag gives
// one, and whether the field is left out (json:"-").
func jsonTag(tag string) (name string, named, skip bool) {
	v, ok := reflect.StructTag(tag).Lookup("json")
	if !ok {
		return "", false, false
	}
	name, opts, hasOpts := strings.Cut(v, ",")
	if name == "-" && !hasOpts {
		return "", false, true
	}
	_ = opts
	return name, name != "", false
}

func dedupPaths(paths [][]string) [][]string {
	var out [][]string
	for _, p := range paths {
		if !slices.ContainsFunc(out, func(q []string) bool { return slices.Equal(p, q) }) {
			out = append(out, p)
		}
	}
	return out
}

// always returns the statements of list that run on every path that
// reaches a refusal's check: those before the first one that may return
// other than by refusing (refuses says which blocks refuse), such as
//
//	if isStaff(r) {
//		save(in)
//		return
//	}
//
// after which a check refuses only the callers that did not return: a
// member it requires is not one the handler always requires.
func (f *frame) always(list []ast.Stmt, refuses func(*ast.BlockStmt) bool) []ast.Stmt {
	for i, s := range list {
		if ifs, ok := s.(*ast.IfStmt); ok {
			bypass := false
			for ; ifs != nil; ifs = elseIf(ifs) {
				if !refuses(ifs.Body) && returnsIn(ifs.Body) {
					bypass = true
				}
				if els, ok := ifs.Else.(*ast.BlockStmt); ok && returnsIn(els) {
					bypass = true
				}
			}
			if bypass {
				return list[:i]
			}
			continue
		}
		if returnsIn(s) {
			return list[:i]
		}
	}
	return list
}

// returnsIn reports whether n holds a return statement of its function
// (not of a closure in it).
func returnsIn(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			found = true
		}
		return !found
	})
	return found
}
