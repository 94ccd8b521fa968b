package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/url"
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

// errorf returns an *Error about the value n at the pointer where.
func errorf(n *yaml.Node, where, format string, args ...any) *Error {
	e := &Error{Where: where, Problem: fmt.Sprintf(format, args...)}
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
func pairs(n *yaml.Node, where string) ([]pair, error) {
	return mappingPairs(n, where, make(map[*yaml.Node]bool))
}

// mappingPairs is pairs, merging each mapping once at most: merge keys
// that name the same mapping over and over (<<: [*a, *a], each of them
// merging two more...) would otherwise take exponential time.
func mappingPairs(n *yaml.Node, where string, merged map[*yaml.Node]bool) ([]pair, error) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, errorf(n, where, "want a mapping, got %s", describe(n))
	}
	merged[n] = true
	var out, extra []pair
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, errorf(k, where, "a mapping key must be a scalar")
		}
		if k.ShortTag() == "!!merge" {
			// One mapping, or a list of them, the first one winning.
			from := []*yaml.Node{v}
			if v := deref(v); v.Kind == yaml.SequenceNode {
				from = v.Content
			}
			for _, m := range from {
				if merged[deref(m)] {
					continue
				}
				ps, err := mappingPairs(m, where, merged)
				if err != nil {
					return nil, err
				}
				extra = append(extra, ps...)
			}
			continue
		}
		if seen[k.Value] {
			return nil, errorf(k, where, "the key %q is given twice", k.Value)
		}
		seen[k.Value] = true
		out = append(out, pair{k.Value, k.Line, v})
	}
	for _, p := range extra { // explicit keys win over merged ones
		if !seen[p.key] {
			seen[p.key] = true
			out = append(out, p)
		}
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
func str(n *yaml.Node, where string) (string, error) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return "", errorf(n, where, "want a string, got %s", describe(n))
	}
	return n.Value, nil
}

// boolean returns the boolean value of n, or an error naming where.
func boolean(n *yaml.Node, where string) (bool, error) {
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
func tooDeep(n *yaml.Node, where string) error {
	if len(where) > 100 {
		where = where[:100] + "..."
	}
	return errorf(n, where, "nested more than %d levels deep (is it a YAML alias inside the node it names?)", maxDepth)
}

// value converts n to the Go value encoding/json would decode it to, with
// numbers as json.Number. budget bounds the nodes visited, so that YAML
// aliases cannot expand without end.
func value(n *yaml.Node, where string, budget *int) (any, error) {
	return nestedValue(n, where, budget, 0)
}

func nestedValue(n *yaml.Node, where string, budget *int, depth int) (any, error) {
	n = deref(n)
	if *budget--; *budget < 0 {
		return nil, errTooBig
	}
	if depth > maxDepth {
		return nil, tooDeep(n, where)
	}
	switch n.Kind {
	case yaml.MappingNode:
		ps, err := pairs(n, where)
		if err != nil {
			return nil, err
		}
		m := make(map[string]any, len(ps))
		for _, p := range ps {
			if m[p.key], err = nestedValue(p.value, where+"/"+escape(p.key), budget, depth+1); err != nil {
				return nil, err
			}
		}
		return m, nil
	case yaml.SequenceNode:
		list := make([]any, len(n.Content))
		for i, c := range n.Content {
			var err error
			if list[i], err = nestedValue(c, where+"/"+strconv.Itoa(i), budget, depth+1); err != nil {
				return nil, err
			}
		}
		return list, nil
	case yaml.ScalarNode:
		return scalar(n, where)
	}
	return nil, errorf(n, where, "unexpected YAML node")
}

// scalar converts a scalar node to a JSON value.
func scalar(n *yaml.Node, where string) (any, error) {
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

// errTooBig stops a conversion that visits too many nodes.
var errTooBig = errors.New("too many nodes")

// escape escapes a JSON pointer segment.
func escape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// lookup resolves a local $ref ("#/components/schemas/Pet") in the
// document root and returns the node it points to, or nil.
func lookup(root *yaml.Node, ref string) (*yaml.Node, error) {
	frag, err := url.PathUnescape(strings.TrimPrefix(ref, "#"))
	if err != nil {
		return nil, err
	}
	if frag == "" {
		return root, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, errors.New("not a JSON pointer")
	}
	n := root
	for _, seg := range strings.Split(frag[1:], "/") {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		switch n = deref(n); n.Kind {
		case yaml.MappingNode:
			ps, err := pairs(n, "")
			if err != nil {
				return nil, nil
			}
			if n = get(ps, seg); n == nil {
				return nil, nil
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil, nil
			}
			n = n.Content[i]
		default:
			return nil, nil
		}
	}
	return deref(n), nil
}
