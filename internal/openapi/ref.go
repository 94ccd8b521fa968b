package openapi

import (
	"errors"
	"fmt"
	"net/url"
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
func (c *converter) refSiblings(ps []pair, refNode *yaml.Node, where *pointer) (*jsonschema.Schema, error) {
	ref, err := str(refNode, where.child("$ref"))
	if err != nil {
		return nil, err
	}
	target, err := c.ref(ref, refNode, where)
	if err != nil || c.r.v30 || len(ps) == 1 {
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
func (c *converter) ref(ref string, refNode *yaml.Node, where *pointer) (*jsonschema.Schema, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, &unsupported{fmt.Sprintf("%s: the $ref %q points outside the document; bundle the document into one file", where.String(), ref)}
	}
	target, err := c.r.lookup(ref, refNode, where)
	if err != nil {
		return nil, err
	}
	key := strings.TrimPrefix(ref, "#")
	if c.inline && !slices.Contains(c.stack, key) {
		c.stack = append(c.stack, key)
		s, err := c.convert(target, at(ref))
		c.stack = c.stack[:len(c.stack)-1]
		return s, err
	}
	name, done := c.names[key]
	if !done {
		name = c.defName(key)
		saved, depth, path := c.stack, c.depth, c.path
		c.stack, c.depth, c.path = []string{key}, 0, len("/$defs/")+len(name)
		c.defs[name] = &jsonschema.Schema{} // a placeholder, so that a self-reference stops here
		s, err := c.convert(target, at(ref))
		c.stack, c.depth, c.path = saved, depth, path
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
		c.suffix = make(map[string]int)
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
	if c.defs[name] != nil {
		// The next free suffix: names are only ever added, so it is past
		// the last one given for base (where a search from 2 each time
		// would take time in proportion to the names given).
		i := max(c.suffix[base], 2)
		for name = base + "_" + strconv.Itoa(i); c.defs[name] != nil; name = base + "_" + strconv.Itoa(i) {
			i++
		}
		c.suffix[base] = i + 1
	}
	c.names[key] = name
	return name
}

// lookup returns the node a local $ref ("#/components/schemas/Pet") points
// to, or an error at refNode, the $ref at where. What a $ref points to is
// found once: a document may hold thousands of $refs to one component, and
// thousands of components.
func (r *reader) lookup(ref string, refNode *yaml.Node, where *pointer) (*yaml.Node, error) {
	if n, ok := r.targets[ref]; ok {
		return n, nil
	}
	frag, err := url.PathUnescape(strings.TrimPrefix(ref, "#"))
	if err == nil && frag != "" && !strings.HasPrefix(frag, "/") {
		err = errors.New("not a JSON pointer")
	}
	if err != nil {
		return nil, errorf(refNode, where, "the $ref %q is not a JSON pointer: %v", ref, err)
	}
	n, place := r.root, at("#")
	if frag != "" {
		for _, seg := range strings.Split(frag[1:], "/") {
			seg = unescape(seg)
			switch n = deref(n); n.Kind {
			case yaml.MappingNode:
				if n, err = r.entry(n, seg, place); err != nil {
					return nil, err
				}
			case yaml.SequenceNode:
				i, err := strconv.Atoi(seg)
				if err != nil || i < 0 || i >= len(n.Content) {
					n = nil
				} else {
					n = n.Content[i]
				}
			default:
				n = nil
			}
			if n == nil {
				return nil, errorf(refNode, where, "the $ref %q points to nothing", ref)
			}
			place = place.child(seg)
		}
	}
	n = deref(n)
	r.targets[ref] = n
	return n, nil
}

// entry returns the value of key in the mapping n at where, or nil. The
// mappings $refs look into are indexed by key, once each.
func (r *reader) entry(n *yaml.Node, key string, where *pointer) (*yaml.Node, error) {
	index, ok := r.index[n]
	if !ok {
		ps, err := r.pairs(n, where)
		if err != nil {
			return nil, err
		}
		index = make(map[string]*yaml.Node, len(ps))
		for _, p := range ps {
			index[p.key] = p.value
		}
		r.index[n] = index
	}
	return index[key], nil
}
