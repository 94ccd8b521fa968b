package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"
)

// A decoded is the keywords of a schema that hold no subschema, decoded
// once for all the uses of the schema (YAML aliases and $refs name one
// schema many times, and decoding takes far longer than copying), with
// what decoding them cost: each use takes that cost again, as each use is
// a copy of them in a tool's schema.
type decoded struct {
	leaf jsonschema.Schema
	cost budget
}

// schema returns a new schema holding the decoded keywords. Their lists
// and maps are shared between the copies, and must not be changed in
// place.
func (d *decoded) schema() *jsonschema.Schema {
	if d.leaf.DependencySchemas != nil { // from dependencies: subschemas, which a schema may not share
		return d.leaf.CloneSchemas()
	}
	s := d.leaf
	return &s
}

// leafSchema decodes the keywords that hold no subschema with
// jsonschema-go's own decoder, so that they mean what they mean there.
func leafSchema(leaf map[string]any, n *yaml.Node, where *pointer) (*jsonschema.Schema, error) {
	s, ok := stringLeaf(leaf)
	if !ok {
		var err error
		if s, err = decodeLeaf(leaf, n, where); err != nil {
			return nil, err
		}
	}
	if err := checkLeaf(s); err != nil {
		return nil, errorf(n, where, "not a valid schema: %v", err)
	}
	return s, nil
}

// stringLeaf decodes the keywords of leaf when each of them is one that
// jsonschema-go decodes to a string field, with a string: the keywords of
// most schemas, decoded in a tenth of the time of the JSON round trip.
func stringLeaf(leaf map[string]any) (*jsonschema.Schema, bool) {
	s := new(jsonschema.Schema)
	for k, v := range leaf {
		v, ok := v.(string)
		if !ok || !utf8.ValidString(v) { // encoding/json would change the string
			return nil, false
		}
		switch k {
		case "type":
			s.Type = v
		case "title":
			s.Title = v
		case "description":
			s.Description = v
		case "format":
			s.Format = v
		case "pattern":
			s.Pattern = v
		default:
			return nil, false
		}
	}
	return s, true
}

// decodeLeaf decodes leaf with encoding/json.
func decodeLeaf(leaf map[string]any, n *yaml.Node, where *pointer) (*jsonschema.Schema, error) {
	b, err := json.Marshal(leaf)
	if err != nil {
		return nil, errorf(n, where, "%v", err)
	}
	s := new(jsonschema.Schema)
	if err := json.Unmarshal(b, s); err != nil {
		return nil, errorf(n, where, "not a valid schema: %s", schemaError(err))
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
