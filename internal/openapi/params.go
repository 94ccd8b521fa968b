package openapi

import (
	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"
)

// A Param is one of an operation's path or query parameters (an OpenAPI
// Parameter Object): what a REST tool takes as an argument besides its
// request body. Header and cookie parameters are not read.
type Param struct {
	Name string
	// In is "path" or "query".
	In string
	// Required is the parameter's required; a path parameter always is.
	Required    bool
	Description string
	// Schema is the parameter's schema, converted as a request body's is
	// ($refs resolved, OpenAPI 3.0's keywords converted); nil when the
	// parameter gives none (it uses content, or its schema cannot be
	// served: NoSchema says why).
	Schema   *jsonschema.Schema
	NoSchema string

	// schema and at are a Swagger 2.0 body parameter's schema and its
	// place, which formOrBody reads as the operation's request body.
	schema *yaml.Node
	at     *pointer
}

// paramKey identifies a parameter within an operation, as OpenAPI does:
// by name and location.
type paramKey struct{ name, in string }

// params reads a parameters list (a path item's or an operation's) at
// where. Header and cookie parameters are skipped.
func (r *reader) params(n *yaml.Node, where *pointer) ([]Param, error) {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil, errorf(n, where, "want a list of parameters, got %s", describe(n))
	}
	if err := r.readKeys(len(n.Content), n, where); err != nil {
		return nil, err
	}
	var out []Param
	seen := make(map[paramKey]bool, len(n.Content))
	for i, item := range n.Content {
		p, err := r.param(item, where.elem(i))
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue
		}
		k := paramKey{p.Name, p.In}
		if seen[k] {
			return nil, errorf(item, where.elem(i), "the %s parameter %q is listed twice", p.In, p.Name)
		}
		seen[k] = true
		out = append(out, *p)
	}
	return out, nil
}

// param reads one Parameter Object, or a $ref to one; nil for a header or
// cookie parameter.
func (r *reader) param(n *yaml.Node, where *pointer) (*Param, error) {
	n, where, err := r.follow(n, where, 0)
	if err != nil {
		return nil, err
	}
	ps, err := r.pairs(n, where)
	if err != nil {
		return nil, err
	}
	p := &Param{}
	for _, key := range []struct {
		name string
		to   *string
	}{{"name", &p.Name}, {"in", &p.In}} {
		v := get(ps, key.name)
		if v == nil {
			return nil, errorf(n, where, "a parameter needs %q", key.name)
		}
		if *key.to, err = str(v, where.child(key.name)); err != nil {
			return nil, err
		}
	}
	switch p.In {
	case "path", "query":
	case "header", "cookie":
		return nil, nil
	case "body", "formData":
		if r.v2 {
			break // v2Param reads them, below
		}
		fallthrough
	default:
		if r.v2 {
			return nil, errorf(get(ps, "in"), where.child("in"), "in is %q; want path, query, header, body or formData", p.In)
		}
		return nil, errorf(get(ps, "in"), where.child("in"), "in is %q; want path, query, header or cookie", p.In)
	}
	if v := get(ps, "required"); v != nil {
		if p.Required, err = boolean(v, where.child("required")); err != nil {
			return nil, err
		}
	}
	if p.In == "path" {
		p.Required = true // OpenAPI requires it of every path parameter
	}
	if v := get(ps, "description"); v != nil {
		if p.Description, err = str(v, where.child("description")); err != nil {
			return nil, err
		}
	}
	if r.v2 {
		return r.v2Param(p, ps, n, where)
	}
	schema := get(ps, "schema")
	if schema == nil {
		p.NoSchema = "the parameter has no schema"
		return p, nil
	}
	if p.Schema, p.NoSchema, err = r.schemaAt(schema, where.child("schema"), "the parameter's schema", false); err != nil {
		return nil, err
	}
	return p, nil
}

// mergeParams returns the path item's parameters with the operation's
// over them: an operation's parameter replaces the path item's of the
// same name and location.
func mergeParams(item, op []Param) []Param {
	if len(item) == 0 {
		return op
	}
	out := make([]Param, 0, len(item)+len(op))
	own := make(map[paramKey]bool, len(op))
	for _, p := range op {
		own[paramKey{p.Name, p.In}] = true
	}
	for _, p := range item {
		if !own[paramKey{p.Name, p.In}] {
			out = append(out, p)
		}
	}
	return append(out, op...)
}
