package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/genfacts"
)

// facts sets what the frame's handler read and wrote on h, naming types
// through tw.
func (f *frame) facts(h *genfacts.Handler, tw *typeWriter) {
	s := f.sum
	if body := f.bodyFacts(h, tw); body != nil {
		h.Body = body
	}
	h.Query = f.queryFacts()
	for _, p := range s.path {
		if p.param < 0 && !slices.Contains(h.Path, p.s) {
			h.Path = append(h.Path, p.s)
		}
	}
	h.Form = s.form
	if h.Body == nil && !h.Form && h.Note == "" {
		if o := f.firstOpaque(func(o opaqueCall) bool { return o.request }); o != nil {
			h.Note = "gen cannot follow " + o.what + ", at " + f.a.at(o.at) + ", which is handed the request: the body it may decode there is unknown"
		}
	}
	if h.Middleware {
		return // what a middleware answers is not its routes' answer
	}
	h.Delegates = s.delegates && !h.Wraps
	kinds := map[string]bool{}
	var outs []writeFact
	for _, w := range s.writes {
		if w.error() || w.dest >= 0 {
			continue
		}
		kinds[w.kind] = true
		if w.kind == "json" {
			outs = append(outs, w)
		}
	}
	for _, k := range []string{"empty", "html", "json", "redirect", "text"} {
		if kinds[k] {
			h.Answers = append(h.Answers, k)
		}
	}
	switch {
	case len(outs) > 0:
		i := -1
		h.OutNote = f.outputNote(outs, kinds)
		if h.OutNote == "" {
			var err error
			if i, err = tw.index(oneType(vals(outs))); err != nil {
				i, h.OutNote = -1, "its answer's type cannot be named from the generated file: "+err.Error()
			}
		}
		h.Output = &i
	case !kinds["text"] && !kinds["html"] && !kinds["empty"] && !kinds["redirect"]:
		if o := f.firstOpaque(func(o opaqueCall) bool { return o.writer }); o != nil {
			h.OutNote = "gen cannot follow " + o.what + ", at " + f.a.at(o.at) + ", which is handed the response: what it answers there is unknown"
		}
	}
}

// outputNote says why the JSON answers outs give no output schema, or
// returns "" when they do: they are all of one type, and the handler
// answers no text.
func (f *frame) outputNote(outs []writeFact, kinds map[string]bool) string {
	switch {
	case kinds["text"] || kinds["html"]:
		return "it answers text as well as JSON"
	case oneType(vals(outs)) != nil:
		return ""
	}
	var places []string
	for _, w := range outs {
		what := "a value whose type gen cannot tell"
		if w.val.t != nil {
			what = types.TypeString(w.val.t, types.RelativeTo(f.pkg.Types))
		}
		places = append(places, what+" at "+f.a.at(w.at))
	}
	if oneType(vals(outs[:1])) == nil && len(outs) == 1 {
		return "it answers JSON of " + places[0] + " (an interface value)"
	}
	return "it answers JSON of several types: " + strings.Join(places, ", ")
}

func vals(ws []writeFact) []val {
	out := make([]val, len(ws))
	for i, w := range ws {
		out[i] = w.val
	}
	return out
}

// firstOpaque returns the first call gen could not follow that keep
// keeps, or nil.
func (f *frame) firstOpaque(keep func(opaqueCall) bool) *opaqueCall {
	for i, o := range f.sum.opaque {
		if keep(o) {
			return &f.sum.opaque[i]
		}
	}
	return nil
}

// bodyFacts returns the body the handler decodes, or nil.
func (f *frame) bodyFacts(h *genfacts.Handler, tw *typeWriter) *genfacts.Body {
	var decodes []decodeFact
	var dests []val
	for _, d := range f.sum.decodes {
		if d.src.body {
			decodes = append(decodes, d)
			dests = append(dests, d.dest)
		}
	}
	if len(decodes) == 0 {
		return nil
	}
	b := &genfacts.Body{Type: -1}
	t := oneType(dests)
	if t == nil {
		h.Note = "the handler decodes its body into a value whose type gen cannot tell (an interface, or several types)"
		return b
	}
	if len(decodes) == 1 {
		if m := f.mapMembers(decodes[0], t); m != nil {
			t = m
		}
	}
	n, err := tw.index(t)
	if err != nil {
		h.Note = "the body's type " + types.TypeString(t, types.RelativeTo(f.pkg.Types)) + " cannot be named from the generated file: " + err.Error()
		return b
	}
	b.Type = n
	b.Strict = !slices.ContainsFunc(decodes, func(d decodeFact) bool { return !d.strict })
	if len(decodes) == 1 {
		b.Required = f.required(decodes[0])
	}
	return b
}

// queryFacts returns the query parameters the handler reads, once each,
// with what it parses them as and whether it refuses a request without.
func (f *frame) queryFacts() []genfacts.Param {
	var out []genfacts.Param
	find := func(name string) *genfacts.Param {
		for i := range out {
			if out[i].Name == name {
				return &out[i]
			}
		}
		return nil
	}
	for _, q := range f.sum.query {
		if q.key.param >= 0 {
			continue
		}
		p := find(q.key.s)
		if p == nil {
			out = append(out, genfacts.Param{Name: q.key.s})
			p = &out[len(out)-1]
		}
		if q.typ == "array" {
			p.Type = "array"
		}
		p.Required = p.Required || q.required
	}
	for _, t := range f.sum.typings {
		if p := find(t.key.s); p != nil && t.key.param < 0 && p.Type == "" {
			p.Type = t.typ
		}
	}
	if f.body != nil {
		for _, s := range f.always(f.body.List, f.refuses) {
			for ifs, _ := s.(*ast.IfStmt); ifs != nil && f.refuses(ifs.Body); ifs = elseIf(ifs) {
				for _, atom := range disjuncts(ifs.Cond) {
					if x := f.zeroChecked(atom); x != nil {
						if k := f.queryKey(x); k.ok && k.param < 0 {
							if p := find(k.s); p != nil && p.Type != "array" {
								p.Required = true
							}
						}
					}
				}
			}
		}
	}
	return out
}

// oneType returns the type every value has (a pointer's element for a
// pointer), or nil when one is unknown or they differ.
func oneType(vals []val) types.Type {
	var t types.Type
	for _, v := range vals {
		if v.t == nil {
			return nil
		}
		vt := v.t
		if p, ok := vt.(*types.Pointer); ok {
			vt = p.Elem()
		}
		switch {
		case t == nil:
			t = vt
		case !types.Identical(t, vt):
			return nil
		}
	}
	return t
}

// mapMembers returns, for a body decoded into a map keyed by strings that
// the handler reads by constant keys (in["name"]), a struct type with a
// field for each key: the body's schema then names them, and admits
// others, as the map does. Nil otherwise.
func (f *frame) mapMembers(d decodeFact, t types.Type) types.Type {
	m, ok := t.Underlying().(*types.Map)
	if !ok {
		return nil
	}
	if b, ok := m.Key().Underlying().(*types.Basic); !ok || b.Kind() != types.String {
		return nil
	}
	root := d.root
	if root == nil {
		root = f.root(d.arg)
	}
	if root == nil || f.body == nil {
		return nil
	}
	var fields []*types.Var
	var tags []string
	seen := map[string]bool{}
	ast.Inspect(f.body, func(n ast.Node) bool {
		ix, ok := n.(*ast.IndexExpr)
		if !ok || f.localVar(ix.X) != root {
			return true
		}
		k := f.constString(ix.Index)
		if !k.ok || k.param >= 0 || seen[k.s] || !validTagName(k.s) {
			return true
		}
		seen[k.s] = true
		fields = append(fields, types.NewField(token.NoPos, f.pkg.Types, fmt.Sprintf("F%d", len(fields)), m.Elem(), false))
		tags = append(tags, fmt.Sprintf("json:%q", k.s))
		return true
	})
	if len(fields) == 0 {
		return nil
	}
	return types.NewStruct(fields, tags)
}
