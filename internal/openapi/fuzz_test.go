package openapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad: Load never panics, and every input schema it returns marshals
// and resolves, as Install will need it to.
func FuzzLoad(f *testing.F) {
	for _, glob := range []string{"testdata/*.yaml", "testdata/*.json", "testdata/gen/kin/*.yaml"} {
		files, _ := filepath.Glob(glob)
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte(doc30))
	f.Add([]byte(doc31))
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
