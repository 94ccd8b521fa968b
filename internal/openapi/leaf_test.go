package openapi

import (
	"encoding/json"
	"testing"
)

// TestStringLeaf: the keywords stringLeaf decodes without encoding/json
// decode to what encoding/json makes of them, and it leaves the others to
// encoding/json.
func TestStringLeaf(t *testing.T) {
	cases := []struct {
		name   string
		leaf   map[string]any
		decode bool // whether stringLeaf decodes it
	}{
		{"none", map[string]any{}, true},
		{"strings", map[string]any{"type": "string", "title": "T", "description": "D é", "format": "email", "pattern": "^a+$"}, true},
		{"a type list", map[string]any{"type": []any{"string", "null"}}, false},
		{"a number", map[string]any{"type": "integer", "minimum": json.Number("1")}, false},
		{"a description that is a number", map[string]any{"description": json.Number("5")}, false},
		{"an unknown keyword", map[string]any{"x": "y"}, false},
		{"invalid UTF-8", map[string]any{"description": "\xff"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, ok := stringLeaf(c.leaf)
			if ok != c.decode {
				t.Fatalf("stringLeaf decodes it: %v, want %v", ok, c.decode)
			}
			if !ok {
				return
			}
			want, err := decodeLeaf(c.leaf, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := schemaJSON(t, s), schemaJSON(t, want); got != want {
				t.Errorf("stringLeaf: %s\nencoding/json: %s", got, want)
			}
		})
	}
}
