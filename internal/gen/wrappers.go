package gen

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// A wrapper serves its routes with another handler: the value it was
// given, which the wrapper's code, not its name, says. These read that
// code: which parameter of a function returning a handler ends up serving
// the requests (the closure it returns calls it, or the value it returns
// keeps it in the field its ServeHTTP calls), and which body a generic
// middleware's instance decodes.

// innerOf returns the handler that the handler expression h serves its
// requests with, and whether that is another function than the one the
// running program sees (a wrapper's); note says why it is not known.
func (a *analyzer) innerOf(f *frame, h ast.Expr, depth int) (handlerRef, bool, string) {
	if depth > maxDepth {
		return handlerRef{}, true, "gen follows wrappers " + strconv.Itoa(maxDepth) + " deep"
	}
	h = ast.Unparen(h)
	switch x := h.(type) {
	case *ast.FuncLit:
		return handlerRef{closure: x, pkg: f.pkg}, false, ""
	case *ast.Ident:
		if v := f.localVar(x); v != nil {
			if defs := f.defs[v]; len(defs) == 1 && !defs[0].multi {
				return a.innerOf(f, defs[0].x, depth+1)
			}
			return handlerRef{}, false, ""
		}
	case *ast.CallExpr:
		return a.innerOfCall(f, x, depth)
	}
	fn := funcOf(f.info, h)
	if fn == nil {
		return handlerRef{}, false, ""
	}
	sig := fn.Signature()
	if sel, ok := h.(*ast.SelectorExpr); ok && fn.Name() == "ServeHTTP" && a.servingField(fn) != "" {
		return a.innerOfServeHTTP(f, sel, depth)
	}
	if isHandlerSig(sig) {
		return handlerRef{fn: fn}, false, ""
	}
	if isErrorHandlerSig(sig) {
		return handlerRef{fn: fn}, true, ""
	}
	return handlerRef{}, false, ""
}

// innerOfCall is innerOf for a handler a call returns: a conversion's
// operand (http.HandlerFunc(h)), or the handler a wrapper is given.
func (a *analyzer) innerOfCall(f *frame, x *ast.CallExpr, depth int) (handlerRef, bool, string) {
	if tv, ok := f.info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
		return a.innerOf(f, x.Args[0], depth+1) // http.HandlerFunc(h)
	}
	fn := funcOf(f.info, x)
	if fn == nil {
		return handlerRef{}, false, ""
	}
	if i := a.delegation(fn, 0); i >= 0 && i < len(x.Args) {
		ref, _, note := a.innerOf(f, x.Args[i], depth+1)
		if !ref.ok() && note == "" {
			note = "gen cannot tell which handler " + f.callText(x) + " is given to serve"
		}
		return ref, true, note
	}
	return handlerRef{}, false, "" // a factory's closure, known by its place
}

// innerOfServeHTTP is innerOf for a method value of a handler value whose
// ServeHTTP serves another handler: the value's wrapped handler.
func (a *analyzer) innerOfServeHTTP(f *frame, sel *ast.SelectorExpr, depth int) (handlerRef, bool, string) {
	if c, ok := f.origin(ast.Unparen(sel.X)).(*ast.CallExpr); ok {
		if cf := funcOf(f.info, c); cf != nil {
			if i := a.delegation(cf, 0); i >= 0 && i < len(c.Args) {
				ref, _, note := a.innerOf(f, c.Args[i], depth+1)
				return ref, true, note
			}
		}
	}
	return handlerRef{}, true, "gen cannot tell which handler " + types.ExprString(sel.X) + " wraps"
}

// delegation returns the parameter of fn whose handler serves the
// requests of the handler fn returns, or -1: fn returns a closure that
// calls it, or a value whose ServeHTTP calls the field it is put in.
func (a *analyzer) delegation(fn *types.Func, depth int) int {
	if i, ok := a.delegates[fn]; ok {
		return i
	}
	a.delegates[fn] = -1 // a recursion stops here
	d, ok := a.decls[fn]
	if !ok || depth > maxDepth {
		return -1
	}
	f := a.newFrame(d.pkg, fn.Signature(), depth)
	f.body = d.decl.Body
	f.collectDefs(d.decl.Body)
	found := -1
	ast.Inspect(d.decl.Body, func(n ast.Node) bool {
		ret, ok := n.(*ast.ReturnStmt)
		if found >= 0 || !ok || len(ret.Results) == 0 {
			return found < 0
		}
		found = a.servedBy(f, ret.Results[0], depth)
		return found < 0
	})
	a.delegates[fn] = found
	return found
}

// servedBy returns the parameter of f's function that the handler x
// serves its requests with, or -1.
func (a *analyzer) servedBy(f *frame, x ast.Expr, depth int) int {
	x = f.origin(ast.Unparen(x))
	switch e := x.(type) {
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return a.servedBy(f, e.X, depth)
		}
	case *ast.CallExpr:
		if tv, ok := f.info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			return a.servedBy(f, e.Args[0], depth)
		}
		if fn := funcOf(f.info, e); fn != nil {
			if i := a.delegation(fn, depth+1); i >= 0 && i < len(e.Args) {
				return f.paramIndex(e.Args[i])
			}
		}
	case *ast.FuncLit:
		return f.servedByClosure(e)
	case *ast.CompositeLit:
		return a.servedByValue(f, e)
	}
	return -1
}

// servedByClosure returns the parameter whose handler the closure e
// serves its requests with, or -1.
func (f *frame) servedByClosure(e *ast.FuncLit) int {
	found := -1
	ast.Inspect(e.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && found < 0 && f.servesAnother(call) {
			target := call.Fun
			if sel, ok := ast.Unparen(target).(*ast.SelectorExpr); ok && sel.Sel.Name == "ServeHTTP" {
				target = sel.X
			}
			found = f.paramIndex(target)
		}
		return found < 0
	})
	return found
}

// servedByValue returns the parameter put in the field of the handler
// value e that its ServeHTTP serves its requests with, or -1.
func (a *analyzer) servedByValue(f *frame, e *ast.CompositeLit) int {
	t := f.info.TypeOf(e)
	if t == nil {
		return -1
	}
	m := method(t, "ServeHTTP")
	if m == nil {
		return -1
	}
	field := a.servingField(m)
	st, ok := deref(t).Underlying().(*types.Struct)
	if field == "" || !ok {
		return -1
	}
	for i, el := range e.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == field {
				return f.paramIndex(kv.Value)
			}
		} else if i < st.NumFields() && st.Field(i).Name() == field {
			return f.paramIndex(el)
		}
	}
	return -1
}

// servingField returns the field of the receiver that the ServeHTTP
// method m serves its requests with (h.next(w, r), h.next.ServeHTTP(w,
// r)), or "".
func (a *analyzer) servingField(m *types.Func) string {
	d, ok := a.decls[m]
	if !ok || m.Signature().Recv() == nil {
		return ""
	}
	f := a.newFrame(d.pkg, m.Signature(), maxDepth)
	recv := m.Signature().Recv()
	field := ""
	ast.Inspect(d.decl.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || field != "" || !f.servesAnother(call) {
			return field == ""
		}
		target := ast.Unparen(call.Fun)
		if sel, ok := target.(*ast.SelectorExpr); ok && sel.Sel.Name == "ServeHTTP" {
			target = ast.Unparen(sel.X)
		}
		if sel, ok := target.(*ast.SelectorExpr); ok {
			if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok && f.info.ObjectOf(id) == recv {
				field = sel.Sel.Name
			}
		}
		return field == ""
	})
	return field
}

// middlewareBody returns the body a generic middleware's instance decodes
// (Validate[form.ItemForm]: a form.ItemForm), and whether it refuses
// unknown members; nil for any other middleware, which the running program
// knows by its function.
func (a *analyzer) middlewareBody(mw mwExpr) (types.Type, bool) {
	var id *ast.Ident
	switch x := ast.Unparen(mw.x).(type) {
	case *ast.IndexExpr:
		id = identOf(x.X)
	case *ast.IndexListExpr:
		id = identOf(x.X)
	}
	if id == nil {
		return nil, false
	}
	inst, ok := mw.info.Instances[id]
	fn, _ := mw.info.Uses[id].(*types.Func)
	if !ok || fn == nil {
		return nil, false
	}
	d, ok := a.decls[fn.Origin()]
	if !ok {
		return nil, false
	}
	var out types.Type
	strict := false
	ast.Inspect(d.decl.Body, func(n ast.Node) bool {
		lit, ok := n.(*ast.FuncLit)
		if !ok || out != nil {
			return out == nil
		}
		sig, ok := d.pkg.TypesInfo.TypeOf(lit).(*types.Signature)
		if !ok || !isHandlerSig(sig) {
			return true
		}
		fr := a.newFrame(d.pkg, sig, 1)
		fr.walkBody(lit.Body)
		for _, dec := range fr.sum.decodes {
			if !dec.src.body || dec.dest.t == nil {
				continue
			}
			t := dec.dest.t
			if tp, ok := t.(*types.TypeParam); ok && tp.Index() < inst.TypeArgs.Len() {
				t = inst.TypeArgs.At(tp.Index())
			}
			if _, generic := t.(*types.TypeParam); !generic {
				out, strict = deref(t), dec.strict
			}
		}
		return false
	})
	return out, strict
}

func identOf(x ast.Expr) *ast.Ident {
	switch e := ast.Unparen(x).(type) {
	case *ast.Ident:
		return e
	case *ast.SelectorExpr:
		return e.Sel
	}
	return nil
}

// isErrorHandlerSig reports whether sig is func(http.ResponseWriter,
// *http.Request) error: a handler that returns its error for an adapter
// to answer.
func isErrorHandlerSig(sig *types.Signature) bool {
	return sig.Params().Len() == 2 && sig.Results().Len() == 1 && sig.TypeParams() == nil &&
		isNamed(sig.Params().At(0).Type(), "net/http", "ResponseWriter") && isRequest(sig.Params().At(1).Type()) &&
		types.Identical(sig.Results().At(0).Type(), types.Universe.Lookup("error").Type())
}
