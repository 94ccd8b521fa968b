package harvest

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
)

// A REST tool's arguments are one JSON object: its route's path
// parameters, its query parameters and its JSON body's members, side by
// side. Which member goes where:
//
//   - a member named like a path parameter fills it in;
//   - a member named like a query parameter (the OpenAPI document's, or
//     a declaration's, see below) is sent in the query;
//   - every other member is the body's, when the route takes a body (a
//     typed handler's, the document's request body, or else a POST, PUT or
//     PATCH route), and a query parameter when it does not (GET and DELETE).
//
// The input schema is the body's (the typed handler's, the document's
// request body's), with the path and query parameters added as required
// and optional properties. Config.Declared gives the whole input schema
// instead; its query parameters are its properties that are neither path
// parameters nor members of a body that the typed handler or the document
// describes.

// RESTOptions returns the detector's REST options for mcp.rest's methods
// and names, Config.Declared and the OpenAPI document.
//
// gen holds the generated facts, which tell a browser's route (see
// leftOff); nil for none.
func RESTOptions(methods []string, names map[string]string, declared map[string]Declaration, doc *openapi.Document, gen *GenIndex) *detect.RESTOptions {
	o := &detect.RESTOptions{Methods: methods, Names: make(map[string]string, len(names))}
	for k, v := range names {
		// An http.ServeMux pattern's {$} is the end of its path (Wrap).
		o.Names[strings.Replace(k, "{$}", "", 1)] = v
	}
	o.Document = func(rt *detect.Route) (string, string) {
		op := operationOf(doc, rt)
		id := ""
		if op != nil {
			id = op.ID
		}
		return id, leftOff(declared, doc, op, rt, gen)
	}
	return o
}

// sendsBody reports whether a request of method carries a body when
// nothing else says: POST, PUT and PATCH do.
func sendsBody(method string) bool {
	return method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch
}

// RESTRoute turns a tool route of the REST reading into a Tool: its
// input schema as above, and the rest as harvest does for a tool route,
// with the annotations the method implies last. A route without an
// operation in the document takes its body and query parameters from the
// generated facts of its handler and its middlewares (gens), when there
// are some. A tool whose arguments cannot be one object (a body member
// named like a path parameter) gets the refusal, reported if the tool is
// kept.
func RESTRoute(rt *detect.Route, declared map[string]Declaration, doc *openapi.Document, gens *GenIndex) Spec {
	h := newRESTHarvest(rt, declared, doc, gens)
	h.readBody()
	h.readParams(gens)
	if h.isDeclared && h.decl.Input != nil {
		h.declaredInput()
	} else {
		h.assembledInput()
	}
	h.finishInput()
	h.describe()
	finishTool(&h.t)
	return h.t
}

// A restHarvest is one REST route's tool as RESTRoute builds it, step by
// step: what each source says of the route, then the input they make.
type restHarvest struct {
	rt         *detect.Route
	t          Spec
	rest       *REST
	op         *openapi.Operation // the route's operation in the document, or nil
	typed      *TypedInfo         // the typed handler's, or nil
	gen        *genHandler        // the generated facts of the handler, or nil
	genBody    *jsonschema.Schema // the body the handler decodes, as gen read it
	genNote    string             // why that body has no schema
	decl       Declaration
	isDeclared bool

	body        *jsonschema.Schema // the request body's schema, or nil
	bodyFrom    string             // where it comes from, for a clash's text
	bodyProps   []string           // its properties
	pathSchemas map[string]*jsonschema.Schema
	query       []openapi.Param
	clashes     []string // the arguments that cannot share one object
}

// newRESTHarvest gathers what the document, the typed handler, the
// generated facts and the declarations say of route rt.
func newRESTHarvest(rt *detect.Route, declared map[string]Declaration, doc *openapi.Document, gens *GenIndex) *restHarvest {
	h := &restHarvest{
		rt: rt,
		t: Spec{
			Name:     rt.Name,
			Route:    rt.Method + " " + rt.Pattern,
			Verdict:  rt.Verdict,
			Reasons:  rt.Reasons,
			Detected: rt,
		},
		rest: &REST{Method: rt.Method, Op: operationOf(doc, rt)},
	}
	h.t.REST = h.rest
	h.op = h.rest.Op
	h.typed = typedInfo(rt.Endpoint)
	h.gen = gens.of(rt, rt.Name)
	if h.gen != nil {
		h.genBody, h.genNote = h.gen.body()
		h.genBody, h.genNote = withoutParams(h.genBody, h.genNote, rt.Params)
	}
	h.decl, h.isDeclared = declared[rt.Name]
	return h
}

// readBody decides the body: its schema, where it comes from, and whether
// the route is sent one.
func (h *restHarvest) readBody() {
	h.chooseBody()
	op, rest := h.op, h.rest
	if op != nil && op.HasBody && op.Input == nil && op.Body == nil && h.typed == nil {
		h.t.Note = "openapi: " + op.NoInput
	}
	if h.body != nil && !objectBody(h.body) {
		h.body, rest.BodyArg = bodyInput(h.body), bodyArgument
	}
	// A route whose facts say its handler reads no body is sent none: its
	// arguments that are not path parameters are query parameters.
	rest.Body = h.typed != nil || rest.BodyArg != "" || (op != nil && op.HasBody) ||
		(op == nil && (h.genBody != nil || sendsBody(h.rt.Method) && (h.isDeclared && h.decl.Input != nil || !h.gen.readsNoBody())))
	h.bodyProps = properties(h.body)
}

// chooseBody takes the body's schema from the first source that gives
// one: the typed handler, a declaration of a body that is not an object,
// the document, the generated facts.
func (h *restHarvest) chooseBody() {
	t, op := &h.t, h.op
	switch {
	case h.typed != nil:
		h.body, h.bodyFrom, t.SchemaSource = h.typed.Input, "the typed handler's input", SourceTyped
	case h.isDeclared && h.decl.Input != nil && !objectBody(h.decl.Input):
		// A declaration of a body that is not an object is the body's
		// schema, not the whole input.
		h.body, h.bodyFrom, t.SchemaSource = h.decl.Input, "the declaration", SourceDeclared
		h.decl.Input = nil
	case op != nil && op.HasBody && op.Input != nil:
		h.body, h.bodyFrom, t.SchemaSource = op.Input, "the OpenAPI request body", SourceOpenAPI
	case op != nil && op.Body != nil: // not an object
		h.body, h.bodyFrom, t.SchemaSource = op.Body, "the OpenAPI request body", SourceOpenAPI
	case op != nil:
		t.SchemaSource = SourceOpenAPI
	case h.genBody != nil:
		h.body, h.bodyFrom, t.SchemaSource, t.Note = h.genBody, "the handler's body, as mcpdoor gen read it", SourceGenerated, h.genNote
	case h.gen != nil:
		t.SchemaSource, t.Note = SourceGenerated, h.genNote
	default:
		t.SchemaSource = SourcePermissive
	}
}

// readParams reads the path and query parameters, and the path parameters
// the body's fields clash with.
func (h *restHarvest) readParams(gens *GenIndex) {
	h.pathSchemas = make(map[string]*jsonschema.Schema, len(h.rt.Params))
	for _, p := range h.rt.Params {
		h.rest.Params = append(h.rest.Params, p.Name)
		s := &jsonschema.Schema{Type: "string", MinLength: ptrTo(1)}
		if p.Regexp != "" {
			s.Pattern = p.Regexp
		}
		h.pathSchemas[p.Name] = s
	}
	if h.op == nil && h.gen != nil {
		h.query = unclashed(h.gen.query(gens.middlewareQuery(h.rt)), h.rt.Params, h.genBody)
	}
	if h.op != nil {
		for _, p := range h.op.Params {
			switch {
			case p.In == "path" && h.pathSchemas[p.Name] != nil && p.Schema != nil:
				h.pathSchemas[p.Name] = described(p.Schema, p.Description)
			case p.In == "query":
				h.query = append(h.query, p)
			}
		}
	}
	for _, name := range h.rest.Params {
		if slices.Contains(h.bodyProps, name) {
			h.clashes = append(h.clashes, fmt.Sprintf("the body's field %q (in %s) has the name of the path parameter {%s}", name, h.bodyFrom, name))
		}
	}
}

// declaredInput makes the input of a declared route: the declaration is
// the whole input; the path parameters it leaves out are added.
func (h *restHarvest) declaredInput() {
	rest := h.rest
	input := rootClone(h.decl.Input)
	h.t.SchemaSource = SourceDeclared
	for _, name := range rest.Params {
		if _, ok := input.Properties[name]; !ok {
			setProperty(input, name, h.pathSchemas[name])
		}
		if !slices.Contains(input.Required, name) {
			input.Required = append(input.Required, name)
		}
	}
	for _, name := range sortedKeys(input.Properties) {
		isBody := slices.Contains(h.bodyProps, name) || h.body == nil && rest.Body
		if !slices.Contains(rest.Params, name) && !isBody {
			rest.Query = append(rest.Query, name)
		}
	}
	h.t.InputSchema = input
}

// assembledInput makes the input of a route without a declaration: the
// body's schema, with the path and then the query parameters added.
func (h *restHarvest) assembledInput() {
	rest, op := h.rest, h.op
	var input *jsonschema.Schema
	switch {
	case h.body != nil:
		input = rootClone(h.body)
	case op != nil && !op.HasBody:
		input = &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	default:
		input = permissiveSchema()
	}
	var order, required []string
	queryFrom := "the OpenAPI document"
	if op == nil {
		queryFrom = "the handler's reads, as mcpdoor gen found them"
	}
	for _, name := range rest.Params {
		if slices.Contains(h.bodyProps, name) {
			continue // a clash
		}
		setProperty(input, name, h.pathSchemas[name])
		required = append(required, name)
		order = append(order, name)
	}
	for _, p := range h.query {
		switch {
		case slices.Contains(rest.Params, p.Name):
			h.clashes = append(h.clashes, fmt.Sprintf("the query parameter %q (in %s) has the name of the path parameter {%s}", p.Name, queryFrom, p.Name))
			continue
		case slices.Contains(h.bodyProps, p.Name):
			h.clashes = append(h.clashes, fmt.Sprintf("the query parameter %q (in %s) has the name of the body's field %q (in %s)", p.Name, queryFrom, p.Name, h.bodyFrom))
			continue
		}
		s := &jsonschema.Schema{Type: "string"}
		if p.Schema != nil {
			s = p.Schema
		}
		setProperty(input, p.Name, described(s, p.Description))
		if p.Required {
			required = append(required, p.Name)
		}
		rest.Query = append(rest.Query, p.Name)
		order = append(order, p.Name)
	}
	if len(order) == 0 && h.body != nil {
		input = h.body // nothing added: the body's own schema, compiled once
	} else {
		input.Required = append(required, input.Required...)
		input.PropertyOrder = append(order, input.PropertyOrder...)
	}
	if h.typed != nil && len(h.clashes) == 0 && plainObject(h.body) {
		rest.BodySchema = h.typed.Resolved
	}
	h.t.InputSchema = input
}

// finishInput says how the input splits into the request's parts, and
// refuses a tool whose arguments clash.
func (h *restHarvest) finishInput() {
	t, rest := &h.t, h.rest
	rest.Split = len(rest.Params) > 0 || len(rest.Query) > 0 || !rest.Body || rest.BodyArg != ""
	rest.Arguments = restArguments(rest, t.InputSchema, h.body)
	if len(h.clashes) > 0 {
		t.Refusal = &detect.RefusedError{
			Route:  t.Route,
			Reason: strings.Join(h.clashes, "; ") + ": a tool's arguments are one object, which cannot hold both",
			Fix:    fmt.Sprintf("rename one of them, or keep the tool off MCP with mcp.exclude: [%s]", t.Name),
		}
	}
}

// describe gives the tool its description, annotations and output schema:
// the document's, then the typed handler's, the generated facts', the
// declaration's, and last the method's hints and the route.
func (h *restHarvest) describe() {
	t, op, typed, gen := &h.t, h.op, h.typed, h.gen
	if op != nil {
		t.Description = operationDescription(op)
		t.Annotations = operationAnnotations(op)
		t.OutputSchema = op.Output
	}
	if typed != nil {
		t.OutputSchema = typed.Output
		if typed.Description != "" {
			t.Description = typed.Description
		}
		if typed.Annotations != nil {
			t.Annotations = typed.Annotations
		}
	}
	if gen != nil {
		out, arrayNote := gen.output()
		if t.OutputSchema == nil {
			t.OutputSchema = out
			if out == nil && arrayNote == "" {
				t.Note = joinNotes(t.Note, gen.outputNote())
			}
		}
		if t.Description == "" {
			t.Description = gen.description(arrayNote)
		}
	}
	if h.isDeclared {
		decl := h.decl
		decl.Input = nil // taken above
		declare(t, decl)
	}
	if t.Annotations == nil {
		t.Annotations = hintAnnotations(h.rt.Hints)
	}
	if t.Description == "" {
		t.Description = t.Route
	}
}

// hintAnnotations are the annotations a method implies, or nil for none.
func hintAnnotations(h detect.Hints) *mcp.ToolAnnotations {
	if h == (detect.Hints{}) {
		return nil
	}
	a := &mcp.ToolAnnotations{ReadOnlyHint: h.ReadOnly, IdempotentHint: h.Idempotent}
	if h.Destructive {
		a.DestructiveHint = ptrTo(true)
	}
	return a
}

// restArguments says, for the report, which argument goes where:
// "id (path); limit, tag (query); text, tags (body)". "any" stands for the
// members the schema does not name, when it takes them.
func restArguments(rest *REST, input, body *jsonschema.Schema) string {
	var parts []string
	add := func(names []string, where string) {
		if len(names) > 0 {
			parts = append(parts, strings.Join(names, ", ")+" ("+where+")")
		}
	}
	add(rest.Params, "path")
	others := takesOthers(input)
	query := slices.Clone(rest.Query)
	if !rest.Body && others {
		query = append(query, "any")
	}
	add(query, "query")
	if rest.Body {
		var members []string
		for _, name := range sortedKeys(input.Properties) {
			if !slices.Contains(rest.Params, name) && !slices.Contains(rest.Query, name) {
				members = append(members, name)
			}
		}
		if body != nil && len(body.PropertyOrder) > 0 {
			members = ordered(members, body.PropertyOrder)
		}
		if others {
			members = append(members, "any")
		}
		add(members, "body")
	}
	return strings.Join(parts, "; ")
}

// ordered returns names in the order of order first, the others after.
func ordered(names, order []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range order {
		if slices.Contains(names, n) {
			out = append(out, n)
		}
	}
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// takesOthers reports whether an object schema accepts members it does not
// name.
func takesOthers(s *jsonschema.Schema) bool {
	if s.AdditionalProperties == nil {
		return len(s.PatternProperties) == 0 && s.UnevaluatedProperties == nil
	}
	b, _ := json.Marshal(s.AdditionalProperties)
	return string(b) != "false"
}

// plainObject reports whether an object schema says nothing of an object
// as a whole but its properties, required members and whether it takes
// others: so that an object it accepts, with more members it names not,
// still passes once those are taken out, as the body of a REST call is.
func plainObject(s *jsonschema.Schema) bool {
	c := *s
	c.Type, c.Properties, c.Required, c.AdditionalProperties, c.PropertyOrder = "", nil, nil, nil, nil
	c.Title, c.Description, c.Schema, c.Defs, c.Definitions, c.Comment = "", "", "", nil, nil, ""
	b, err := json.Marshal(&c)
	return err == nil && (string(b) == "{}" || string(b) == "true")
}

// properties returns the names of an object schema's properties, sorted;
// none for nil.
func properties(s *jsonschema.Schema) []string {
	if s == nil {
		return nil
	}
	return sortedKeys(s.Properties)
}

func sortedKeys(m map[string]*jsonschema.Schema) []string {
	return slices.Sorted(maps.Keys(m))
}

// rootClone copies s, and the root's properties, required list and
// property order, so that properties can be added; the subschemas are
// shared.
func rootClone(s *jsonschema.Schema) *jsonschema.Schema {
	c := *s
	c.Properties = maps.Clone(s.Properties)
	c.Required = slices.Clone(s.Required)
	c.PropertyOrder = slices.Clone(s.PropertyOrder)
	return &c
}

// setProperty sets s's property name.
func setProperty(s *jsonschema.Schema, name string, p *jsonschema.Schema) {
	if s.Properties == nil {
		s.Properties = make(map[string]*jsonschema.Schema)
	}
	s.Properties[name] = p
}

// described returns s with the description desc when s has none.
func described(s *jsonschema.Schema, desc string) *jsonschema.Schema {
	if desc == "" || s.Description != "" {
		return s
	}
	c := *s
	c.Description = desc
	return &c
}

func ptrTo[T any](v T) *T { return &v }
