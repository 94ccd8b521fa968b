package gen

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/genfacts"
)

// An analyzer reads the handlers of a module's packages.
type analyzer struct {
	ld       *loader
	fset     *token.FileSet
	module   []*pkg // the main module's packages, by path
	decls    map[*types.Func]funcDecl
	decoders map[string]int // taught decoders: FullName → the index of the argument decoded into
	// summaries are the functions read so far, each once for each depth
	// it was reached at (deeper, fewer of its calls are followed); busy
	// are those being read, so that recursion stops.
	summaries map[summaryKey]*summary
	busy      map[*types.Func]bool
	writers   map[*pkg]*types.Interface // http.ResponseWriter, as each package sees it
	// loaded are the libraries read from source, by path, and external
	// their functions, by full name, to be followed into.
	loaded   map[string]bool
	external map[string]*types.Func
	// sites are the routes the router pass found (routes.go), delegates
	// which parameter of a function returning a handler serves its
	// requests.
	sites     map[siteKey]*routeSite
	routes    []routeSite
	delegates map[*types.Func]int
	named     []*types.Named       // the module's concrete named types, for interface calls
	served    map[*types.Func]bool // the functions routes' registrations name as their handlers
	// fields are the functions the module puts in func-typed fields;
	// lits the closures read so far (see funcValue).
	fields   map[fieldKey][]funcTarget
	lits     map[litKey]*summary
	busyLits map[*ast.FuncLit]bool
}

type summaryKey struct {
	fn    *types.Func
	depth int
}

// A funcDecl is a function of the module, with the package it is in.
type funcDecl struct {
	decl *ast.FuncDecl
	pkg  *pkg
}

func newAnalyzer(ld *loader, decoders map[string]int) *analyzer {
	a := &analyzer{ld: ld, fset: ld.fset, decls: map[*types.Func]funcDecl{}, decoders: decoders, summaries: map[summaryKey]*summary{}, busy: map[*types.Func]bool{},
		writers: map[*pkg]*types.Interface{}, loaded: map[string]bool{}, external: map[string]*types.Func{}, delegates: map[*types.Func]int{},
		fields: map[fieldKey][]funcTarget{}, lits: map[litKey]*summary{}, busyLits: map[*ast.FuncLit]bool{}}
	for _, p := range ld.modulePackages() {
		a.module = append(a.module, p)
		a.index(p)
	}
	return a
}

// index records the functions of p, and the decoders its directives
// teach, and returns the functions.
func (a *analyzer) index(p *pkg) []*types.Func {
	var fns []*types.Func
	for _, f := range p.Syntax {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
				a.decls[fn] = funcDecl{fd, p}
				fns = append(fns, fn)
				if n, ok := decoderDirective(fd, fn); ok {
					a.decoders[fn.FullName()] = n
				}
			}
		}
	}
	return fns
}

// standard reports whether the package path is the standard library's.
func (a *analyzer) standard(path string) bool {
	l := a.ld.listed[path]
	return l == nil || l.Standard
}

// decoderDirective reads a "//mcpdoor:decoder dst" line in fd's doc
// comment: fn decodes the body into its argument dst (a parameter's name,
// or its index from 0).
func decoderDirective(fd *ast.FuncDecl, fn *types.Func) (int, bool) {
	if fd.Doc == nil {
		return 0, false
	}
	for _, c := range fd.Doc.List {
		arg, ok := strings.CutPrefix(c.Text, "//mcpdoor:decoder")
		if !ok {
			continue
		}
		arg = strings.TrimSpace(arg)
		params := fn.Signature().Params()
		for i := range params.Len() {
			if params.At(i).Name() == arg || fmt.Sprint(i) == arg {
				return i, true
			}
		}
	}
	return 0, false
}

// A found handler is a handler or middleware of one package, before its
// body is read.
type found struct {
	facts genfacts.Handler
	body  *ast.BlockStmt
	sig   *types.Signature
	pos   token.Pos
	doc   *ast.CommentGroup // the comment its description comes from
}

// generate returns the generated file of package p, or nil when it holds
// no handler with a fact to tell.
func (a *analyzer) generate(p *pkg) ([]byte, []string, []string, error) {
	handlers, warnings := a.handlers(p)
	tw := newTypeWriter(p.Types)
	file := &genfacts.File{Version: genfacts.Version, Package: genfacts.PathPrefix(runtimePackage(p.Types))}
	any := false
	for _, h := range handlers {
		facts := h.facts
		if h.body != nil {
			more, err := a.read(p, h, &facts, tw)
			warnings = append(warnings, more...)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("%s: %s: %v; the handler is left undescribed (please report it)", p.PkgPath, h.facts.At, err))
				facts = genfacts.Handler{Func: h.facts.Func, At: h.facts.At, Middleware: h.facts.Middleware, Note: "gen could not read it"}
			}
		}
		if facts.Doc != "" || facts.Body != nil || len(facts.Query) > 0 || len(facts.Path) > 0 || facts.Output != nil || len(facts.Answers) > 0 {
			any = true
		}
		file.Handlers = append(file.Handlers, facts)
	}
	file.Routes = a.routeFacts(p, tw)
	if len(file.Routes) > 0 {
		any = true
	}
	if !any {
		return nil, warnings, nil, nil
	}
	data, err := writeFile(p, file, tw)
	return data, warnings, notes(p, file), err
}

// notes returns what the file's facts say gen could not read, one line a
// handler or route: "example.com/app/api: items.go:42: (*API).Create: body:
// gen cannot follow …".
func notes(p *pkg, file *genfacts.File) []string {
	var out []string
	prefix := genfacts.PathPrefix(runtimePackage(p.Types)) + "."
	for _, h := range file.Handlers {
		name := strings.TrimPrefix(h.Func, prefix)
		if name == "" {
			name = "closure"
		}
		for _, n := range []struct{ what, note string }{{"body", h.Note}, {"output", h.OutNote}} {
			if n.note != "" && !h.Middleware {
				out = append(out, fmt.Sprintf("%s: %s: %s: %s: %s", p.PkgPath, h.At, name, n.what, n.note))
			}
		}
	}
	for _, r := range file.Routes {
		if r.Note != "" {
			out = append(out, fmt.Sprintf("%s: %s: the route %s %s: %s", p.PkgPath, r.At, r.Method, r.Pattern, r.Note))
		}
	}
	return out
}

// read reads one handler's body into its facts. A bug of gen's reading
// that panics on code it did not foresee costs that handler its facts,
// not the run.
func (a *analyzer) read(p *pkg, h found, facts *genfacts.Handler, tw *typeWriter) (warnings []string, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("gen failed to read it: %v", v)
		}
	}()
	fr := a.newFrame(p, h.sig, 0)
	fr.walkBody(h.body)
	fr.facts(facts, tw)
	return a.applySwag(p, h, fr, facts, tw), nil
}

// handlers returns the handlers and middlewares of package p, in source
// order: its functions and methods of handler or middleware shape, and its
// closures of either shape (a factory's, a middleware's own, one set up
// inline in a route). The closures inside a middleware are its, not
// handlers of their own.
func (a *analyzer) handlers(p *pkg) ([]found, []string) {
	var out []found
	for _, f := range p.Syntax {
		name := filepath.Base(p.Fset.Position(f.Pos()).Filename)
		if name == FileName {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				out = append(out, a.funcHandlers(p, d)...)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					if vs, ok := spec.(*ast.ValueSpec); ok {
						doc := vs.Doc
						if doc == nil {
							doc = d.Doc
						}
						for _, v := range vs.Values {
							out = append(out, a.closures(p, v, doc)...)
						}
					}
				}
			}
		}
	}
	// By file and place, which token.Pos order is not: the files of a
	// package are parsed in no set order.
	slices.SortStableFunc(out, func(x, y found) int {
		px, py := p.Fset.Position(x.pos), p.Fset.Position(y.pos)
		return cmp.Or(cmp.Compare(filepath.Base(px.Filename), filepath.Base(py.Filename)), cmp.Compare(px.Offset, py.Offset))
	})
	// The runtime knows a closure by its file and line: two on one line
	// cannot be told apart, and neither gets facts.
	count := map[string]int{}
	for _, h := range out {
		if h.facts.Func == "" {
			count[h.facts.At]++
		}
	}
	var warnings []string
	for _, at := range slices.Sorted(maps.Keys(count)) {
		if count[at] > 1 {
			warnings = append(warnings, fmt.Sprintf("%s: %s: %d closures on one line, which the running program cannot tell apart: neither is described; put each on a line of its own",
				p.PkgPath, at, count[at]))
		}
	}
	for i := range out {
		if h := &out[i]; h.facts.Func == "" && count[h.facts.At] > 1 {
			h.facts = genfacts.Handler{At: h.facts.At, Note: "two closures on one line, which the running program cannot tell apart: put each on a line of its own"}
			h.body = nil
		}
	}
	return out, warnings
}

// funcHandlers returns what function d is: a handler, a middleware (with
// the closure that does its work), or a function whose closures are
// handlers (a factory's take its doc comment).
func (a *analyzer) funcHandlers(p *pkg, d *ast.FuncDecl) []found {
	fn, ok := p.TypesInfo.Defs[d.Name].(*types.Func)
	if !ok || d.Body == nil || d.Type.TypeParams != nil {
		return nil
	}
	sig := fn.Signature()
	key := genfacts.Handler{Func: a.funcName(p, fn), At: a.at(d.Type.Func), Doc: docText(d.Doc)}
	switch {
	case isHandlerSig(sig) || isErrorHandlerSig(sig) && a.served[fn]:
		return []found{{facts: key, body: d.Body, sig: sig, pos: d.Pos(), doc: d.Doc}}
	case isMiddlewareSig(sig):
		key.Middleware = true
		return a.middleware(p, key, d.Body, sig, d.Pos())
	}
	var doc *ast.CommentGroup
	if returnsHandler(sig) {
		doc = d.Doc // a factory
	}
	return a.closures(p, d.Body, doc)
}

// closures returns the handler and middleware closures inside node. doc
// is the doc comment they take (a factory's), or nil: each then takes the
// comment above its statement.
func (a *analyzer) closures(p *pkg, node ast.Node, doc *ast.CommentGroup) []found {
	var out []found
	ast.Inspect(node, func(n ast.Node) bool {
		lit, ok := n.(*ast.FuncLit)
		if !ok {
			return true
		}
		sig, ok := p.TypesInfo.TypeOf(lit).(*types.Signature)
		if !ok {
			return false
		}
		key := genfacts.Handler{At: a.at(lit.Type.Func)}
		switch {
		case isHandlerSig(sig):
			c := doc
			if c == nil {
				c = a.commentAbove(p, lit)
			}
			key.Doc = docText(c)
			out = append(out, found{facts: key, body: lit.Body, sig: sig, pos: lit.Pos(), doc: c})
			return false
		case isMiddlewareSig(sig):
			key.Middleware = true
			out = append(out, a.middleware(p, key, lit.Body, sig, lit.Pos())...)
			return false
		}
		return true
	})
	return out
}

// middleware returns a middleware: its facts are those of the handler
// closure it wraps around next, read as the handler's reads; and that
// closure, which serves a route that a middleware wraps by hand.
func (a *analyzer) middleware(p *pkg, key genfacts.Handler, body *ast.BlockStmt, sig *types.Signature, pos token.Pos) []found {
	var out []found
	ast.Inspect(body, func(n ast.Node) bool {
		lit, ok := n.(*ast.FuncLit)
		if !ok {
			return true
		}
		if s, ok := p.TypesInfo.TypeOf(lit).(*types.Signature); ok && isHandlerSig(s) {
			if len(out) == 0 {
				key.Doc = "" // a middleware's doc describes no tool
				out = append(out, found{facts: key, body: lit.Body, sig: s, pos: pos})
			}
			out = append(out, found{facts: genfacts.Handler{At: a.at(lit.Type.Func), Wraps: true}, pos: lit.Pos()})
		}
		return false
	})
	return out
}

// commentAbove returns the comment that ends on the line above the
// statement holding lit, if any: the doc of a handler set up inline.
func (a *analyzer) commentAbove(p *pkg, lit *ast.FuncLit) *ast.CommentGroup {
	pos := p.Fset.Position(lit.Pos())
	for _, f := range p.Syntax {
		if p.Fset.Position(f.Pos()).Filename != pos.Filename {
			continue
		}
		var stmt ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil || n.Pos() > lit.Pos() || n.End() < lit.End() {
				return false
			}
			if s, ok := n.(ast.Stmt); ok {
				if _, block := s.(*ast.BlockStmt); !block {
					stmt = s
				}
			}
			return n != lit
		})
		if stmt == nil {
			return nil
		}
		line := p.Fset.Position(stmt.Pos()).Line
		for _, c := range f.Comments {
			if p.Fset.Position(c.End()).Line == line-1 {
				return c
			}
		}
	}
	return nil
}

// at returns the file:line of pos, as runtime.Func.FileLine says it of a
// function whose func keyword is at pos.
func (a *analyzer) at(pos token.Pos) string {
	position := a.fset.Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(position.Filename), position.Line)
}

// funcName returns the runtime's name of a function or method of p.
func (a *analyzer) funcName(p *pkg, fn *types.Func) string {
	sig := fn.Signature()
	recv := sig.Recv()
	if recv == nil {
		return genfacts.FuncName(runtimePackage(p.Types), "", false, false, fn.Name())
	}
	t := recv.Type()
	ptr := false
	if pt, ok := t.(*types.Pointer); ok {
		t, ptr = pt.Elem(), true
	}
	named, _ := types.Unalias(t).(*types.Named)
	if named == nil {
		return ""
	}
	return genfacts.FuncName(runtimePackage(p.Types), named.Obj().Name(), ptr, named.TypeParams().Len() > 0, fn.Name())
}

// runtimePackage is the package's path as the runtime names its
// functions.
func runtimePackage(p *types.Package) string {
	if p.Name() == "main" {
		return "main"
	}
	return p.Path()
}

// docText is a doc comment as a tool's description: its text, each
// paragraph on one line, without swaggo's annotations (see swag.go) and
// the "Name godoc" line they open with.
func docText(c *ast.CommentGroup) string {
	if c == nil {
		return ""
	}
	text := c.Text()
	if swagOf(c) != nil {
		var kept []string
		for _, line := range strings.Split(text, "\n") {
			t := strings.TrimSpace(line)
			if f := strings.Fields(t); strings.HasPrefix(t, "@") || len(f) == 2 && f[1] == "godoc" {
				continue
			}
			kept = append(kept, line)
		}
		text = strings.Join(kept, "\n")
	}
	var paras []string
	for para := range strings.SplitSeq(strings.TrimSpace(text), "\n\n") {
		if para = strings.Join(strings.Fields(para), " "); para != "" {
			paras = append(paras, para)
		}
	}
	return strings.Join(paras, "\n\n")
}

// isHandlerSig reports whether sig is func(http.ResponseWriter,
// *http.Request), a handler's.
func isHandlerSig(sig *types.Signature) bool {
	return sig.Params().Len() == 2 && sig.Results().Len() == 0 && sig.TypeParams() == nil &&
		isNamed(sig.Params().At(0).Type(), "net/http", "ResponseWriter") && isRequest(sig.Params().At(1).Type())
}

// isMiddlewareSig reports whether sig is func(http.Handler) http.Handler.
func isMiddlewareSig(sig *types.Signature) bool {
	return sig.Params().Len() == 1 && sig.Results().Len() == 1 &&
		isNamed(sig.Params().At(0).Type(), "net/http", "Handler") && isNamed(sig.Results().At(0).Type(), "net/http", "Handler")
}

// returnsHandler reports whether a function of signature sig returns a
// handler (http.HandlerFunc, http.Handler or a handler's func type): a
// factory.
func returnsHandler(sig *types.Signature) bool {
	for i := range sig.Results().Len() {
		t := sig.Results().At(i).Type()
		if isNamed(t, "net/http", "HandlerFunc") || isNamed(t, "net/http", "Handler") {
			return true
		}
		if s, ok := t.Underlying().(*types.Signature); ok && isHandlerSig(s) {
			return true
		}
	}
	return false
}

// isNamed reports whether t is the named type pkg.name.
func isNamed(t types.Type, pkg, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

// isRequest reports whether t is *http.Request.
func isRequest(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && isNamed(p.Elem(), "net/http", "Request")
}
