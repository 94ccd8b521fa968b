package gen

import (
	"go/ast"
	"go/token"
	"go/types"
)

// A handler's JSON reaches the response by many paths: an encoder on the
// ResponseWriter, json.Marshal's bytes written to it, an encoder on a
// buffer the function then writes out, a helper given the writer as an
// io.Writer. The frame follows the value, not the name of the function
// that carries it: which writer an encoder writes to, which buffer holds
// whose JSON, which parameter of a helper is the response.

// A target is where an encoder writes: the response (dest -1), the writer
// parameter dest of the function, or a local buffer.
type target struct {
	dest int
	ok   bool
	buf  *types.Var
}

// encode records an encoding of x to t: an answer when t is a writer, the
// buffer's content when it is a buffer.
func (f *frame) encode(call *ast.CallExpr, t target, x ast.Expr, c *ctx) {
	switch {
	case x == nil:
	case t.buf != nil:
		if f.buffers == nil {
			f.buffers = map[*types.Var]val{}
		}
		f.buffers[t.buf] = f.valueOf(x)
	case t.ok:
		f.write(call, t.dest, "json", f.valueOf(x), c, f.errorishValue(x))
	}
}

// encoderTarget returns where the encoder x (a json.Encoder, a
// jsontext.Encoder) writes.
func (f *frame) encoderTarget(x ast.Expr) target {
	call, ok := f.origin(ast.Unparen(x)).(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return target{}
	}
	switch name, _ := f.callee(call); name {
	case "encoding/json.NewEncoder", jsontext + ".NewEncoder", jsonExpTx + ".NewEncoder":
		return f.streamTarget(call.Args[0])
	}
	return target{}
}

// streamTarget returns what writing to x writes to.
func (f *frame) streamTarget(x ast.Expr) target {
	if dest, ok := f.writerOf(x); ok {
		return target{dest: dest, ok: true}
	}
	if v := f.root(x); v != nil && isBuffer(v.Type()) {
		return target{buf: v}
	}
	return target{}
}

// isBuffer reports whether t is a bytes.Buffer or a strings.Builder, or a
// pointer to one.
func isBuffer(t types.Type) bool {
	t = deref(t)
	return isNamed(t, "bytes", "Buffer") || isNamed(t, "strings", "Builder")
}

// writerOf reports whether x is the response: an http.ResponseWriter
// (dest -1), or the parameter dest of the function, a writer (io.Writer)
// that its caller may give the response.
func (f *frame) writerOf(x ast.Expr) (int, bool) {
	if x == nil {
		return 0, false
	}
	if f.isWriter(x) {
		return -1, true
	}
	i := f.paramIndex(x)
	if i < 0 {
		return 0, false
	}
	iface, ok := f.params[i].Type().Underlying().(*types.Interface)
	rw := f.responseWriter()
	if !ok || rw == nil || !types.Implements(rw, iface) {
		return 0, false
	}
	return i, true
}

// responseWriter returns http.ResponseWriter as the frame's package sees
// it, or nil.
func (f *frame) responseWriter() *types.Interface {
	rw, ok := f.a.writers[f.pkg]
	if !ok {
		rw = responseWriter(f.pkg)
		f.a.writers[f.pkg] = rw
	}
	return rw
}

// jsonOf returns the value whose JSON x holds, as the function made it
// before pos: json.Marshal's bytes, and what they are converted to; a
// buffer an encoder wrote to, its Bytes and String.
func (f *frame) jsonOf(x ast.Expr, pos token.Pos) (val, bool) {
	for range 8 {
		switch e := ast.Unparen(x).(type) {
		case *ast.CallExpr:
			name, _ := f.callee(e)
			switch name {
			case "encoding/json.Marshal", "encoding/json.MarshalIndent", jsonV2 + ".Marshal", jsonExp + ".Marshal":
				if len(e.Args) > 0 {
					return f.valueOf(e.Args[0]), true
				}
				return unknown, false
			case "(*bytes.Buffer).Bytes", "(*bytes.Buffer).String", "(*strings.Builder).String":
				return f.bufferJSON(receiver(e))
			}
			if tv, ok := f.info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
				x = e.Args[0] // []byte(s), string(b)
				continue
			}
			return unknown, false
		case *ast.UnaryExpr:
			if e.Op != token.AND {
				return unknown, false
			}
			return f.bufferJSON(e.X)
		case *ast.Ident:
			v := f.localVar(e)
			if v == nil {
				return unknown, false
			}
			if b, ok := f.buffers[v]; ok {
				return b, true
			}
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
		default:
			return unknown, false
		}
	}
	return unknown, false
}

// bufferJSON returns the value whose JSON the buffer x holds.
func (f *frame) bufferJSON(x ast.Expr) (val, bool) {
	if v := f.root(x); v != nil {
		b, ok := f.buffers[v]
		return b, ok
	}
	return unknown, false
}

// textDecoder returns where a jsontext.Decoder reads from.
func (f *frame) textDecoder(x ast.Expr) source {
	call, ok := f.origin(ast.Unparen(x)).(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return source{param: -1}
	}
	switch name, _ := f.callee(call); name {
	case jsontext + ".NewDecoder", jsonExpTx + ".NewDecoder":
		return f.mentionsBody(call.Args[0])
	}
	return source{param: -1}
}
