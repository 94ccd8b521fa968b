package openapi

import (
	"encoding/json"
	"testing"
)

// FuzzLoad: Load never panics, and every input schema and parameter
// schema it returns marshals, resolves and validates a value, as Install
// and tool calls will need it to.
//
// The seeds are small (testdata/fuzz/FuzzLoad): the fuzzer minimizes every
// new input it finds, which takes long on large documents. The crafted-*
// seeds are small copies of the documents of TestLoadCrafted.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("openapi: 3.0.3\npaths:\n  /a:\n    post:\n      x-mcp-read-only: true\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Load(data)
		if err != nil {
			return
		}
		for _, op := range doc.Operations {
			if (op.Input == nil) == (op.NoInput == "") {
				t.Fatalf("%s %s: Input %v and NoInput %q", op.Method, op.Path, op.Input != nil, op.NoInput)
			}
			if op.Input == nil {
				continue
			}
			if _, err := json.Marshal(op.Input); err != nil {
				t.Fatalf("%s %s: marshal: %v", op.Method, op.Path, err)
			}
			if op.Input.Type != "object" {
				t.Fatalf("%s %s: input type %q", op.Method, op.Path, op.Input.Type)
			}
			rs, err := op.Input.Resolve(nil)
			if err != nil {
				t.Fatalf("%s %s: resolve: %v", op.Method, op.Path, err)
			}
			// A schema that applies a component to the same value without
			// end overflows the stack here, whatever the value.
			rs.Validate(map[string]any{})
		}
		for _, op := range doc.Operations {
			for _, p := range op.Params {
				if (p.Schema == nil) == (p.NoSchema == "") || p.In != "path" && p.In != "query" || p.In == "path" && !p.Required {
					t.Fatalf("%s %s: parameter %+v", op.Method, op.Path, p)
				}
				if p.Schema == nil {
					continue
				}
				if _, err := json.Marshal(p.Schema); err != nil {
					t.Fatalf("%s %s: parameter %s: marshal: %v", op.Method, op.Path, p.Name, err)
				}
				rs, err := p.Schema.Resolve(nil)
				if err != nil {
					t.Fatalf("%s %s: parameter %s: resolve: %v", op.Method, op.Path, p.Name, err)
				}
				rs.Validate("1")
			}
		}
	})
}
