package gen

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
)

// valueOf returns what x is as an answer: its type, made as concrete as
// the code shows (an interface value's, from what was assigned to it or
// what the function that made it returns; a map literal's, as the object
// its constant keys make), or the parameter it is.
func (f *frame) valueOf(x ast.Expr) val {
	if x == nil {
		return unknown
	}
	x = ast.Unparen(x)
	t := f.info.TypeOf(x)
	if t == nil {
		return unknown
	}
	if i := f.paramIndex(x); i >= 0 && vague(t) {
		return val{t: nil, param: i}
	}
	if lit, ok := f.origin(x).(*ast.CompositeLit); ok {
		if s := f.mapObject(lit); s != nil {
			return val{t: s, param: -1}
		}
	}
	if !vague(t) {
		return val{t: t, param: -1}
	}
	if o := f.origin(x); o != x {
		return f.valueOf(o)
	}
	switch x := x.(type) {
	case *ast.CallExpr:
		return f.refineCall(x)
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			if v := f.valueOf(x.X); v.t != nil {
				return val{t: types.NewPointer(v.t), param: -1}
			}
		}
	case *ast.CompositeLit, *ast.Ident:
		if _, ok := t.Underlying().(*types.Slice); ok {
			return f.listOf(x)
		}
	}
	return unknown
}

// vague reports whether a value of type t says too little of its JSON: an
// interface, or a slice of them.
func vague(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Interface:
		return true
	case *types.Slice:
		_, ok := u.Elem().Underlying().(*types.Interface)
		return ok
	}
	return false
}

// destValue returns the type a decoder decodes into when given x (a
// pointer to it, usually).
func (f *frame) destValue(x ast.Expr) val {
	x = ast.Unparen(x)
	t := f.info.TypeOf(x)
	if t == nil {
		return unknown
	}
	if i := f.paramIndex(x); i >= 0 && vague(t) {
		return val{param: i}
	}
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
		t = f.info.TypeOf(u.X)
	} else if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	for {
		p, ok := t.Underlying().(*types.Pointer)
		if !ok {
			break
		}
		t = p.Elem()
	}
	if _, ok := t.(*types.TypeParam); ok {
		return val{t: t, param: -1} // a caller's instance says what it is
	}
	if _, ok := t.Underlying().(*types.Interface); ok {
		return unknown
	}
	return val{t: t, param: -1}
}

// refineCall returns what a call of a module function returns, when every
// return statement of it returns a value of one concrete type.
func (f *frame) refineCall(call *ast.CallExpr) val {
	_, fn := f.callee(call)
	if fn == nil || f.depth >= maxDepth || fn.Signature().Results().Len() == 0 {
		return unknown
	}
	d, ok := f.a.decls[fn]
	if !ok || f.a.busy[fn] {
		return unknown
	}
	f.a.busy[fn] = true
	defer delete(f.a.busy, fn)
	fr := f.a.newFrame(d.pkg, fn.Signature(), f.depth+1)
	fr.body = d.decl.Body
	fr.collectDefs(d.decl.Body)
	var got types.Type
	ok = true
	ast.Inspect(d.decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) == 0 || fr.isNil(n.Results[0]) {
				return false
			}
			v := fr.valueOf(n.Results[0])
			if v.param >= 0 && v.param < len(call.Args) {
				v = f.valueOf(call.Args[v.param])
			}
			switch {
			case v.t == nil:
				ok = false
			case got == nil:
				got = v.t
			case !types.Identical(got, v.t):
				ok = false
			}
		}
		return ok
	})
	if !ok || got == nil {
		return unknown
	}
	return val{t: got, param: -1}
}

// listOf returns the type of a slice of interface values whose items are
// all of one concrete type: a literal's elements, or a variable's, with
// what is appended to it.
func (f *frame) listOf(x ast.Expr) val {
	var items []ast.Expr
	addLit := func(e ast.Expr) {
		if lit, ok := ast.Unparen(e).(*ast.CompositeLit); ok {
			items = append(items, lit.Elts...)
		}
	}
	if v := f.localVar(x); v != nil {
		for _, d := range f.defs[v] {
			call, ok := ast.Unparen(d.x).(*ast.CallExpr)
			if id, isIdent := callFun(call); ok && isIdent && id.Name == "append" && f.info.Uses[id] == types.Universe.Lookup("append") {
				if call.Ellipsis == token.NoPos {
					items = append(items, call.Args[1:]...)
				}
				continue
			}
			addLit(d.x)
		}
	} else {
		addLit(x)
	}
	var elem types.Type
	for _, it := range items {
		v := f.valueOf(it)
		switch {
		case v.t == nil:
			return unknown
		case elem == nil:
			elem = v.t
		case !types.Identical(elem, v.t):
			return unknown
		}
	}
	if elem == nil {
		return unknown
	}
	return val{t: types.NewSlice(elem), param: -1}
}

func callFun(call *ast.CallExpr) (*ast.Ident, bool) {
	if call == nil {
		return nil, false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	return id, ok
}

// mapObject returns, for a literal of a map keyed by strings whose every
// key is a constant, a struct type that encoding/json writes as the same
// object: a field for each key, of its value's type. Nil for any other
// literal.
func (f *frame) mapObject(lit *ast.CompositeLit) types.Type {
	t := f.info.TypeOf(lit)
	if t == nil {
		return nil
	}
	m, ok := t.Underlying().(*types.Map)
	if !ok || len(lit.Elts) == 0 {
		return nil
	}
	if b, ok := m.Key().Underlying().(*types.Basic); !ok || b.Kind() != types.String {
		return nil
	}
	var fields []*types.Var
	var tags []string
	seen := map[string]bool{}
	for i, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			return nil
		}
		tv, ok := f.info.Types[kv.Key]
		if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
			return nil
		}
		key := constant.StringVal(tv.Value)
		if !validTagName(key) || seen[key] {
			return nil
		}
		seen[key] = true
		vt := m.Elem()
		if v := f.valueOf(kv.Value); v.t != nil {
			vt = types.Default(v.t)
		}
		fields = append(fields, types.NewField(token.NoPos, f.pkg.Types, fmt.Sprintf("F%d", i), vt, false))
		tags = append(tags, fmt.Sprintf("json:%q", key))
	}
	return types.NewStruct(fields, tags)
}

// validTagName reports whether encoding/json takes s as a field's name in
// a json tag.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c > 127:
		default:
			return false
		}
	}
	return true
}

// errorishValue reports whether x looks like an error's answer: its type,
// its variable or the function that made it is named for one, or it is an
// error.
func (f *frame) errorishValue(x ast.Expr) bool {
	if x == nil {
		return false
	}
	x = ast.Unparen(x)
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
		x = u.X
	}
	switch y := x.(type) {
	case *ast.Ident:
		if errorish(y.Name) {
			return true
		}
	case *ast.SelectorExpr:
		if errorish(y.Sel.Name) {
			return true
		}
	case *ast.CallExpr:
		if name, _ := f.callee(y); name != "" && errorish(name[strings.LastIndexAny(name, ".)")+1:]) {
			return true
		}
	}
	v := f.valueOf(x)
	if v.t == nil {
		return false
	}
	t := v.t
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && errorish(n.Obj().Name()) {
		return true
	}
	return types.Implements(v.t, errorType)
}
