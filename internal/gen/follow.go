package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// A handler's calls are followed wherever their code is: into the
// module's functions, and into a library's (a response library, a
// binder) when the call hands it the request, its body or the response,
// its package then read from source. The functions gen knows (encoding/json,
// json/v2, render, the standard library's readers and writers) are the
// leaves, where following stops. A call gen cannot follow and that takes
// the request or the response — an interface's method, a function value,
// a library without source — is kept with its place, so that a handler
// whose body or answer is unknown says which call it is lost in.

// An opaqueCall is a call gen cannot follow that takes the request (its
// body) or the response.
type opaqueCall struct {
	what    string // "(example.com/app.Binder).Bind, an interface method"
	at      token.Pos
	request bool // it takes the request or its body
	writer  bool // it takes the response
}

// resolve returns the function whose body a call of fn runs, to be
// summarized: fn itself for a function of the module, the function as
// read from source for a library's (only for a call that takes the
// request, its body or the response); nil for one gen does not follow.
func (f *frame) resolve(fn *types.Func, call *ast.CallExpr) *types.Func {
	a := f.a
	if _, ok := a.decls[fn]; ok {
		return fn
	}
	if fn.Pkg() == nil {
		return nil
	}
	path := fn.Pkg().Path()
	l := a.ld.listed[path]
	if l == nil || l.Standard || a.ld.main(l) {
		return nil
	}
	if req, w := f.carries(call); !req && !w {
		return nil
	}
	if !a.loaded[path] {
		a.loaded[path] = true
		if p := a.ld.source(path); p != nil {
			for _, src := range a.index(p) {
				a.external[src.FullName()] = src
			}
		}
	}
	return a.external[fn.FullName()]
}

// carries reports whether a call hands on the request (or its body, or
// its query), and whether it hands on the response.
func (f *frame) carries(call *ast.CallExpr) (request, writer bool) {
	args := call.Args
	if r := receiver(call); r != nil {
		args = append([]ast.Expr{r}, args...)
	}
	for _, x := range args {
		t := f.info.TypeOf(x)
		if t == nil {
			continue
		}
		switch {
		case isRequest(t) || isNamed(deref(t), "net/url", "Values"):
			request = true
		case f.isWriter(x):
			writer = true
		case f.mentionsBody(x).body:
			request = true
		}
	}
	return request, writer
}

// opaque records a call gen does not follow, when it takes the request or
// the response; why says what it is.
func (f *frame) opaque(call *ast.CallExpr, why string) {
	req, w := f.carries(call)
	if f.servesAnother(call) {
		f.sum.delegates = true
		return
	}
	if !req && !w {
		return
	}
	f.sum.opaque = append(f.sum.opaque, opaqueCall{what: f.callText(call) + ", " + why, at: call.Pos(), request: req, writer: w})
}

// callText names what a call calls, as its source writes it: "s.in.Bind",
// "dec".
func (f *frame) callText(call *ast.CallExpr) string {
	var b strings.Builder
	var write func(ast.Expr)
	write = func(x ast.Expr) {
		switch x := ast.Unparen(x).(type) {
		case *ast.Ident:
			b.WriteString(x.Name)
		case *ast.SelectorExpr:
			write(x.X)
			b.WriteString("." + x.Sel.Name)
		case *ast.IndexExpr:
			write(x.X)
			b.WriteString("[…]")
		case *ast.CallExpr:
			write(x.Fun)
			b.WriteString("(…)")
		default:
			b.WriteString("…")
		}
	}
	write(call.Fun)
	return b.String()
}

// whyOpaque says why gen does not follow a call of fn (nil: a function
// value).
func (f *frame) whyOpaque(fn *types.Func) string {
	switch {
	case fn == nil:
		return "a function value, which may be any function"
	case isInterfaceMethod(fn):
		return "a method of the interface " + types.TypeString(fn.Signature().Recv().Type(), types.RelativeTo(f.pkg.Types)) + ", which may be any type's"
	case f.depth >= maxDepth:
		return fmt.Sprintf("deeper than the %d calls gen follows from a handler", maxDepth)
	}
	return "whose source gen does not have"
}

func isInterfaceMethod(fn *types.Func) bool {
	recv := fn.Signature().Recv()
	if recv == nil {
		return false
	}
	_, ok := recv.Type().Underlying().(*types.Interface)
	return ok
}

// servesAnother reports whether a call hands the request to another
// handler (next.ServeHTTP(w, r), a handler function's value): a
// middleware's or a wrapper's, whose handler gen reads as its own.
func (f *frame) servesAnother(call *ast.CallExpr) bool {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "ServeHTTP" {
		if t := f.info.TypeOf(sel.X); t != nil && isNamed(t, "net/http", "Handler") {
			return true
		}
	}
	t := f.info.TypeOf(call.Fun)
	if t == nil {
		return false
	}
	sig, ok := t.Underlying().(*types.Signature)
	return ok && sig.Params().Len() == 2 && isNamed(sig.Params().At(0).Type(), "net/http", "ResponseWriter") && isRequest(sig.Params().At(1).Type())
}

// implementations returns the methods that a call of the interface
// method m may run: those of the types of the module that implement its
// interface (as a class-hierarchy call graph resolves it); nil, and why,
// when they are not all known.
func (a *analyzer) implementations(m *types.Func) ([]*types.Func, string) {
	recvType := m.Signature().Recv().Type()
	iface, _ := recvType.Underlying().(*types.Interface)
	if iface == nil {
		return nil, "an interface method"
	}
	// An interface of another module (io.Writer, http.Handler) may be
	// implemented by any type of any package.
	if n, ok := types.Unalias(recvType).(*types.Named); !ok || n.Obj().Pkg() == nil || a.standard(n.Obj().Pkg().Path()) || !a.ld.main(a.ld.listed[n.Obj().Pkg().Path()]) {
		return nil, "a method of the interface " + types.TypeString(recvType, nil) + ", which may be any type's"
	}
	if a.named == nil {
		for _, p := range a.module {
			scope := p.Types.Scope()
			for _, name := range scope.Names() {
				if tn, ok := scope.Lookup(name).(*types.TypeName); ok && !tn.IsAlias() {
					if n, ok := tn.Type().(*types.Named); ok && n.TypeParams().Len() == 0 {
						if _, isIface := n.Underlying().(*types.Interface); !isIface {
							a.named = append(a.named, n)
						}
					}
				}
			}
		}
	}
	var impls []*types.Func
	for _, n := range a.named {
		for _, t := range []types.Type{n, types.NewPointer(n)} {
			if !types.Implements(t, iface) {
				continue
			}
			obj, _, _ := types.LookupFieldOrMethod(t, true, m.Pkg(), m.Name())
			if fn, ok := obj.(*types.Func); ok {
				impls = append(impls, fn)
			}
			break
		}
	}
	recv := types.TypeString(recvType, nil)
	if len(impls) == 0 {
		return nil, "a method of the interface " + recv + ", which no type of the module implements"
	}
	return impls, fmt.Sprintf("a method of the interface %s, which %d types of the module implement", recv, len(impls))
}

// A funcTarget is a function a function value may be: a function or
// method, or a closure of a package.
type funcTarget struct {
	fn  *types.Func
	lit *ast.FuncLit
	pkg *pkg
}

// funcValue reads a call of a function value (h.render(w, v), dec(r.Body,
// &v) of dec := h.decoders[ct]): the functions the module's code puts in
// the struct field it comes from (see callTargets); else it is a call gen
// cannot follow.
func (f *frame) funcValue(call *ast.CallExpr, c *ctx) {
	if f.servesAnother(call) {
		f.sum.delegates = true
		return
	}
	targets, field := f.funcTargets(call.Fun)
	if len(targets) == 0 {
		f.opaque(call, f.whyOpaque(nil))
		return
	}
	f.callTargets(call, targets, c, fmt.Sprintf("a function value, which may be any of the %d functions the code puts in %s", len(targets), field))
}

// maxTargets is how many functions a dynamic call may be for gen to read
// them all.
const maxTargets = 4

// callTargets reads a call that may run any of targets (a function
// value's, an interface method's): what any of them reads of the request
// (the body they decode as JSON, the parameters they read), and what they
// answer, when every one of them answers something gen reads (else what
// the call answers is unknown, and it is a call gen cannot follow, as
// what says).
func (f *frame) callTargets(call *ast.CallExpr, targets []funcTarget, c *ctx, what string) {
	if len(targets) > maxTargets || f.depth >= maxDepth {
		f.opaque(call, what)
		return
	}
	type read struct {
		s    *summary
		name string
	}
	var reads []read
	for _, t := range targets {
		var s *summary
		name := ""
		if t.fn != nil {
			if src := f.resolve(t.fn, call); src != nil {
				s, name = f.a.summarize(src, f.depth+1), t.fn.Name()
			}
		} else {
			s = f.a.summarizeLit(t.lit, t.pkg, f.depth+1)
		}
		if s == nil {
			f.opaque(call, what)
			return
		}
		reads = append(reads, read{s, name})
	}
	allWrite := true
	for _, r := range reads {
		allWrite = allWrite && len(r.s.writes) > 0
	}
	for _, r := range reads {
		s := r.s
		if !allWrite {
			c := *s
			c.writes = nil
			s = &c
		}
		f.apply(s, call, r.name, c)
	}
	if !allWrite && len(reads) > 1 {
		if _, w := f.carries(call); w {
			f.sum.opaque = append(f.sum.opaque, opaqueCall{what: f.callText(call) + ", " + what + ", not all of which answer JSON gen can read", at: call.Pos(), writer: true})
		}
	}
}

// funcTargets returns the functions the function value x may be, when it
// is read from a struct field (or a map a field holds) that the module's
// code gives only functions it names; and the field's name.
func (f *frame) funcTargets(x ast.Expr) ([]funcTarget, string) {
	x = ast.Unparen(x)
	if v := f.localVar(x); v != nil {
		if defs := f.defs[v]; len(defs) == 1 && defs[0].index == 0 {
			x = ast.Unparen(defs[0].x)
		}
	}
	elems := false
	if ix, ok := x.(*ast.IndexExpr); ok {
		x, elems = ast.Unparen(ix.X), true
	}
	sel, ok := x.(*ast.SelectorExpr)
	if !ok {
		return nil, ""
	}
	s := f.info.Selections[sel]
	if s == nil || s.Kind() != types.FieldVal {
		return nil, ""
	}
	field := s.Obj().(*types.Var)
	return f.a.fieldFuncs(field, elems), sel.Sel.Name
}

// fieldFuncs returns the functions the module's code puts in the struct
// field (elems: in the map it holds), each once; nil when it puts
// anything else there, which gen cannot tell.
func (a *analyzer) fieldFuncs(field *types.Var, elems bool) []funcTarget {
	key := fieldKey{field, elems}
	if t, ok := a.fields[key]; ok {
		return t
	}
	u := &fieldUses{field: field, elems: elems, known: true}
	for _, p := range a.module {
		for _, file := range p.Syntax {
			ast.Inspect(file, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CompositeLit:
					u.literal(p, n)
				case *ast.AssignStmt:
					u.assign(p, n)
				}
				return true
			})
		}
	}
	out := u.out
	if !u.known {
		out = nil
	}
	a.fields[key] = out
	return out
}

// fieldUses gathers the functions put in one field (or, with elems, in
// the elements of its value), as fieldFuncs finds them.
type fieldUses struct {
	field *types.Var
	elems bool
	out   []funcTarget
	known bool // every value put there is one gen can follow
}

// add adds what the value v, put in the field, holds.
func (u *fieldUses) add(p *pkg, v ast.Expr) {
	if !u.elems {
		u.out = appendTarget(u.out, p, v, &u.known)
		return
	}
	lit, ok := ast.Unparen(v).(*ast.CompositeLit)
	if !ok {
		u.known = false
		return
	}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			u.out = appendTarget(u.out, p, kv.Value, &u.known)
		} else {
			u.known = false
		}
	}
}

// literal adds the value a composite literal n gives the field.
func (u *fieldUses) literal(p *pkg, n *ast.CompositeLit) {
	info := p.TypesInfo
	st, ok := deref(info.TypeOf(n)).Underlying().(*types.Struct)
	if !ok {
		return
	}
	for i, el := range n.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && info.ObjectOf(id) == u.field {
				u.add(p, kv.Value)
			}
		} else if i < st.NumFields() && st.Field(i) == u.field {
			u.add(p, el)
		}
	}
}

// assign adds the values an assignment n puts in the field, or in an
// element of its value.
func (u *fieldUses) assign(p *pkg, n *ast.AssignStmt) {
	info := p.TypesInfo
	for i, lhs := range n.Lhs {
		target := ast.Unparen(lhs)
		isElem := false
		if ix, ok := target.(*ast.IndexExpr); ok {
			target, isElem = ast.Unparen(ix.X), true
		}
		sel, ok := target.(*ast.SelectorExpr)
		if !ok || info.Selections[sel] == nil || info.Selections[sel].Obj() != u.field {
			continue
		}
		if len(n.Rhs) != len(n.Lhs) {
			u.known = false
			continue
		}
		switch {
		case isElem && u.elems:
			u.out = appendTarget(u.out, p, n.Rhs[i], &u.known)
		case !isElem:
			u.add(p, n.Rhs[i])
		}
	}
}

type fieldKey struct {
	field *types.Var
	elems bool
}

// appendTarget adds the function x is to out, once; known turns false for
// an x that names no function.
func appendTarget(out []funcTarget, p *pkg, x ast.Expr, known *bool) []funcTarget {
	x = ast.Unparen(x)
	var t funcTarget
	switch e := x.(type) {
	case *ast.FuncLit:
		t = funcTarget{lit: e, pkg: p}
	default:
		fn := funcOf(p.TypesInfo, e)
		if _, isCall := e.(*ast.CallExpr); isCall || fn == nil {
			*known = false
			return out
		}
		t = funcTarget{fn: fn}
	}
	for _, o := range out {
		if o.fn == t.fn && o.lit == t.lit {
			return out
		}
	}
	return append(out, t)
}

// summarizeLit returns the summary of a closure, read once at each depth.
func (a *analyzer) summarizeLit(lit *ast.FuncLit, p *pkg, depth int) *summary {
	key := litKey{lit, depth}
	if s, ok := a.lits[key]; ok {
		return s
	}
	sig, ok := p.TypesInfo.TypeOf(lit).(*types.Signature)
	if !ok || a.busyLits[lit] {
		return nil
	}
	a.busyLits[lit] = true
	defer delete(a.busyLits, lit)
	fr := a.newFrame(p, sig, depth)
	fr.walkBody(lit.Body)
	a.lits[key] = fr.sum
	return fr.sum
}

type litKey struct {
	lit   *ast.FuncLit
	depth int
}
