package gen

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/genfacts"
)

// A handler's doc comment may carry swaggo's annotations, written for a
// Swagger document:
//
//	// ListPets godoc
//	//
//	//	@Summary	List pets
//	//	@Param		limit	query		int	false	"at most this many"
//	//	@Param		pet		body		model.NewPet	true	"the pet"
//	//	@Success	200		{object}	model.PetPage
//	//	@Router		/pets [get]
//
// gen reads them as what they are: the summary and description are the
// tool's description (not the comment's raw text); a query parameter
// adds itself, its type and its description; the body's and the
// success answer's types stand for those the code does not show. Where
// they say otherwise than the code, the code wins, and gen warns.

// A swagDoc is what a handler's annotations say.
type swagDoc struct {
	summary, description string
	params               []swagParam
	success              *swagType // the 2xx answer
}

type swagParam struct {
	name, in, typ, desc string
	required            bool
}

// A swagType is an annotation's type: {object} T, {array} T.
type swagType struct {
	kind, name string
}

// swagOf returns the annotations of a doc comment, or nil when it has
// none.
func swagOf(c *ast.CommentGroup) *swagDoc {
	if c == nil {
		return nil
	}
	var s swagDoc
	found := false
	for _, line := range strings.Split(c.Text(), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "@") {
			continue
		}
		key, rest := line, ""
		if i := strings.IndexAny(line, " \t"); i >= 0 {
			key, rest = line[:i], strings.TrimSpace(line[i:])
		}
		switch strings.ToLower(key) {
		case "@summary":
			s.summary, found = rest, true
		case "@description":
			s.description, found = strings.TrimSpace(s.description+" "+rest), true
		case "@param":
			if p, ok := parseSwagParam(rest); ok {
				s.params, found = append(s.params, p), true
			}
		case "@success":
			f := strings.Fields(rest)
			if len(f) >= 3 && strings.HasPrefix(f[0], "2") && s.success == nil {
				s.success, found = &swagType{kind: strings.Trim(f[1], "{}"), name: f[2]}, true
			}
		case "@router", "@tags", "@accept", "@produce", "@failure", "@security", "@id", "@deprecated", "@header":
			found = true
		}
	}
	if !found {
		return nil
	}
	return &s
}

// parseSwagParam reads `name in type required "description"`.
func parseSwagParam(s string) (swagParam, bool) {
	f := strings.Fields(s)
	if len(f) < 4 {
		return swagParam{}, false
	}
	p := swagParam{name: f[0], in: f[1], typ: f[2], required: f[3] == "true"}
	if i := strings.IndexByte(s, '"'); i >= 0 {
		if j := strings.IndexByte(s[i+1:], '"'); j >= 0 {
			p.desc = s[i+1 : i+1+j]
		}
	}
	return p, true
}

// text is the annotations' description: the summary, then the
// description.
func (s *swagDoc) text() string {
	switch {
	case s.summary == "":
		return s.description
	case s.description == "" || s.description == s.summary:
		return s.summary
	}
	return s.summary + "\n\n" + s.description
}

// swagType is what a query parameter's annotated type is in the facts.
func swagParamType(t string) string {
	switch strings.ToLower(t) {
	case "int", "integer", "int32", "int64", "uint", "uint64":
		return "integer"
	case "number", "float", "float32", "float64":
		return "number"
	case "bool", "boolean":
		return "boolean"
	case "array":
		return "array"
	}
	if strings.HasPrefix(t, "[]") {
		return "array"
	}
	return ""
}

// applySwag sets on facts what h's annotations say and the code does not,
// and returns a warning for each thing they say otherwise.
func (a *analyzer) applySwag(p *pkg, h found, fr *frame, facts *genfacts.Handler, tw *typeWriter) []string {
	s := swagOf(h.doc)
	if s == nil || facts.Middleware {
		return nil
	}
	var warnings []string
	warn := func(format string) {
		name := facts.Func
		if name == "" {
			name = "the handler"
		} else {
			name = strings.TrimPrefix(name, genfacts.PathPrefix(runtimePackage(p.Types))+".")
		}
		warnings = append(warnings, p.PkgPath+": "+facts.At+": "+name+": "+format+"; the code wins")
	}
	if d := s.text(); d != "" {
		facts.Doc = d
	}
	for _, sp := range s.params {
		switch sp.in {
		case "query":
			a.swagQuery(sp, fr, facts, warn)
		case "body":
			a.swagBody(sp, p, h, facts, tw, warn)
		}
	}
	if sc := s.success; sc != nil && (sc.kind == "object" || sc.kind == "array") {
		a.swagSuccess(sc, p, h, facts, tw, warn)
	}
	return warnings
}

// swagQuery applies a query @Param: a parameter the code does not read is
// added, and one it reads takes its doc, and its type where the code
// parses none.
func (a *analyzer) swagQuery(sp swagParam, fr *frame, facts *genfacts.Handler, warn func(string)) {
	typ := swagParamType(sp.typ)
	i := -1
	for j := range facts.Query {
		if facts.Query[j].Name == sp.name {
			i = j
		}
	}
	if i < 0 {
		facts.Query = append(facts.Query, genfacts.Param{Name: sp.name, Type: typ, Doc: sp.desc})
		return
	}
	q := &facts.Query[i]
	q.Doc = sp.desc
	switch {
	case q.Type == "" && typ != "" && !a.parsed(fr, sp.name):
		q.Type = typ
	case q.Type != "" && typ != "" && q.Type != typ:
		warn("its @Param " + sp.name + " says " + typ + ", the code reads it as " + q.Type)
	}
}

// swagBody applies a body @Param: the body's type, where the code decodes
// none.
func (a *analyzer) swagBody(sp swagParam, p *pkg, h found, facts *genfacts.Handler, tw *typeWriter, warn func(string)) {
	t := a.swagGoType(p, h.pos, sp.typ)
	if t == nil {
		warn("its @Param " + sp.name + " names the type " + sp.typ + ", which gen cannot find")
		return
	}
	switch b := facts.Body; {
	case b == nil:
		if n, err := tw.index(t); err == nil {
			facts.Body, facts.Note = &genfacts.Body{Type: n}, ""
		}
	case b.Type >= 0 && b.Type < len(tw.types) && !types.Identical(tw.types[b.Type], t):
		warn("its @Param " + sp.name + " says the body is " + sp.typ + ", the code decodes " + types.TypeString(tw.types[b.Type], pkgName))
	}
}

// swagSuccess applies an @Success of an object or an array: the answer's
// type, where the code answers none gen can read.
func (a *analyzer) swagSuccess(sc *swagType, p *pkg, h found, facts *genfacts.Handler, tw *typeWriter, warn func(string)) {
	t := a.swagGoType(p, h.pos, sc.name)
	if t == nil {
		warn("its @Success names the type " + sc.name + ", which gen cannot find")
		return
	}
	if sc.kind == "array" {
		t = types.NewSlice(t)
	}
	switch o := facts.Output; {
	case o == nil || *o < 0:
		if n, err := tw.index(t); err == nil {
			facts.Output, facts.OutNote = &n, ""
			if !containsString(facts.Answers, "json") {
				facts.Answers = append(facts.Answers, "json")
			}
		}
	case *o < len(tw.types) && !types.Identical(deref(tw.types[*o]), deref(t)):
		warn("its @Success says it answers " + sc.name + ", the code answers " + types.TypeString(tw.types[*o], pkgName))
	}
}

// parsed reports whether the handler parses the query parameter name,
// which the facts' type then says (a string, when it parses nothing).
func (a *analyzer) parsed(fr *frame, name string) bool {
	for _, t := range fr.sum.typings {
		if t.key.param < 0 && t.key.s == name {
			return true
		}
	}
	return false
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// swagGoType returns the Go type an annotation names, as the file of pos
// sees it: "model.Pet", "[]model.Pet", "Pet", "example.com/app/model.Pet";
// nil for one it does not name (swaggo's compositions among them).
func (a *analyzer) swagGoType(p *pkg, pos token.Pos, name string) types.Type {
	if elem, ok := strings.CutPrefix(name, "[]"); ok {
		if t := a.swagGoType(p, pos, elem); t != nil {
			return types.NewSlice(t)
		}
		return nil
	}
	if strings.ContainsAny(name, "{}=") {
		return nil
	}
	qual, typeName, ok := cutLast(name, ".")
	if !ok {
		if obj, ok := p.Types.Scope().Lookup(name).(*types.TypeName); ok {
			return obj.Type()
		}
		if obj, ok := types.Universe.Lookup(name).(*types.TypeName); ok {
			return obj.Type()
		}
		return nil
	}
	var imported *types.Package
	for _, f := range p.Syntax {
		if f.Pos() > pos || pos > f.End() {
			continue
		}
		for _, spec := range f.Imports {
			var pn *types.PkgName
			if spec.Name != nil {
				pn, _ = p.TypesInfo.Defs[spec.Name].(*types.PkgName)
			} else {
				pn, _ = p.TypesInfo.Implicits[spec].(*types.PkgName)
			}
			if pn != nil && (pn.Name() == qual || pn.Imported().Path() == qual) {
				imported = pn.Imported()
			}
		}
	}
	if imported == nil {
		return nil
	}
	if obj, ok := imported.Scope().Lookup(typeName).(*types.TypeName); ok && obj.Exported() {
		return obj.Type()
	}
	return nil
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return "", s, false
	}
	return s[:i], s[i+len(sep):], true
}

// pkgName qualifies a type by its package's name, as its source writes
// it.
func pkgName(p *types.Package) string { return p.Name() }
