package openapi

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"
)

// Keywords that hold subschemas, by shape.
var (
	oneSchema = []string{"items", "additionalProperties", "not", "contains", "if", "then", "else",
		"propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema"}
	schemaList = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	schemaMap  = []string{"properties", "patternProperties", "dependentSchemas"}
)

// dropped are keywords left out of a tool's schema: OpenAPI's own
// (discriminator, xml, externalDocs), identifiers that would change how
// $refs resolve once a component is inlined ($id, $anchor), $defs (every
// $ref is resolved against the document), and $schema (a tool's schema is
// 2020-12 by definition). x- extensions are dropped too.
var dropped = map[string]bool{
	"discriminator": true, "xml": true, "externalDocs": true,
	"$schema": true, "$id": true, "$anchor": true, "$dynamicAnchor": true, "$comment": true,
	"$defs": true, "definitions": true, "$vocabulary": true,
	"collectionFormat": true, "allowEmptyValue": true, // Swagger 2.0's, of parameters and their items
}

// annotationOnly are the keywords that, beside a $ref, only annotate it.
var annotationOnly = map[string]bool{
	"$ref": true, "title": true, "description": true, "summary": true, "default": true,
	"examples": true, "example": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// unsupported is a schema the converter can read but not serve: the
// operation is reported without an input schema, and Load goes on.
type unsupported struct{ msg string }

func (u *unsupported) Error() string { return u.msg }

// converter turns the OpenAPI schemas of one operation into one
// self-contained JSON Schema 2020-12.
type converter struct {
	r      *reader  // the document
	output bool     // a response's schema, not a request's
	inline bool     // inline $refs (false: every $ref goes to $defs)
	left   budget   // what it may still cost
	stack  []string // the $ref targets being inlined, to spot cycles
	depth  int      // how deep convert is
	path   int      // the length of the JSON pointer, in the tool's schema, of the schema convert is at
	defs   map[string]*jsonschema.Schema
	names  map[string]string // $ref target → its name in $defs
	suffix map[string]int    // a name in $defs → the next suffix to try for it
}

// sub converts the subschema n at where, whose JSON pointer in the tool's
// schema is step bytes longer than that of the schema that holds it.
func (c *converter) sub(n *yaml.Node, where *pointer, step int) (*jsonschema.Schema, error) {
	c.path += step
	s, err := c.convert(n, where)
	c.path -= step
	return s, err
}

// digits is the number of decimal digits of i ≥ 0.
func digits(i int) int {
	n := 1
	for ; i >= 10; i /= 10 {
		n++
	}
	return n
}

// spend takes values and bytes from the converter's budget, and reports
// whether it covered them.
func (c *converter) spend(values, bytes int) bool {
	return c.left.take(budget{values: values, bytes: bytes})
}

// toolSchema converts the schema n, at where, to a tool's input schema,
// or with output its output schema, taking what it costs from the
// document's budget. subject names the schema in an *unsupported's reason:
// "the request body's schema".
func (r *reader) toolSchema(n *yaml.Node, where *pointer, subject string, output bool) (*jsonschema.Schema, error) {
	doc, whose := &r.left, "document's"
	if output {
		doc, whose = &r.outLeft, "document's response"
	}
	attempt := func(inline bool, limit budget) (*converter, *jsonschema.Schema, error) {
		limit = doc.within(limit)
		c := &converter{r: r, output: output, inline: inline, left: limit}
		s, err := c.convert(n, where)
		doc.take(limit.spent(c.left))
		return c, s, err
	}
	c, s, err := attempt(true, budget{inlineValues, inlineValues, inlineBytes})
	if errors.Is(err, errTooBig) {
		c, s, err = attempt(false, budget{maxValues, maxSchemas, maxBytes})
	}
	switch {
	case errors.Is(err, errTooBig):
		return nil, &unsupported{tooBig(c.left, *doc, whose, subject)}
	case err != nil:
		return nil, err
	}
	if len(c.defs) > 0 {
		s.Defs = c.defs
	}
	refs := make(map[string]string, len(c.names))
	for key, name := range c.names {
		refs[name] = "#" + key
	}
	if why := validationCost(s, refs, subject); why != "" {
		return nil, &unsupported{why}
	}
	return s, nil
}

// convert converts the schema n at the pointer where: its keywords read,
// the schema built from them, then what OpenAPI adds to JSON Schema.
func (c *converter) convert(n *yaml.Node, where *pointer) (*jsonschema.Schema, error) {
	n = deref(n)
	if !c.left.take(budget{values: 1, schemas: 1, bytes: c.path + len(n.Value) + 1}) {
		return nil, errTooBig
	}
	if c.depth++; c.depth > maxDepth {
		return nil, tooDeep(n, where)
	}
	defer func() { c.depth-- }()
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		return boolSchema(n, where)
	}
	if n.Kind != yaml.MappingNode {
		return nil, errorf(n, where, "a schema must be a mapping or a boolean, got %s", describe(n))
	}
	ps, err := c.r.pairs(n, where)
	if err != nil {
		return nil, err
	}
	if !c.spend(0, keyBytes(ps)) {
		return nil, errTooBig
	}
	if ref := get(ps, "$ref"); ref != nil {
		return c.refSiblings(ps, ref, where)
	}
	known := c.r.leaves[n] // the keywords without subschemas, decoded at an earlier use of n
	keys := &schemaKeys{}
	for _, p := range ps {
		if err := c.readKeyword(keys, p, where.child(p.key), known != nil); err != nil {
			return nil, err
		}
	}
	var s *jsonschema.Schema
	if known != nil {
		if !c.left.take(known.cost) {
			return nil, errTooBig
		}
		s = known.schema()
	} else {
		if s, err = leafSchema(keys.leaf, n, where); err != nil {
			return nil, err
		}
		c.r.leaves[n] = &decoded{leaf: *s, cost: keys.cost}
	}
	keys.apply(s)
	if c.output {
		dropProperties(s, func(p *jsonschema.Schema) bool { return p.WriteOnly })
	} else {
		dropProperties(s, func(p *jsonschema.Schema) bool { return p.ReadOnly })
	}
	return s, nil
}

// boolSchema converts the boolean schema n: true takes anything, false
// nothing.
func boolSchema(n *yaml.Node, where *pointer) (*jsonschema.Schema, error) {
	b, err := boolean(n, where)
	if err != nil {
		return nil, err
	}
	if b {
		return &jsonschema.Schema{}, nil
	}
	return &jsonschema.Schema{Not: &jsonschema.Schema{}}, nil
}

// schemaKeys are the keywords of one schema, as convert reads them.
type schemaKeys struct {
	leaf                       map[string]any // the keywords without subschemas
	cost                       budget         // what decoding them cost
	nullable, exclMin, exclMax bool           // OpenAPI 3.0's forms
	example                    any
	hasExample                 bool
	order                      []string  // the properties', as written
	sub                        []keyword // the subschema keywords
}

// readKeyword reads the keyword p, at at, into keys; skipLeaves: the
// keywords without subschemas were decoded before.
func (c *converter) readKeyword(keys *schemaKeys, p pair, at *pointer, skipLeaves bool) error {
	var err error
	switch k := p.key; {
	case dropped[k] || strings.HasPrefix(k, "x-"):
	case k == "$dynamicRef" || k == "$recursiveRef":
		return &unsupported{fmt.Sprintf("%s: %s is not supported", at.String(), k)}
	case k == "nullable" && c.r.v30:
		keys.nullable, err = boolean(p.value, at)
	case k == "example":
		keys.example, err = c.value(p.value, at)
		keys.hasExample = true
	case (k == "exclusiveMinimum" || k == "exclusiveMaximum") && deref(p.value).ShortTag() == "!!bool":
		var b bool
		b, err = boolean(p.value, at) // OpenAPI 3.0 (JSON Schema draft 4) form
		if k == "exclusiveMinimum" {
			keys.exclMin = b
		} else {
			keys.exclMax = b
		}
	case slices.Contains(oneSchema, k), slices.Contains(schemaList, k), slices.Contains(schemaMap, k):
		var v any
		var order []string
		if v, order, err = c.subschemas(k, p.value, at); err == nil {
			keys.sub = append(keys.sub, keyword{k, v})
			keys.order = append(keys.order, order...)
		}
	case skipLeaves:
	default:
		if keys.leaf == nil {
			keys.leaf = make(map[string]any)
		}
		before := c.left
		if keys.leaf[k], err = c.value(p.value, at); err != nil {
			return err
		}
		keys.cost.values += before.values - c.left.values
		keys.cost.bytes += before.bytes - c.left.bytes // values build no schemas
	}
	return err
}

// subschemas converts the value of the subschema keyword k, at at: one
// schema, a list of them, or a map of them (and then, for properties,
// their order).
func (c *converter) subschemas(k string, value *yaml.Node, at *pointer) (v any, order []string, err error) {
	switch {
	case slices.Contains(oneSchema, k):
		n := deref(value)
		if k == "items" && n.Kind == yaml.SequenceNode {
			return nil, nil, errorf(n, at, "items must be a schema (a list of schemas is prefixItems in JSON Schema 2020-12)")
		}
		sv, err := c.sub(n, at, len(k)+1)
		return sv, nil, err
	case slices.Contains(schemaList, k):
		n := deref(value)
		if n.Kind != yaml.SequenceNode {
			return nil, nil, errorf(n, at, "want a list of schemas, got %s", describe(n))
		}
		list := make([]*jsonschema.Schema, len(n.Content))
		for i, e := range n.Content {
			if list[i], err = c.sub(e, at.elem(i), len(k)+2+digits(i)); err != nil {
				return nil, nil, err
			}
		}
		return list, nil, nil
	}
	mps, err := c.r.pairs(value, at)
	if err != nil {
		return nil, nil, err
	}
	if !c.spend(0, keyBytes(mps)) {
		return nil, nil, errTooBig
	}
	m := make(map[string]*jsonschema.Schema, len(mps))
	for _, mp := range mps {
		if m[mp.key], err = c.sub(mp.value, at.child(mp.key), len(k)+2+len(mp.key)); err != nil {
			return nil, nil, err
		}
		if k == "properties" {
			order = append(order, mp.key)
		}
	}
	return m, order, nil
}

// apply sets on s the subschemas and what OpenAPI 3.0 writes in its own
// forms: nullable, the boolean exclusive bounds, example.
func (keys *schemaKeys) apply(s *jsonschema.Schema) {
	for _, kv := range keys.sub {
		setSub(s, kv.name, kv.value)
	}
	if len(keys.order) > 0 {
		s.PropertyOrder = keys.order
	}
	if keys.exclMin && s.Minimum != nil {
		s.ExclusiveMinimum, s.Minimum = s.Minimum, nil
	}
	if keys.exclMax && s.Maximum != nil {
		s.ExclusiveMaximum, s.Maximum = s.Maximum, nil
	}
	if keys.nullable {
		// OpenAPI 3.0.3: nullable adds null to the types that type names,
		// and does nothing without a type.
		switch {
		case s.Type != "":
			s.Types, s.Type = []string{s.Type, "null"}, ""
		case s.Types != nil && !slices.Contains(s.Types, "null"):
			s.Types = append(slices.Clip(s.Types), "null") // s.Types may be another schema's too
		}
	}
	if keys.hasExample && s.Examples == nil {
		s.Examples = []any{keys.example}
	}
}

// A keyword is a subschema keyword and its value: *Schema, []*Schema or
// map[string]*Schema.
type keyword struct {
	name  string
	value any
}

// setSub sets the subschema keyword k of s.
func setSub(s *jsonschema.Schema, k string, v any) {
	switch v := v.(type) {
	case *jsonschema.Schema:
		switch k {
		case "items":
			s.Items = v
		case "additionalProperties":
			s.AdditionalProperties = v
		case "not":
			s.Not = v
		case "contains":
			s.Contains = v
		case "if":
			s.If = v
		case "then":
			s.Then = v
		case "else":
			s.Else = v
		case "propertyNames":
			s.PropertyNames = v
		case "unevaluatedItems":
			s.UnevaluatedItems = v
		case "unevaluatedProperties":
			s.UnevaluatedProperties = v
		case "additionalItems":
			s.AdditionalItems = v
		case "contentSchema":
			s.ContentSchema = v
		}
	case []*jsonschema.Schema:
		switch k {
		case "allOf":
			s.AllOf = v
		case "anyOf":
			s.AnyOf = v
		case "oneOf":
			s.OneOf = v
		case "prefixItems":
			s.PrefixItems = v
		}
	case map[string]*jsonschema.Schema:
		switch k {
		case "properties":
			s.Properties = v
		case "patternProperties":
			s.PatternProperties = v
		case "dependentSchemas":
			s.DependentSchemas = v
		}
	}
}

// dropProperties removes the properties of s that drop reports: the
// read-only ones of a request's schema, which OpenAPI has sent in
// responses only, so they are no part of a tool's input; the write-only
// ones of a response's, which are sent in requests only.
func dropProperties(s *jsonschema.Schema, drop func(*jsonschema.Schema) bool) {
	for name, p := range s.Properties {
		if drop(p) {
			delete(s.Properties, name)
			// s.Required may be another schema's too: not changed in place.
			s.Required = slices.DeleteFunc(slices.Clone(s.Required), func(r string) bool { return r == name })
			s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(r string) bool { return r == name })
		}
	}
}
