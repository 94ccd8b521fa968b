package gen

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// The functions gen knows by name, which it reads as a handler's decodes,
// reads and answers, rather than follow into.
const (
	renderPkg = "github.com/go-chi/render"
)

// chiURLParam are chi's path readers, by major version.
var chiURLParam = map[string]int{ // → the index of the parameter's name
	"github.com/go-chi/chi/v5.URLParam": 1, "github.com/go-chi/chi/v5.URLParamFromCtx": 1,
	"github.com/go-chi/chi.URLParam": 1, "github.com/go-chi/chi.URLParamFromCtx": 1,
}

// parsers are what parsing a query parameter's value makes of it.
var parsers = map[string]string{
	"strconv.Atoi": "integer", "strconv.ParseInt": "integer", "strconv.ParseUint": "integer",
	"strconv.ParseFloat": "number", "strconv.ParseBool": "boolean",
}

var body = source{body: true, param: -1}

// known reads a call of a function gen knows, and reports whether it was
// one.
func (f *frame) known(name string, call *ast.CallExpr, c *ctx) bool {
	arg := func(i int) ast.Expr {
		if i < len(call.Args) {
			return call.Args[i]
		}
		return nil
	}
	if i, ok := chiURLParam[name]; ok {
		f.pathRead(arg(i))
		return true
	}
	if typ, ok := parsers[name]; ok {
		if key := f.queryKey(arg(0)); key.ok {
			f.sum.typings = append(f.sum.typings, typing{key, typ})
		}
		return true
	}
	switch name {
	// Decodes.
	case "encoding/json.Unmarshal":
		f.decode(call, arg(1), f.mentionsBody(arg(0)), false, false)
	case "(*encoding/json.Decoder).Decode":
		src, strict := f.decoder(receiver(call))
		f.decode(call, arg(0), src, strict, false)
	case renderPkg + ".Bind":
		f.decode(call, arg(1), body, false, true)
	case renderPkg + ".DecodeJSON":
		f.decode(call, arg(1), f.mentionsBody(arg(0)), false, false)
	case renderPkg + ".Decode", renderPkg + ".DefaultDecoder":
		f.decode(call, arg(1), body, false, false)

	// Query, form and path reads.
	case "(net/url.Values).Get", "(net/url.Values).Has":
		f.queryRead(arg(0), f.values(receiver(call)), "")
	case "(*net/http.Request).FormValue":
		f.queryRead(arg(0), "query", "")
	case "(*net/http.Request).PostFormValue", "(*net/http.Request).FormFile", "(*net/http.Request).MultipartReader":
		f.sum.form = true
	case "(*net/http.Request).PathValue":
		f.pathRead(arg(0))

	// Answers.
	case "(*encoding/json.Encoder).Encode":
		if f.encodesToWriter(receiver(call)) {
			f.write(call, "json", f.valueOf(arg(0)), c, f.errorishValue(arg(0)))
		}
	case "(net/http.ResponseWriter).Write":
		if v, ok := f.marshaled(arg(0), call.Pos()); ok {
			f.write(call, "json", v, c, f.errorishValue(arg(0)))
		} else {
			f.write(call, f.textKind(), unknown, c, false)
		}
	case "(net/http.ResponseWriter).WriteHeader":
		c.status = f.constStatus(arg(0))
		if c.status.code == 204 || c.status.code == 304 {
			f.write(call, "empty", unknown, c, false)
		}
	case renderPkg + ".Status":
		c.status = f.constStatus(arg(1))
	case renderPkg + ".JSON", renderPkg + ".Respond", renderPkg + ".DefaultResponder", renderPkg + ".Render", renderPkg + ".RenderList":
		f.write(call, "json", f.valueOf(arg(2)), c, f.errorishValue(arg(2)))
	case renderPkg + ".PlainText", renderPkg + ".Data", renderPkg + ".XML":
		f.write(call, "text", unknown, c, false)
	case renderPkg + ".HTML":
		f.write(call, "html", unknown, c, false)
	case renderPkg + ".NoContent":
		f.write(call, "empty", unknown, c, false)
	case "net/http.Error":
		f.write(call, "error", unknown, &ctx{status: f.constStatus(arg(2)), err: true}, true)
	case "net/http.NotFound":
		f.write(call, "error", unknown, &ctx{status: status{code: 404, param: -1}, err: true}, true)
	case "net/http.Redirect":
		f.write(call, "redirect", unknown, c, false)
	case "net/http.ServeFile", "net/http.ServeContent", "net/http.ServeFileFS":
		f.write(call, "text", unknown, c, false)
	case "fmt.Fprint", "fmt.Fprintf", "fmt.Fprintln", "io.WriteString", "io.Copy":
		if f.isWriter(arg(0)) {
			f.write(call, f.textKind(), unknown, c, false)
		}
	case "(*html/template.Template).Execute", "(*html/template.Template).ExecuteTemplate":
		if f.isWriter(arg(0)) {
			f.write(call, "html", unknown, c, false)
		}
	case "(*text/template.Template).Execute", "(*text/template.Template).ExecuteTemplate":
		if f.isWriter(arg(0)) {
			f.write(call, f.textKind(), unknown, c, false)
		}
	case "(net/http.Header).Set", "(net/http.Header).Add":
		if k, v := f.constString(arg(0)), f.constString(arg(1)); k.param < 0 && v.param < 0 &&
			strings.EqualFold(k.s, "Content-Type") && strings.Contains(v.s, "html") {
			f.html = true
		}
	default:
		return false
	}
	return true
}

// textKind is what a plain write to the response is.
func (f *frame) textKind() string {
	if f.html {
		return "html"
	}
	return "text"
}

// write records an answer.
func (f *frame) write(call *ast.CallExpr, kind string, v val, c *ctx, errHint bool) {
	f.sum.writes = append(f.sum.writes, writeFact{kind: kind, val: v, status: c.status, errCtx: c.err || errHint, at: call.Pos()})
}

// decode records a decode into dst from src, when src is the body.
func (f *frame) decode(call *ast.CallExpr, dst ast.Expr, src source, strict, binder bool) {
	if dst == nil || (!src.body && src.param < 0) {
		return
	}
	d := decodeFact{dest: f.destValue(dst), src: src, strict: strict, at: call.Pos(), arg: dst, binder: binder}
	if v := f.root(dst); v != nil && f.returns(v) {
		d.returned, d.fresh = true, f.fresh(v)
	}
	f.sum.decodes = append(f.sum.decodes, d)
}

// returns reports whether the function returns local variable v as its
// first result.
func (f *frame) returns(v *types.Var) bool {
	found := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) > 0 && f.localVar(n.Results[0]) == v {
				found = true
			}
		}
		return !found
	})
	return found
}

// resultVar returns the local variable that takes the first result of
// call, when it is assigned to one.
func (f *frame) resultVar(call *ast.CallExpr) *types.Var {
	for v, defs := range f.defs {
		for _, d := range defs {
			if ast.Unparen(d.x) == call && d.index == 0 {
				return v
			}
		}
	}
	return nil
}

// instance returns what a call of a generic function instantiates type
// parameter t with, or t.
func (f *frame) instance(call *ast.CallExpr, t types.Type) types.Type {
	tp, ok := t.(*types.TypeParam)
	if !ok {
		return t
	}
	fun := ast.Unparen(call.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	var id *ast.Ident
	switch x := fun.(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		id = x.Sel
	}
	inst, ok := f.info.Instances[id]
	if !ok || tp.Index() >= inst.TypeArgs.Len() {
		return t
	}
	return inst.TypeArgs.At(tp.Index())
}

// decoder returns where a json.Decoder reads from, and whether it refuses
// unknown fields.
func (f *frame) decoder(x ast.Expr) (source, bool) {
	x = ast.Unparen(x)
	call, ok := f.origin(x).(*ast.CallExpr)
	if !ok {
		return source{param: -1}, false
	}
	if name, _ := f.callee(call); name != "encoding/json.NewDecoder" || len(call.Args) != 1 {
		return source{param: -1}, false
	}
	strict := false
	if v := f.localVar(x); v != nil {
		ast.Inspect(f.body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if name, _ := f.callee(c); name == "(*encoding/json.Decoder).DisallowUnknownFields" && f.localVar(receiver(c)) == v {
					strict = true
				}
			}
			return !strict
		})
	}
	return f.mentionsBody(call.Args[0]), strict
}

// encodesToWriter reports whether a json.Encoder writes to the response.
func (f *frame) encodesToWriter(x ast.Expr) bool {
	call, ok := f.origin(x).(*ast.CallExpr)
	if !ok {
		return false
	}
	name, _ := f.callee(call)
	return name == "encoding/json.NewEncoder" && len(call.Args) == 1 && f.isWriter(call.Args[0])
}

// marshaled returns the value whose json.Marshal x is, as assigned last
// before pos.
func (f *frame) marshaled(x ast.Expr, pos token.Pos) (val, bool) {
	x = ast.Unparen(x)
	if v := f.localVar(x); v != nil {
		var last *def
		for i, d := range f.defs[v] {
			if d.x.Pos() < pos && d.index == 0 && (last == nil || d.x.Pos() > last.x.Pos()) {
				last = &f.defs[v][i]
			}
		}
		if last == nil {
			return unknown, false
		}
		x = last.x
	}
	call, ok := ast.Unparen(x).(*ast.CallExpr)
	if !ok {
		return unknown, false
	}
	if name, _ := f.callee(call); (name == "encoding/json.Marshal" || name == "encoding/json.MarshalIndent") && len(call.Args) > 0 {
		return f.valueOf(call.Args[0]), true
	}
	return unknown, false
}

// values returns what a url.Values holds: "query" (r.URL.Query(), r.Form,
// a url.Values parameter), "form" (r.PostForm), or "".
func (f *frame) values(x ast.Expr) string {
	x = f.origin(ast.Unparen(x))
	switch x := x.(type) {
	case *ast.CallExpr:
		if name, _ := f.callee(x); name == "(*net/url.URL).Query" {
			return "query"
		}
	case *ast.SelectorExpr:
		if isRequest(f.info.TypeOf(x.X)) {
			switch x.Sel.Name {
			case "Form":
				return "query"
			case "PostForm":
				return "form"
			}
		}
	case *ast.Ident:
		if i := f.paramIndex(x); i >= 0 && isNamed(f.params[i].Type(), "net/url", "Values") {
			return "query"
		}
	}
	return ""
}

// queryRead records a read of the query parameter key (kind "query"), or
// of the form ("form").
func (f *frame) queryRead(key ast.Expr, kind, typ string) {
	switch kind {
	case "form":
		f.sum.form = true
	case "query":
		if k := f.constString(key); k.ok {
			f.sum.query = append(f.sum.query, queryFact{key: k, typ: typ})
		}
	}
}

// queryKey returns the query parameter whose value x is, if it is one.
func (f *frame) queryKey(x ast.Expr) str {
	if x == nil {
		return str{}
	}
	switch x := f.origin(f.inner(f.origin(ast.Unparen(x)))).(type) {
	case *ast.CallExpr:
		name, _ := f.callee(x)
		switch {
		case name == "(net/url.Values).Get" && f.values(receiver(x)) == "query" && len(x.Args) == 1:
			return f.constString(x.Args[0])
		case name == "(*net/http.Request).FormValue" && len(x.Args) == 1:
			return f.constString(x.Args[0])
		}
	case *ast.IndexExpr:
		if inner, ok := ast.Unparen(x.X).(*ast.IndexExpr); ok && f.values(inner.X) == "query" {
			return f.constString(inner.Index) // q["x"][0]
		}
	}
	return str{}
}

// index reads q["x"] on a query's values: every value of x.
func (f *frame) index(x *ast.IndexExpr) {
	if t := f.info.TypeOf(x.X); t != nil && isNamed(t, "net/url", "Values") {
		f.queryRead(x.Index, f.values(x.X), "array")
	}
}

// selector reads r.PostForm and r.MultipartForm: a form body.
func (f *frame) selector(x *ast.SelectorExpr) {
	if (x.Sel.Name == "PostForm" || x.Sel.Name == "MultipartForm") && isRequest(f.info.TypeOf(x.X)) {
		f.sum.form = true
	}
}

// pathRead records a read of the path parameter key.
func (f *frame) pathRead(key ast.Expr) {
	if key == nil {
		return
	}
	if k := f.constString(key); k.ok {
		f.sum.path = append(f.sum.path, k)
	}
}

// summarize returns the summary of a function of the module, reading it
// the first time, or nil for one gen cannot read (outside the module, or
// already being read further up).
func (a *analyzer) summarize(fn *types.Func, depth int) *summary {
	if s, ok := a.summaries[summaryKey{fn, depth}]; ok {
		return s
	}
	d, ok := a.decls[fn]
	if !ok || a.busy[fn] {
		return nil
	}
	a.busy[fn] = true
	defer delete(a.busy, fn)
	fr := a.newFrame(d.pkg, fn.Signature(), depth)
	fr.walkBody(d.decl.Body)
	a.summaries[summaryKey{fn, depth}] = fr.sum
	return fr.sum
}

// apply adds what a call of fn (summarized as s) does, its parameters
// bound to the call's arguments.
func (f *frame) apply(s *summary, call *ast.CallExpr, fn *types.Func, c *ctx) {
	arg := func(i int) ast.Expr {
		if i >= 0 && i < len(call.Args) {
			return call.Args[i]
		}
		return nil
	}
	bindStr := func(k str) str {
		if k.param < 0 {
			return k
		}
		if a := arg(k.param); a != nil {
			return f.constString(a)
		}
		return str{}
	}
	for _, d := range s.decodes {
		src := d.src
		if !src.body {
			a := arg(src.param)
			if a == nil {
				continue
			}
			if src = f.mentionsBody(a); !src.body && src.param < 0 {
				continue
			}
		}
		nd := decodeFact{dest: d.dest, src: src, strict: d.strict, at: call.Pos(), binder: d.binder}
		if nd.dest.t != nil {
			nd.dest.t = f.instance(call, nd.dest.t)
		}
		if d.returned {
			if v := f.resultVar(call); v != nil {
				nd.root, nd.fresh = v, d.fresh && len(f.defs[v]) == 1
			}
		}
		if d.dest.param >= 0 {
			if a := arg(d.dest.param); a != nil {
				nd.dest, nd.arg = f.destValue(a), a
			} else {
				nd.dest = unknown
			}
		}
		f.sum.decodes = append(f.sum.decodes, nd)
	}
	for _, q := range s.query {
		if k := bindStr(q.key); k.ok {
			f.sum.query = append(f.sum.query, queryFact{key: k, typ: q.typ, required: q.required})
		}
	}
	for _, t := range s.typings {
		if k := bindStr(t.key); k.ok {
			f.sum.typings = append(f.sum.typings, typing{k, t.typ})
		}
	}
	for _, p := range s.path {
		if k := bindStr(p); k.ok {
			f.sum.path = append(f.sum.path, k)
		}
	}
	f.sum.form = f.sum.form || s.form
	for _, w := range s.writes {
		nw := writeFact{kind: w.kind, val: w.val, status: w.status, errCtx: w.errCtx || c.err || errorish(fn.Name()), at: call.Pos()}
		if nw.val.t != nil {
			nw.val.t = f.instance(call, nw.val.t)
		}
		if w.val.param >= 0 {
			nw.val = unknown
			if a := arg(w.val.param); a != nil {
				nw.val = f.valueOf(a)
				nw.errCtx = nw.errCtx || f.errorishValue(a)
			}
		}
		switch {
		case w.status.param >= 0:
			nw.status = noStatus
			if a := arg(w.status.param); a != nil {
				nw.status = f.constStatus(a)
			}
		case w.status == noStatus:
			nw.status = c.status
		}
		f.sum.writes = append(f.sum.writes, nw)
	}
}
