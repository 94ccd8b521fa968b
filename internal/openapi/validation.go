package openapi

import (
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// What validating against a tool's schema costs. A validator applies a
// schema's allOf, anyOf, oneOf, not, if, then, else, dependentSchemas
// and $ref to the value itself, and its other subschemas to the values
// inside it. Through $refs to $defs, a schema of a few components can
// apply 2^30 schemas to one value (each component's allOf naming the next
// one twice), or apply a component to the same value without end, which
// overflows the stack. Load checks each default against its schema (and
// Install does again), and every tool call checks its arguments: a schema
// that would take too long is left out, with the reason.
const (
	// maxApplied bounds the schemas applied to one value.
	maxApplied = maxSchemas

	// maxDefaultChecks bounds the work of checking the defaults: the bytes
	// of each default times the schemas at and below the one that holds
	// it, $refs expanded.
	maxDefaultChecks = 256 << 10
)

// validationCost returns why validating against the schema root would
// take too long, or "". refs maps the names in root's $defs to the $refs
// they were made of; subject names the schema in the reason.
func validationCost(root *jsonschema.Schema, refs map[string]string, subject string) string {
	v := &validation{
		defs:    root.Defs,
		applied: make(map[*jsonschema.Schema]int),
		size:    make(map[*jsonschema.Schema]int),
		open:    make(map[*jsonschema.Schema]bool),
	}
	checks := 0
	var reason string
	every(root, func(s *jsonschema.Schema) {
		if reason != "" {
			return
		}
		n, cycle := v.appliedTo(s)
		switch {
		case cycle != nil:
			name := "a component"
			for n, d := range root.Defs {
				if d == cycle && refs[n] != "" {
					name = refs[n]
				}
			}
			reason = fmt.Sprintf("%s applies %s to the same value without end (through allOf, anyOf, oneOf, not, if, then, else or dependentSchemas): checking a value against it would never finish", subject, name)
		case n > maxApplied:
			reason = fmt.Sprintf("%s is too large: it applies more than %d schemas to one value once its $refs are expanded", subject, maxApplied)
		case s.Default != nil:
			if checks = capped(checks + capped(len(s.Default)*v.below(s))); checks > maxDefaultChecks {
				reason = fmt.Sprintf("%s is too large: checking its defaults takes more than %d steps (the bytes of each default times the schemas it is checked against, $refs expanded)", subject, maxDefaultChecks)
			}
		}
	})
	return reason
}

// validation measures a schema's cost to validate against.
type validation struct {
	defs    map[string]*jsonschema.Schema
	applied map[*jsonschema.Schema]int // schema → the schemas a validator applies to a value with it
	size    map[*jsonschema.Schema]int // schema → its subschemas, itself included, $refs expanded
	open    map[*jsonschema.Schema]bool
}

// appliedTo returns the number of schemas a validator applies to a value
// it applies s to, s included; or the component that it would apply to
// the same value without end.
func (v *validation) appliedTo(s *jsonschema.Schema) (int, *jsonschema.Schema) {
	if n, ok := v.applied[s]; ok {
		return n, nil
	}
	if v.open[s] {
		return 0, s
	}
	v.open[s] = true
	defer delete(v.open, s)
	n := 1
	for _, c := range v.inPlace(s) {
		m, cycle := v.appliedTo(c)
		if cycle != nil {
			return 0, cycle
		}
		n = capped(n + m)
	}
	v.applied[s] = n
	return n, nil
}

// below returns the number of schemas at and below s, $refs expanded but
// for a $ref back to a component being counted.
func (v *validation) below(s *jsonschema.Schema) int {
	if n, ok := v.size[s]; ok {
		return n
	}
	if v.open[s] {
		return 0
	}
	v.open[s] = true
	defer delete(v.open, s)
	n := 1
	for _, c := range v.inPlace(s) {
		n = capped(n + v.below(c))
	}
	children(s, false, func(c *jsonschema.Schema) { n = capped(n + v.below(c)) })
	v.size[s] = n
	return n
}

// inPlace returns the schemas s applies to the value itself: its allOf,
// anyOf, oneOf, not, if, then, else, dependentSchemas and the component
// its $ref names.
func (v *validation) inPlace(s *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	children(s, true, func(c *jsonschema.Schema) { out = append(out, c) })
	if d := v.defs[strings.TrimPrefix(s.Ref, "#/$defs/")]; s.Ref != "" && d != nil {
		out = append(out, d)
	}
	return out
}

// children calls f with each subschema of s that applies to the value
// itself (inPlace) or to the values inside it (!inPlace). $defs are
// neither: they apply only through a $ref.
func children(s *jsonschema.Schema, inPlace bool, f func(*jsonschema.Schema)) {
	one := func(ss ...*jsonschema.Schema) {
		for _, c := range ss {
			if c != nil {
				f(c)
			}
		}
	}
	each := func(m map[string]*jsonschema.Schema) {
		for _, c := range m {
			one(c)
		}
	}
	if inPlace {
		one(s.AllOf...)
		one(s.AnyOf...)
		one(s.OneOf...)
		one(s.Not, s.If, s.Then, s.Else)
		each(s.DependentSchemas)
		each(s.DependencySchemas)
		return
	}
	one(s.Items, s.AdditionalItems, s.Contains, s.UnevaluatedItems, s.AdditionalProperties,
		s.PropertyNames, s.UnevaluatedProperties, s.ContentSchema)
	one(s.PrefixItems...)
	one(s.ItemsArray...)
	each(s.Properties)
	each(s.PatternProperties)
}

// every calls f with s and each schema in it, $defs included, once.
func every(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	f(s)
	for _, inPlace := range []bool{true, false} {
		children(s, inPlace, func(c *jsonschema.Schema) { every(c, f) })
	}
	for _, d := range s.Defs {
		every(d, f)
	}
}

// capped returns n, or a bound far past every limit if n is past it, so
// that counts of schemas repeated 2^k times do not overflow.
func capped(n int) int { return min(n, 1<<40) }
