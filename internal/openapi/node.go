package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// An Error is a problem with the document, at a place in it.
type Error struct {
	// Line is the line of the document the problem is on; 0 when the
	// problem is with the document as a whole.
	Line int
	// Where is the JSON pointer of the value at fault, as a $ref would name
	// it ("#/paths/~1add_book/post/requestBody"); empty with Line 0.
	Where string
	// Problem says what is wrong, and when it can, what to do.
	Problem string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("openapi: ")
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Where != "" {
		b.WriteString(e.Where + ": ")
	}
	b.WriteString(e.Problem)
	return b.String()
}

// errorf returns an *Error about the value n at the place where.
func errorf(n *yaml.Node, where *pointer, format string, args ...any) *Error {
	e := &Error{Where: where.String(), Problem: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line = n.Line
	}
	return e
}

// parse reads a JSON or YAML document into a node tree. JSON goes through
// encoding/json rather than the YAML parser, which rejects escaped
// surrogate pairs ("\ud83d\ude00") that JSON encoders write.
func parse(data []byte) (*yaml.Node, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a byte order mark
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, &Error{Problem: "the document is empty"}
	}
	if trimmed[0] == '{' {
		return parseJSON(data)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{Problem: "not valid YAML or JSON: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if len(doc.Content) == 0 {
		return nil, &Error{Problem: "the document is empty"}
	}
	return doc.Content[0], nil
}

// deref follows YAML aliases.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// A pair is one key and value of a mapping.
type pair struct {
	key   string
	kline int
	value *yaml.Node
}

// pairs returns the entries of the mapping n, in order, with YAML merge
// keys (<<) applied. A key given twice is an error.
//
// A mapping's entries are found once and kept: a document names the same
// mapping many times over (YAML aliases, $refs to one component), and
// finding the entries of a wide one again each time would take time in
// proportion to the uses times the width. The keys that merge keys copy
// count against the document's budget: a chain of mappings each merging
// the one before would copy n²/2 keys.
func (r *reader) pairs(n *yaml.Node, where *pointer) ([]pair, error) {
	n = deref(n)
	if ps, ok := r.maps[n]; ok {
		return ps, nil
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, errorf(n, where, "want a mapping, got %s", describe(n))
	}
	if len(r.open) > maxDepth {
		return nil, errorf(n, where, "merge keys (<<) nested more than %d levels deep", maxDepth)
	}
	r.open[n] = true
	defer delete(r.open, n)
	out := make([]pair, 0, len(n.Content)/2)
	var merged [][]pair // the pairs of each mapping merged, in order
	cyclic := false     // a merge key names a mapping that merges this one
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, errorf(k, where, "a mapping key must be a scalar")
		}
		if k.ShortTag() == "!!merge" {
			// One mapping, or a list of them, the first one winning.
			from := []*yaml.Node{v}
			if v := deref(v); v != nil && v.Kind == yaml.SequenceNode {
				from = v.Content
			}
			for _, m := range from {
				if r.open[deref(m)] {
					cyclic = true
					continue
				}
				ps, err := r.pairs(m, where)
				if err != nil {
					return nil, err
				}
				if err := r.mergeKeys(len(ps), k, where); err != nil {
					return nil, err
				}
				merged = append(merged, ps)
			}
			continue
		}
		if seen[k.Value] {
			return nil, errorf(k, where, "the key %q is given twice", k.Value)
		}
		seen[k.Value] = true
		out = append(out, pair{k.Value, k.Line, v})
	}
	for _, ps := range merged { // explicit keys win over merged ones
		for _, p := range ps {
			if !seen[p.key] {
				seen[p.key] = true
				out = append(out, p)
			}
		}
	}
	if cyclic {
		// What this mapping merges depends on where the merging started:
		// not kept.
		for m := range r.open {
			r.tainted[m] = true
		}
	} else if !r.tainted[n] {
		r.maps[n] = out
	}
	return out, nil
}

// get returns the value of key in the mapping n, or nil.
func get(ps []pair, key string) *yaml.Node {
	for _, p := range ps {
		if p.key == key {
			return p.value
		}
	}
	return nil
}

// describe names the kind of a node for error messages.
func describe(n *yaml.Node) string {
	n = deref(n)
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	}
	switch n.ShortTag() {
	case "!!null":
		return "null"
	case "!!bool":
		return "a boolean"
	case "!!int", "!!float":
		return "a number"
	}
	return fmt.Sprintf("the string %q", n.Value)
}

// str returns the string value of n, or an error naming where.
func str(n *yaml.Node, where *pointer) (string, error) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return "", errorf(n, where, "want a string, got %s", describe(n))
	}
	return n.Value, nil
}

// boolean returns the boolean value of n, or an error naming where.
func boolean(n *yaml.Node, where *pointer) (bool, error) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		return false, errorf(n, where, "want a boolean, got %s", describe(n))
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		return false, errorf(n, where, "want a boolean, got %s", describe(n))
	}
	return b, nil
}

// jsonNumber matches a number as JSON writes it.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// maxDepth bounds how deep values and schemas nest: far deeper than any
// real schema, and shallow enough that a YAML alias inside the node it
// names (a cycle) is caught at once.
const maxDepth = 256

// tooDeep is the error for a value nested deeper than maxDepth.
// The pointer is cut short: a cycle repeats itself.
func tooDeep(n *yaml.Node, where *pointer) error {
	e := errorf(n, where, "nested more than %d levels deep (is it a YAML alias inside the node it names?)", maxDepth)
	if len(e.Where) > 100 {
		e.Where = e.Where[:100] + "..."
	}
	return e
}

// value converts n to the Go value encoding/json would decode it to, with
// numbers as json.Number, taking what it visits from the budget: YAML
// aliases cannot expand without end.
func (c *converter) value(n *yaml.Node, where *pointer) (any, error) {
	return c.nestedValue(n, where, 0)
}

func (c *converter) nestedValue(n *yaml.Node, where *pointer, depth int) (any, error) {
	n = deref(n)
	if !c.spend(1, len(n.Value)+1) {
		return nil, errTooBig
	}
	if depth > maxDepth {
		return nil, tooDeep(n, where)
	}
	switch n.Kind {
	case yaml.MappingNode:
		ps, err := c.r.pairs(n, where)
		if err != nil {
			return nil, err
		}
		if !c.spend(0, keyBytes(ps)) {
			return nil, errTooBig
		}
		m := make(map[string]any, len(ps))
		for _, p := range ps {
			if m[p.key], err = c.element(p.value, where, p.key, -1, depth+1); err != nil {
				return nil, err
			}
		}
		return m, nil
	case yaml.SequenceNode:
		list := make([]any, len(n.Content))
		for i, e := range n.Content {
			var err error
			if list[i], err = c.element(e, where, "", i, depth+1); err != nil {
				return nil, err
			}
		}
		return list, nil
	case yaml.ScalarNode:
		return scalar(n, where)
	}
	return nil, errorf(n, where, "unexpected YAML node")
}

// element is nestedValue for the value n of the key (or at the index ≥ 0)
// in the value at up. Most values are scalars, and a scalar's place is
// made only if the scalar is at fault: a value costs no more than its
// conversion, however deep.
func (c *converter) element(n *yaml.Node, up *pointer, key string, index, depth int) (any, error) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || depth > maxDepth {
		return c.nestedValue(n, &pointer{up: up, key: key, index: index}, depth)
	}
	if !c.spend(1, len(n.Value)+1) {
		return nil, errTooBig
	}
	v, err := scalar(n, nil)
	if err != nil {
		return scalar(n, &pointer{up: up, key: key, index: index}) // the error again, with the place
	}
	return v, nil
}

// maxNumber bounds the length of a number YAML spells in a way JSON does
// not (0x1F, 1_000): converting a long one to decimal takes more than
// linear time, and a number of this many digits is no number a schema
// needs.
const maxNumber = 400

// scalar converts a scalar node to a JSON value.
func scalar(n *yaml.Node, where *pointer) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		return boolean(n, where)
	case "!!int":
		if jsonNumber.MatchString(n.Value) {
			return json.Number(n.Value), nil
		}
		// YAML's other spellings: 0x1F, 0o17, 1_000, +5.
		if len(n.Value) > maxNumber {
			return nil, errorf(n, where, "a number of %d characters in YAML's own spelling (0x, 0o, _) is longer than mcpdoor reads (%d); write it as JSON does", len(n.Value), maxNumber)
		}
		i, ok := new(big.Int).SetString(strings.ReplaceAll(strings.TrimPrefix(n.Value, "+"), "_", ""), 0)
		if !ok {
			return nil, errorf(n, where, "%q is not a number JSON can hold", n.Value)
		}
		return json.Number(i.String()), nil
	case "!!float":
		if jsonNumber.MatchString(n.Value) {
			return json.Number(n.Value), nil
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil {
			var yf float64
			if n.Decode(&yf) != nil {
				return nil, errorf(n, where, "%q is not a number JSON can hold", n.Value)
			}
			f = yf
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, errorf(n, where, "%s is not a number JSON can hold", n.Value)
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	}
	return n.Value, nil // strings, timestamps, binary: as written
}
