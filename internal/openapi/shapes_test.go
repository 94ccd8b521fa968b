package openapi

import (
	"fmt"
	"strings"
	"testing"
)

// TestLoadJSON: a JSON document is read as JSON, escapes and lines
// included.
func TestLoadJSON(t *testing.T) {
	doc := load(t, `{
  "openapi": "3.1.0",
  "paths": {
    "/smile": {
      "post": {
        "summary": "Smile \ud83d\ude00 \/ \u00e9",
        "requestBody": {"content": {"application/json": {"schema": {
          "type": "object",
          "properties": {"n": {"type": "number", "maximum": 1e3, "minimum": -0.5}}
        }}}}
      }
    }
  }
}`)
	op := doc.Operation("POST", "/smile")
	if op.Summary != "Smile 😀 / é" || op.Line != 5 {
		t.Errorf("summary %q, line %d", op.Summary, op.Line)
	}
	if got := schemaJSON(t, op.Input); got != `{"type":"object","properties":{"n":{"type":"number","minimum":-0.5,"maximum":1000}}}` {
		t.Errorf("input %s", got)
	}

	_, err := Load([]byte("\ufeff\n{\"openapi\": \"3.1.0\",\n\"paths\": {\"/x\": {\"post\": {\n\"x-mcp-title\": null}}}}"))
	if want := "openapi: line 4: #/paths/~1x/post/x-mcp-title: want a string, got null"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// TestLoadYAMLFeatures: anchors, aliases and merge keys, and YAML's
// spellings of numbers.
func TestLoadYAMLFeatures(t *testing.T) {
	doc := load(t, `openapi: 3.0.3
paths:
  /a:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                id: &id {type: string, minLength: 0x2}
                copy: *id
                more:
                  <<: *id
                  maxLength: 1_000
`)
	want := `{"type":"object","properties":{"id":{"type":"string","minLength":2},"copy":{"type":"string","minLength":2},"more":{"type":"string","minLength":2,"maxLength":1000}}}`
	if got := schemaJSON(t, doc.Operation("POST", "/a").Input); got != want {
		t.Errorf("input\n  %s\nwant\n  %s", got, want)
	}
}

// TestLoadLarge: a component used many times over is inlined up to a
// bound, then carried in $defs; YAML aliases cannot make a schema grow
// without end.
func TestLoadLarge(t *testing.T) {
	// S0 uses S1 twice, S1 uses S2 twice, ... : 2^20 copies if inlined.
	var b strings.Builder
	b.WriteString("openapi: 3.1.0\npaths:\n  /big:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema: {$ref: '#/components/schemas/S0'}\ncomponents:\n  schemas:\n")
	for i := range 20 {
		fmt.Fprintf(&b, "    S%d: {type: object, properties: {l: {$ref: '#/components/schemas/S%d'}, r: {$ref: '#/components/schemas/S%d'}}}\n", i, i+1, i+1)
	}
	b.WriteString("    S20: {type: string}\n")
	op := load(t, b.String()).Operation("POST", "/big")
	if op.Input == nil {
		t.Fatalf("no input: %s", op.NoInput)
	}
	if got := schemaJSON(t, op.Input); !strings.HasPrefix(got, `{"type":"object","$ref":"#/$defs/S0","$defs":{`) || len(op.Input.Defs) != 21 {
		t.Errorf("input %.200s... with %d $defs", got, len(op.Input.Defs))
	}
	rs, err := op.Input.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(map[string]any{"l": map[string]any{"r": 5}}); err == nil {
		t.Errorf("a number where an object is wanted passed")
	}

	// A billion laughs made of YAML aliases.
	b.Reset()
	b.WriteString("openapi: 3.1.0\npaths:\n  /lol:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema:\n              type: object\n              default: &l0 [a, a, a, a, a, a, a, a, a, a]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "              x%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	b.WriteString("              examples: [*l8]\n")
	op = load(t, b.String()).Operation("POST", "/lol")
	if want := "the request body's schema is too large: more than 200000 values once YAML aliases are expanded"; op.NoInput != want {
		t.Errorf("NoInput %q, want %q", op.NoInput, want)
	}

	// The same, under 500 operations: the document's budget runs out.
	doc := b.String()[:strings.Index(b.String(), "              examples")]
	doc = strings.Replace(doc, "paths:\n  /lol:\n    post:\n", "x:\n  op: &op\n", 1)
	doc += "              examples: [*l8]\npaths:\n"
	for i := range 500 {
		doc += fmt.Sprintf("  /p%d: {post: *op}\n", i)
	}
	ops := load(t, doc).Operations
	if want := "the document's schemas are too large: more than 2000000 values once YAML aliases are expanded"; len(ops) != 500 || ops[499].NoInput != want {
		t.Errorf("%d operations; the last: %q, want %q", len(ops), ops[len(ops)-1].NoInput, want)
	}

	// Merge keys that merge the same mappings over and over.
	b.Reset()
	b.WriteString("openapi: 3.1.0\nx:\n  m0: &m0 {summary: merged}\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "  m%d: &m%d {<<: [*m%d, *m%d]}\n", i, i, i-1, i-1)
	}
	b.WriteString("paths:\n  /a:\n    post:\n      <<: *m40\n")
	if op := load(t, b.String()).Operation("POST", "/a"); op.Summary != "merged" {
		t.Errorf("summary %q", op.Summary)
	}
}
