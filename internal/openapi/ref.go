package openapi

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"
)

// refSiblings converts a schema with a $ref. In OpenAPI 3.0 the keywords
// beside a $ref are ignored; in 3.1 they apply alongside the referenced
// schema, as JSON Schema 2020-12 has it: annotations (a description) are
// set over it, and constraints join it in an allOf.
func (c *converter) refSiblings(ps []pair, refNode *yaml.Node, where string) (*jsonschema.Schema, error) {
	ref, err := str(refNode, where+"/$ref")
	if err != nil {
		return nil, err
	}
	target, err := c.ref(ref, refNode, where)
	if err != nil || c.v30 || len(ps) == 1 {
		return target, err
	}
	rest := slices.DeleteFunc(slices.Clone(ps), func(p pair) bool { return p.key == "$ref" })
	sib, err := c.convert(&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: refNode.Line, Content: flatten(rest)}, where)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(rest, func(p pair) bool { return !annotationOnly[p.key] && !dropped[p.key] && !strings.HasPrefix(p.key, "x-") }) {
		if sib.Title != "" {
			target.Title = sib.Title
		}
		if sib.Description != "" {
			target.Description = sib.Description
		}
		if sib.Default != nil {
			target.Default = sib.Default
		}
		if sib.Examples != nil {
			target.Examples = sib.Examples
		}
		target.Deprecated = target.Deprecated || sib.Deprecated
		target.ReadOnly = target.ReadOnly || sib.ReadOnly
		target.WriteOnly = target.WriteOnly || sib.WriteOnly
		return target, nil
	}
	sib.AllOf = append([]*jsonschema.Schema{target}, sib.AllOf...)
	return sib, nil
}

func flatten(ps []pair) []*yaml.Node {
	out := make([]*yaml.Node, 0, 2*len(ps))
	for _, p := range ps {
		out = append(out, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p.key, Line: p.kline}, p.value)
	}
	return out
}

// ref converts the schema a $ref points to: inlined, or, for a component
// that refers back to itself (or when the schema grew too big to inline),
// a $ref to its copy in $defs.
func (c *converter) ref(ref string, refNode *yaml.Node, where string) (*jsonschema.Schema, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, &unsupported{fmt.Sprintf("%s: the $ref %q points outside the document; bundle the document into one file", where, ref)}
	}
	target, err := lookup(c.root, ref)
	if err != nil {
		return nil, errorf(refNode, where, "the $ref %q is not a JSON pointer: %v", ref, err)
	}
	if target == nil {
		return nil, errorf(refNode, where, "the $ref %q points to nothing", ref)
	}
	key := strings.TrimPrefix(ref, "#")
	if c.inline && !slices.Contains(c.stack, key) {
		c.stack = append(c.stack, key)
		s, err := c.convert(target, "#"+key)
		c.stack = c.stack[:len(c.stack)-1]
		return s, err
	}
	name, done := c.names[key]
	if !done {
		name = c.defName(key)
		saved, depth := c.stack, c.depth
		c.stack, c.depth = []string{key}, 0
		c.defs[name] = &jsonschema.Schema{} // a placeholder, so that a self-reference stops here
		s, err := c.convert(target, "#"+key)
		c.stack, c.depth = saved, depth
		if err != nil {
			return nil, err
		}
		c.defs[name] = s
	}
	return &jsonschema.Schema{Ref: "#/$defs/" + name}, nil
}

// defName gives the $ref target key a name in $defs: its last segment, made
// safe for a URI fragment, and unique.
func (c *converter) defName(key string) string {
	if c.names == nil {
		c.names = make(map[string]string)
		c.defs = make(map[string]*jsonschema.Schema)
	}
	base := key[strings.LastIndex(key, "/")+1:]
	base = strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, base)
	if base == "" {
		base = "schema"
	}
	name := base
	for i := 2; c.defs[name] != nil; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	c.names[key] = name
	return name
}
