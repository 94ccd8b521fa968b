package openapi

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// FuzzLoad: Load never panics, and every input, body, output and
// parameter schema it returns marshals, resolves and validates a value, as
// Install and tool calls will need it to.
//
// The seeds are small (testdata/fuzz/FuzzLoad): the fuzzer minimizes every
// new input it finds, which takes long on large documents. The crafted-*
// seeds are small copies of the documents of TestLoadCrafted.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("openapi: 3.0.3\npaths:\n  /a:\n    post:\n      x-mcp-read-only: true\n"))
	f.Add([]byte("openapi: 3.1.0\nservers: [{url: 'https://x/{v}', variables: {v: {default: api}}}]\npaths:\n  /a:\n    get:\n      responses: {'200': {content: {application/json: {schema: {type: array}}}}}\n"))
	// Swagger 2.0, as swaggo writes it (and testdata/fuzz/FuzzLoad/swagger2-*).
	f.Add([]byte(`{"swagger":"2.0","basePath":"/api","paths":{"/a/{id}":{"post":{"consumes":["application/json"],"parameters":[` +
		`{"type":"integer","name":"id","in":"path","required":true},{"name":"b","in":"body","schema":{"$ref":"#/definitions/m.A"}}],` +
		`"responses":{"200":{"schema":{"type":"array","items":{"$ref":"#/definitions/m.A"}}}}}}},"definitions":{"m.A":{"type":"object","properties":{"x":{"type":"string","readOnly":true}}}}}`))
	f.Add([]byte("swagger: '2.0'\nconsumes: [multipart/form-data]\npaths:\n  /up:\n    post:\n      parameters: [{name: f, in: formData, type: file}, {name: q, in: query, type: array, items: {type: string}, collectionFormat: csv}]\n"))
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
			if op.Output != nil && op.NoOutput != "" {
				t.Fatalf("%s %s: Output and NoOutput %q", op.Method, op.Path, op.NoOutput)
			}
			if op.Input != nil && op.Body != nil && op.Input != op.Body {
				t.Fatalf("%s %s: an object body that is not the input", op.Method, op.Path)
			}
			for what, s := range map[string]*jsonschema.Schema{"output": op.Output, "body": op.Body} {
				if s == nil {
					continue
				}
				if _, err := json.Marshal(s); err != nil {
					t.Fatalf("%s %s: %s: marshal: %v", op.Method, op.Path, what, err)
				}
				rs, err := s.Resolve(nil)
				if err != nil {
					t.Fatalf("%s %s: %s: resolve: %v", op.Method, op.Path, what, err)
				}
				rs.Validate([]any{map[string]any{}})
			}
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
