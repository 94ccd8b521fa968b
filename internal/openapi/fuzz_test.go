package openapi

import (
	"encoding/json"
	"testing"
)

// FuzzLoad: Load never panics, and every input schema it returns marshals
// and resolves, as Install will need it to.
//
// The seeds are small (testdata/fuzz/FuzzLoad): the fuzzer minimizes every
// new input it finds, which takes long on large documents.
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
			if _, err := op.Input.Resolve(nil); err != nil {
				t.Fatalf("%s %s: resolve: %v", op.Method, op.Path, err)
			}
		}
	})
}
