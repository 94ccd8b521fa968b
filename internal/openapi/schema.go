package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"
)

// Bounds on the work of converting schemas. Inlining a component at each of
// its uses can grow a schema exponentially (A uses B twice, B uses C
// twice...); past inlineBudget values an operation's components go to $defs
// instead, which is linear in the document's size. maxNodes bounds that
// too, against YAML aliases, and documentBudget bounds the whole document's
// schemas.
const (
	inlineBudget   = 5000
	maxNodes       = 200000
	documentBudget = 2000000
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
	root   *yaml.Node // the document
	v30    bool       // OpenAPI 3.0: nullable, boolean exclusiveMinimum, $ref siblings ignored
	inline bool       // inline $refs (false: every $ref goes to $defs)
	budget int        // values it may still visit
	stack  []string   // the $ref targets being inlined, to spot cycles
	depth  int        // how deep convert is
	defs   map[string]*jsonschema.Schema
	names  map[string]string // $ref target → its name in $defs
}

// inputSchema converts the request body schema n, at where, to a tool's
// input schema, taking the values it visits from the document's budget.
func inputSchema(root *yaml.Node, v30 bool, n *yaml.Node, where string, budget *int) (*jsonschema.Schema, error) {
	attempt := func(inline bool, limit int) (*converter, *jsonschema.Schema, error) {
		limit = min(limit, *budget)
		c := &converter{root: root, v30: v30, inline: inline, budget: limit}
		s, err := c.convert(n, where)
		*budget -= limit - max(c.budget, 0)
		return c, s, err
	}
	c, s, err := attempt(true, inlineBudget)
	if errors.Is(err, errTooBig) {
		c, s, err = attempt(false, maxNodes)
	}
	switch {
	case errors.Is(err, errTooBig) && *budget <= 0:
		return nil, &unsupported{fmt.Sprintf("the document's schemas are too large: more than %d values once YAML aliases are expanded", documentBudget)}
	case errors.Is(err, errTooBig):
		return nil, &unsupported{fmt.Sprintf("the request body's schema is too large: more than %d values once YAML aliases are expanded", maxNodes)}
	case err != nil:
		return nil, err
	}
	if len(c.defs) > 0 {
		s.Defs = c.defs
	}
	return s, nil
}

// convert converts the schema n at the pointer where.
func (c *converter) convert(n *yaml.Node, where string) (*jsonschema.Schema, error) {
	n = deref(n)
	if c.budget--; c.budget < 0 {
		return nil, errTooBig
	}
	if c.depth++; c.depth > maxDepth {
		return nil, tooDeep(n, where)
	}
	defer func() { c.depth-- }()
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		b, err := boolean(n, where)
		if err != nil {
			return nil, err
		}
		if b {
			return &jsonschema.Schema{}, nil
		}
		return &jsonschema.Schema{Not: &jsonschema.Schema{}}, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, errorf(n, where, "a schema must be a mapping or a boolean, got %s", describe(n))
	}
	ps, err := pairs(n, where)
	if err != nil {
		return nil, err
	}
	if ref := get(ps, "$ref"); ref != nil {
		return c.refSiblings(ps, ref, where)
	}

	leaf := make(map[string]any)
	var (
		nullable, exclMin, exclMax bool
		example                    any
		hasExample                 bool
		order                      []string
		sub                        = make(map[string]any) // keyword → *Schema, []*Schema or map[string]*Schema
	)
	for _, p := range ps {
		at := where + "/" + escape(p.key)
		switch k := p.key; {
		case dropped[k] || strings.HasPrefix(k, "x-"):
		case k == "$dynamicRef" || k == "$recursiveRef":
			return nil, &unsupported{fmt.Sprintf("%s: %s is not supported", at, k)}
		case k == "nullable" && c.v30:
			if nullable, err = boolean(p.value, at); err != nil {
				return nil, err
			}
		case k == "example":
			if example, err = value(p.value, at, &c.budget); err != nil {
				return nil, err
			}
			hasExample = true
		case (k == "exclusiveMinimum" || k == "exclusiveMaximum") && deref(p.value).ShortTag() == "!!bool":
			b, err := boolean(p.value, at) // OpenAPI 3.0 (JSON Schema draft 4) form
			if err != nil {
				return nil, err
			}
			if k == "exclusiveMinimum" {
				exclMin = b
			} else {
				exclMax = b
			}
		case slices.Contains(oneSchema, k):
			v := deref(p.value)
			if k == "items" && v.Kind == yaml.SequenceNode {
				return nil, errorf(v, at, "items must be a schema (a list of schemas is prefixItems in JSON Schema 2020-12)")
			}
			if sub[k], err = c.convert(v, at); err != nil {
				return nil, err
			}
		case slices.Contains(schemaList, k):
			v := deref(p.value)
			if v.Kind != yaml.SequenceNode {
				return nil, errorf(v, at, "want a list of schemas, got %s", describe(v))
			}
			list := make([]*jsonschema.Schema, len(v.Content))
			for i, e := range v.Content {
				if list[i], err = c.convert(e, at+"/"+strconv.Itoa(i)); err != nil {
					return nil, err
				}
			}
			sub[k] = list
		case slices.Contains(schemaMap, k):
			mps, err := pairs(p.value, at)
			if err != nil {
				return nil, err
			}
			m := make(map[string]*jsonschema.Schema, len(mps))
			for _, mp := range mps {
				if m[mp.key], err = c.convert(mp.value, at+"/"+escape(mp.key)); err != nil {
					return nil, err
				}
				if k == "properties" {
					order = append(order, mp.key)
				}
			}
			sub[k] = m
		default:
			if leaf[k], err = value(p.value, at, &c.budget); err != nil {
				return nil, err
			}
		}
	}

	s, err := leafSchema(leaf, n, where)
	if err != nil {
		return nil, err
	}
	for k, v := range sub {
		setSub(s, k, v)
	}
	if len(order) > 0 {
		s.PropertyOrder = order
	}
	if exclMin && s.Minimum != nil {
		s.ExclusiveMinimum, s.Minimum = s.Minimum, nil
	}
	if exclMax && s.Maximum != nil {
		s.ExclusiveMaximum, s.Maximum = s.Maximum, nil
	}
	if nullable {
		// OpenAPI 3.0.3: nullable adds null to the types that type names,
		// and does nothing without a type.
		switch {
		case s.Type != "":
			s.Types, s.Type = []string{s.Type, "null"}, ""
		case s.Types != nil && !slices.Contains(s.Types, "null"):
			s.Types = append(s.Types, "null")
		}
	}
	if hasExample && s.Examples == nil {
		s.Examples = []any{example}
	}
	dropReadOnly(s)
	return s, nil
}

// leafSchema decodes the keywords that hold no subschema with
// jsonschema-go's own decoder, so that they mean what they mean there.
func leafSchema(leaf map[string]any, n *yaml.Node, where string) (*jsonschema.Schema, error) {
	b, err := json.Marshal(leaf)
	if err != nil {
		return nil, errorf(n, where, "%v", err)
	}
	s := new(jsonschema.Schema)
	if err := json.Unmarshal(b, s); err != nil {
		return nil, errorf(n, where, "not a valid schema: %s", schemaError(err))
	}
	if err := checkLeaf(s); err != nil {
		return nil, errorf(n, where, "not a valid schema: %v", err)
	}
	return s, nil
}

// goTypeName matches the Go type names in encoding/json's errors.
var goTypeName = regexp.MustCompile(`(Go (struct field|value) .*)?of type ([\[\]\w.*]+)`)

// schemaError rewords encoding/json's errors about jsonschema.Schema's
// fields in terms of the document.
func schemaError(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return goTypeName.ReplaceAllString(err.Error(), "")
	}
	want := te.Type.String()
	switch {
	case strings.HasPrefix(want, "[]"):
		want = "a list"
	case strings.Contains(want, "map"):
		want = "a mapping"
	case strings.Contains(want, "float") || strings.Contains(want, "int"):
		want = "a number"
	case strings.Contains(want, "bool"):
		want = "a boolean"
	case strings.Contains(want, "string"):
		want = "a string"
	}
	got := map[string]string{"array": "a list", "object": "a mapping", "bool": "a boolean", "number": "a number", "string": "a string"}[te.Value]
	if got == "" {
		got = te.Value
	}
	msg := fmt.Sprintf("want %s, got %s", want, got)
	if field := te.Field[strings.LastIndex(te.Field, ".")+1:]; field != "" {
		msg = field + ": " + msg
	}
	return msg
}

// checkLeaf checks what jsonschema-go's decoder lets through but its
// resolver or validator would trip on.
func checkLeaf(s *jsonschema.Schema) error {
	if s.Types != nil && len(s.Types) == 0 {
		return errors.New("type is an empty list")
	}
	for _, t := range slices.Concat(s.Types, []string{s.Type}) {
		switch t {
		case "", "null", "boolean", "object", "array", "number", "string", "integer":
		default:
			return fmt.Errorf("type %q is not a JSON Schema type", t)
		}
	}
	if len(s.Types) == 1 {
		s.Type, s.Types = s.Types[0], nil
	}
	return nil
}

// setSub sets the subschema keyword k of s.
func setSub(s *jsonschema.Schema, k string, v any) {
	switch v := v.(type) {
	case *jsonschema.Schema:
		*map[string]**jsonschema.Schema{
			"items": &s.Items, "additionalProperties": &s.AdditionalProperties, "not": &s.Not,
			"contains": &s.Contains, "if": &s.If, "then": &s.Then, "else": &s.Else,
			"propertyNames": &s.PropertyNames, "unevaluatedItems": &s.UnevaluatedItems,
			"unevaluatedProperties": &s.UnevaluatedProperties, "additionalItems": &s.AdditionalItems,
			"contentSchema": &s.ContentSchema,
		}[k] = v
	case []*jsonschema.Schema:
		*map[string]*[]*jsonschema.Schema{
			"allOf": &s.AllOf, "anyOf": &s.AnyOf, "oneOf": &s.OneOf, "prefixItems": &s.PrefixItems,
		}[k] = v
	case map[string]*jsonschema.Schema:
		*map[string]*map[string]*jsonschema.Schema{
			"properties": &s.Properties, "patternProperties": &s.PatternProperties, "dependentSchemas": &s.DependentSchemas,
		}[k] = v
	}
}

// dropReadOnly removes the read-only properties of s: OpenAPI has them sent
// in responses, not in requests, so they are no part of a tool's input.
func dropReadOnly(s *jsonschema.Schema) {
	for name, p := range s.Properties {
		if p.ReadOnly {
			delete(s.Properties, name)
			s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
			s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(r string) bool { return r == name })
		}
	}
}
