package openapi

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func loadFile(t *testing.T, name string) *Document {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return load(t, string(data))
}

// sameSchema compares two schemas by their meaning: their JSON, key order
// aside.
func sameSchema(t *testing.T, got *jsonschema.Schema, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(schemaJSON(t, got)), &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want: %v", err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("schema\n  %s\nwant\n  %s", gb, wb)
	}
}

// TestHuma: huma's OpenAPI 3.1 document (with its $schema properties and
// $refs to components) and its own 3.0 downgrade give the same tools.
func TestHuma(t *testing.T) {
	yes, no := true, false
	want := []struct {
		path, summary, description string
		input                      string
		annotations                Annotations
	}{
		{"/ping", "Check the service is up", "", `{"type":"object","additionalProperties":false}`, Annotations{}},
		{"/place_order", "Place an order", "Places an order for one or more books and returns its id.", `{
			"type": "object",
			"additionalProperties": false,
			"required": ["customer", "lines", "ship_to"],
			"properties": {
				"customer": {"type": "string", "description": "Customer name"},
				"gift_note": {"type": ["string", "null"], "description": "A note to print on the packing slip"},
				"lines": {
					"type": ["array", "null"], "description": "What to ship", "minItems": 1,
					"items": {
						"type": "object", "additionalProperties": false, "required": ["isbn", "quantity"],
						"properties": {
							"isbn": {"type": "string", "description": "The book's ISBN-13", "minLength": 13, "maxLength": 13},
							"quantity": {"type": "integer", "format": "int64", "description": "How many copies", "minimum": 1, "maximum": 99}
						}
					}
				},
				"priority": {"type": "string", "default": "standard", "enum": ["standard", "express"]},
				"ship_to": {
					"type": "object", "additionalProperties": false, "required": ["street", "city", "zip"],
					"properties": {
						"city": {"type": "string", "description": "City"},
						"street": {"type": "string", "description": "Street and number", "minLength": 1},
						"zip": {"type": "string", "description": "Five-digit postal code", "pattern": "^[0-9]{5}$"}
					}
				}
			}
		}`, Annotations{Destructive: &no, Idempotent: &no}},
		{"/search_books", "Search the catalogue", "", `{
			"type": "object",
			"additionalProperties": false,
			"required": ["query"],
			"properties": {
				"limit": {"type": "integer", "format": "int64", "default": 10, "minimum": 1, "maximum": 50},
				"query": {"type": "string", "description": "Words to look for in titles and authors"}
			}
		}`, Annotations{Title: "Search books", ReadOnly: &yes}},
	}
	for _, file := range []string{"testdata/huma-3.1.yaml", "testdata/huma-3.0.yaml"} {
		t.Run(file, func(t *testing.T) {
			doc := loadFile(t, file)
			if len(doc.Operations) != len(want) {
				t.Fatalf("%d operations, want %d", len(doc.Operations), len(want))
			}
			for _, w := range want {
				op := doc.Operation("POST", w.path)
				if op == nil {
					t.Fatalf("no POST %s", w.path)
				}
				if op.NoInput != "" {
					t.Fatalf("POST %s: no input: %s", w.path, op.NoInput)
				}
				sameSchema(t, op.Input, w.input)
				if op.Summary != w.summary || op.Description != w.description {
					t.Errorf("POST %s: summary %q, description %q", w.path, op.Summary, op.Description)
				}
				if got, want := annotationsJSON(op.Annotations), annotationsJSON(w.annotations); got != want {
					t.Errorf("POST %s: annotations %s, want %s", w.path, got, want)
				}
			}
		})
	}

	// The schema validates what huma's own handler would accept, and names
	// what it would not.
	rs, err := loadFile(t, "testdata/huma-3.1.yaml").Operation("POST", "/place_order").Input.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	order := func(shipTo string) any {
		var v any
		json.Unmarshal([]byte(`{"customer":"Ada","lines":[{"isbn":"9780262510875","quantity":2}],"ship_to":`+shipTo+`}`), &v)
		return v
	}
	if err := rs.Validate(order(`{"street":"1 Main St","city":"Springfield","zip":"12345"}`)); err != nil {
		t.Errorf("a valid order: %v", err)
	}
	if err := rs.Validate(order(`{"street":"1 Main St","city":"Springfield","zip":"1234"}`)); err == nil {
		t.Errorf("a four-digit zip passed")
	}
}

// TestOapiCodegen: a 3.0 spec as oapi-codegen's users write it, as
// kin-openapi marshals it for an oapi-codegen server (JSON, keys sorted),
// and as written (YAML) give the same tools.
func TestOapiCodegen(t *testing.T) {
	yes, no := true, false
	newLoan := `{
		"type": "object",
		"required": ["member", "isbn", "channel"],
		"properties": {
			"member": {"type": "object", "required": ["card"], "properties": {
				"card": {"type": "string", "description": "the member's library card number"},
				"name": {"type": "string"}}},
			"isbn": {"type": "string", "pattern": "^97[89][0-9]{10}$"},
			"weeks": {"type": "integer", "minimum": 1, "maximum": 6, "default": 3},
			"channel": {"oneOf": [
				{"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string", "enum": ["desk"]}, "branch": {"type": "string"}}},
				{"type": "object", "required": ["kind", "locker"], "properties": {"kind": {"type": "string", "enum": ["locker"]}, "locker": {"type": "integer", "minimum": 1}}}
			]},
			"note": {"type": ["string", "null"], "maxLength": 200}
		}
	}`
	category := `{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"subcategories":{"type":"array","items":{"$ref":"#/$defs/Category"}}}}`
	want := map[string]struct {
		input, noInput string
		annotations    Annotations
		exclude        bool
	}{
		"/lend_book": {input: newLoan, annotations: Annotations{Idempotent: &no}},
		"/return_book": {input: `{
			"type": "object",
			"required": ["loan_id"],
			"properties": {
				"loan_id": {"type": "integer", "format": "int64", "exclusiveMinimum": 0},
				"condition": {"type": ["string", "null"], "enum": ["good", "worn", "damaged"], "examples": ["good"]}
			}
		}`, annotations: Annotations{Destructive: &no, Idempotent: &yes}},
		"/list_categories": {input: `{"type":"object","additionalProperties":false}`, annotations: Annotations{ReadOnly: &yes}},
		"/add_category":    {input: category[:len(category)-1] + `,"$defs":{"Category":` + category + `}}`},
		"/upload_cover":    {noInput: "the request body is multipart/form-data; only an application/json (or +json) body can carry a tool's arguments"},
		"/admin/purge":     {input: `{"type":"object","additionalProperties":false}`, exclude: true},
	}
	for _, file := range []string{"testdata/oapi-codegen.json", "testdata/gen/kin/library.yaml"} {
		t.Run(file, func(t *testing.T) {
			doc := loadFile(t, file)
			for path, w := range want {
				op := doc.Operation("POST", path)
				if op == nil {
					t.Fatalf("no POST %s", path)
				}
				if op.NoInput != w.noInput {
					t.Errorf("POST %s: NoInput %q, want %q", path, op.NoInput, w.noInput)
				}
				if w.input != "" && op.Input != nil {
					sameSchema(t, op.Input, w.input)
				}
				if got, want := annotationsJSON(op.Annotations), annotationsJSON(w.annotations); got != want {
					t.Errorf("POST %s: annotations %s, want %s", path, got, want)
				}
				if op.Exclude != w.exclude {
					t.Errorf("POST %s: Exclude %v", path, op.Exclude)
				}
			}
			if op := doc.Operation("GET", "/loans/{loanId}"); op == nil {
				t.Errorf("no GET /loans/{loanId}")
			}
		})
	}
}
