package gen

import (
	"go/ast"
	"go/types"
	"strings"
)

// The functions gen knows by name, which it reads as a handler's decodes,
// reads and answers, rather than follow into.
const (
	renderPkg = "github.com/go-chi/render"
	jsonV2    = "encoding/json/v2"                   // GOEXPERIMENT=jsonv2
	jsonExp   = "github.com/go-json-experiment/json" // the same, as a module
	jsontext  = "encoding/json/jsontext"
	jsonExpTx = "github.com/go-json-experiment/json/jsontext"
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
// one: a decode, a read of the query, form or path, or an answer.
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
	return f.knownDecode(name, call, arg) || f.knownRead(name, call, arg) ||
		f.knownWrite(name, call, arg, c) || f.knownAnswer(name, call, arg, c)
}

// knownDecode reads a call that decodes the request body, and reports
// whether it was one.
func (f *frame) knownDecode(name string, call *ast.CallExpr, arg func(int) ast.Expr) bool {
	switch name {
	case "encoding/json.Unmarshal":
		f.decode(call, arg(1), f.mentionsBody(arg(0)), false, false)
	case "(*encoding/json.Decoder).Decode":
		src, strict := f.decoder(receiver(call))
		f.decode(call, arg(0), src, strict, false)
	case jsonV2 + ".Unmarshal", jsonExp + ".Unmarshal":
		f.decode(call, arg(1), f.mentionsBody(arg(0)), false, false)
	case jsonV2 + ".UnmarshalRead", jsonExp + ".UnmarshalRead":
		f.decode(call, arg(1), f.mentionsBody(arg(0)), false, false)
	case jsonV2 + ".UnmarshalDecode", jsonExp + ".UnmarshalDecode":
		f.decode(call, arg(1), f.textDecoder(arg(0)), false, false)
	case renderPkg + ".Bind":
		f.decode(call, arg(1), body, false, true)
	case renderPkg + ".DecodeJSON":
		f.decode(call, arg(1), f.mentionsBody(arg(0)), false, false)
	case renderPkg + ".Decode", renderPkg + ".DefaultDecoder":
		f.decode(call, arg(1), body, false, false)
	default:
		return false
	}
	return true
}

// knownRead reads a call that reads the query, a form or the path, and
// reports whether it was one.
func (f *frame) knownRead(name string, call *ast.CallExpr, arg func(int) ast.Expr) bool {
	switch name {
	case "(net/url.Values).Get", "(net/url.Values).Has":
		f.queryRead(arg(0), f.values(receiver(call)), "")
	case "(*net/http.Request).FormValue":
		f.queryRead(arg(0), "query", "")
	case "(*net/http.Request).PostFormValue", "(*net/http.Request).FormFile", "(*net/http.Request).MultipartReader":
		f.sum.form = true
	case "(*net/http.Request).PathValue":
		f.pathRead(arg(0))
	default:
		return false
	}
	return true
}

// knownWrite reads a call that writes to a writer, the response or one
// that goes to it, and reports whether it was one.
func (f *frame) knownWrite(name string, call *ast.CallExpr, arg func(int) ast.Expr, c *ctx) bool {
	switch name {
	case jsonV2 + ".MarshalWrite", jsonExp + ".MarshalWrite":
		f.encode(call, f.streamTarget(arg(0)), arg(1), c)
	case jsonV2 + ".MarshalEncode", jsonExp + ".MarshalEncode":
		f.encode(call, f.encoderTarget(arg(0)), arg(1), c)
	case "(*encoding/json.Encoder).Encode":
		f.encode(call, f.encoderTarget(receiver(call)), arg(0), c)
	case "(net/http.ResponseWriter).Write", "(io.Writer).Write":
		f.writeTo(call, receiver(call), arg(0), c, f.errorishValue(arg(0)))
	case "(*bytes.Buffer).WriteTo", "(*strings.Reader).WriteTo", "(*bytes.Reader).WriteTo":
		f.writeTo(call, arg(0), receiver(call), c, false)
	case "io.Copy", "io.CopyN", "io.WriteString", "fmt.Fprint", "fmt.Fprintln":
		if dest, ok := f.writerOf(arg(0)); ok {
			if v, ok := f.jsonOf(arg(1), call.Pos()); ok && (len(call.Args) == 2 || name == "io.CopyN") {
				f.write(call, dest, "json", v, c, false)
			} else {
				f.write(call, dest, f.textKind(), unknown, c, false)
			}
		}
	case "fmt.Fprintf", "(*text/template.Template).Execute", "(*text/template.Template).ExecuteTemplate":
		if dest, ok := f.writerOf(arg(0)); ok {
			f.write(call, dest, f.textKind(), unknown, c, false)
		}
	case "(*html/template.Template).Execute", "(*html/template.Template).ExecuteTemplate":
		if dest, ok := f.writerOf(arg(0)); ok {
			f.write(call, dest, "html", unknown, c, false)
		}
	default:
		return false
	}
	return true
}

// writeTo reads a write of value to writer: JSON when the value is known
// JSON, else text.
func (f *frame) writeTo(call *ast.CallExpr, writer, value ast.Expr, c *ctx, errorish bool) {
	dest, ok := f.writerOf(writer)
	if !ok {
		return
	}
	if v, ok := f.jsonOf(value, call.Pos()); ok {
		f.write(call, dest, "json", v, c, errorish)
	} else {
		f.write(call, dest, f.textKind(), unknown, c, false)
	}
}

// knownAnswer reads a call that answers the request as a whole, or sets
// its status or Content-Type, and reports whether it was one.
func (f *frame) knownAnswer(name string, call *ast.CallExpr, arg func(int) ast.Expr, c *ctx) bool {
	switch name {
	case "(net/http.ResponseWriter).WriteHeader":
		c.status = f.constStatus(arg(0))
		if c.status.code == 204 || c.status.code == 304 {
			f.write(call, -1, "empty", unknown, c, false)
		}
	case renderPkg + ".Status":
		c.status = f.constStatus(arg(1))
	case renderPkg + ".JSON", renderPkg + ".Respond", renderPkg + ".DefaultResponder", renderPkg + ".Render", renderPkg + ".RenderList":
		f.write(call, -1, "json", f.valueOf(arg(2)), c, f.errorishValue(arg(2)))
	case renderPkg + ".PlainText", renderPkg + ".Data", renderPkg + ".XML":
		f.write(call, -1, "text", unknown, c, false)
	case renderPkg + ".HTML":
		f.write(call, -1, "html", unknown, c, false)
	case renderPkg + ".NoContent":
		f.write(call, -1, "empty", unknown, c, false)
	case "net/http.Error":
		f.write(call, -1, "error", unknown, &ctx{status: f.constStatus(arg(2)), err: true}, true)
	case "net/http.NotFound":
		f.write(call, -1, "error", unknown, &ctx{status: status{code: 404, param: -1}, err: true}, true)
	case "net/http.Redirect":
		f.write(call, -1, "redirect", unknown, c, false)
	case "net/http.ServeFile", "net/http.ServeContent", "net/http.ServeFileFS":
		f.write(call, -1, "text", unknown, c, false)
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

// write records an answer, to the response (dest -1) or to the writer
// that parameter dest of the function is given.
func (f *frame) write(call *ast.CallExpr, dest int, kind string, v val, c *ctx, errHint bool) {
	f.sum.writes = append(f.sum.writes, writeFact{kind: kind, val: v, status: c.status, errCtx: c.err || errHint, at: call.Pos(), dest: dest})
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
		// A url.Values kept in a parameter's or the receiver's field:
		// what the caller put there, a query as for a parameter.
		if isNamed(f.info.TypeOf(x), "net/url", "Values") && f.fromCaller(x.X) {
			return "query"
		}
	case *ast.Ident:
		// A parameter or receiver that is, or holds, a url.Values: the
		// caller's query (a helper's q, a typed reader's embedded Values).
		if f.fromCaller(x) && holdsValues(f.info.TypeOf(x)) {
			return "query"
		}
	}
	return ""
}

// fromCaller reports whether x is a parameter or the receiver of the
// function, or a field of one, at any depth.
func (f *frame) fromCaller(x ast.Expr) bool {
	for {
		switch e := ast.Unparen(x).(type) {
		case *ast.SelectorExpr:
			x = e.X
		case *ast.StarExpr:
			x = e.X
		case *ast.Ident:
			obj := f.info.ObjectOf(e)
			return obj != nil && (f.paramIndex(e) >= 0 || f.recv != nil && obj == f.recv)
		default:
			return false
		}
	}
}

// holdsValues reports whether t is a url.Values, or a struct (or a
// pointer to one) that embeds one.
func holdsValues(t types.Type) bool {
	if t == nil {
		return false
	}
	if isNamed(t, "net/url", "Values") {
		return true
	}
	st, ok := deref(t).Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		if fld := st.Field(i); fld.Embedded() && isNamed(fld.Type(), "net/url", "Values") {
			return true
		}
	}
	return false
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
// bound to the call's arguments: its decodes, its reads and its writes.
func (f *frame) apply(s *summary, call *ast.CallExpr, name string, c *ctx) {
	arg := func(i int) ast.Expr {
		if i >= 0 && i < len(call.Args) {
			return call.Args[i]
		}
		return nil
	}
	f.applyDecodes(s, call, arg)
	f.applyReads(s, arg)
	f.applyWrites(s, call, name, c, arg)
}

// applyDecodes adds the decodes of a call summarized as s.
func (f *frame) applyDecodes(s *summary, call *ast.CallExpr, arg func(int) ast.Expr) {
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
}

// applyReads adds the query, form and path reads of a call summarized as
// s, each key bound to the call's argument when it is a parameter's.
func (f *frame) applyReads(s *summary, arg func(int) ast.Expr) {
	bindStr := func(k str) str {
		if k.param < 0 {
			return k
		}
		if a := arg(k.param); a != nil {
			return f.constString(a)
		}
		return str{}
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
	f.sum.opaque = append(f.sum.opaque, s.opaque...)
}

// applyWrites adds the writes to the response of a call of name
// summarized as s, in ctx c.
func (f *frame) applyWrites(s *summary, call *ast.CallExpr, name string, c *ctx, arg func(int) ast.Expr) {
	for _, w := range s.writes {
		nw := writeFact{kind: w.kind, val: w.val, status: w.status, errCtx: w.errCtx || c.err || errorish(name), at: call.Pos(), dest: -1}
		if w.dest >= 0 {
			dest, ok := f.writerOf(arg(w.dest))
			if !ok {
				continue // written to another writer than the response
			}
			nw.dest = dest
		}
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
