package openapi

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

// doc30 is an OpenAPI 3.0 document with one operation per case.
const doc30 = `openapi: 3.0.3
info: {title: shop, version: "1"}
paths:
  /add_item:
    post:
      summary: Add an item
      description: Adds an item to the cart.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: '#/components/schemas/NewItem'
  /ship:
    post:
      summary: Ship the cart
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [address]
              properties:
                address: {$ref: '#/components/schemas/Address'}
                gift: {$ref: '#/components/schemas/Gift'}
  /ping:
    post:
      summary: Check the shop is up
      x-mcp-read-only: true
      x-mcp-idempotent: true
      x-mcp-title: Ping
  /notes:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                note: {type: string, nullable: true}
                count: {type: integer, nullable: true, minimum: 0, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false}
                anything: {nullable: true}
                tags: {type: array, items: {type: string}, nullable: true, example: [a, b]}
  /special:
    post:
      requestBody:
        content:
          application/json:
            schema:
              allOf:
                - $ref: '#/components/schemas/Address'
                - type: object
                  properties:
                    id: {type: integer, readOnly: true}
                    floor: {type: integer}
                  required: [id, floor]
      x-mcp-destructive: true
      x-mcp-open-world: false
  /upload:
    post:
      requestBody:
        content:
          multipart/form-data:
            schema: {type: object}
          application/octet-stream: {}
  /merge:
    post:
      requestBody:
        content:
          application/merge-patch+json:
            schema: {type: object, properties: {name: {type: string}}}
  /batch:
    post:
      requestBody:
        content:
          application/json:
            schema: {type: array, items: {type: string}}
  /drop:
    post:
      x-mcp-exclude: true
  /any:
    post:
      requestBody:
        content:
          application/json: {}
  /items/{id}:
    get:
      summary: Get an item
components:
  schemas:
    NewItem:
      required: [sku, quantity]
      properties:
        sku: {type: string, pattern: '^[A-Z]{3}-[0-9]{4}$', x-go-name: SKU}
        quantity: {type: integer, minimum: 1, default: 1}
        size: {$ref: '#/components/schemas/Size'}
    Size:
      type: string
      enum: [S, M, L]
      description: the size, when the item has sizes
    Address:
      type: object
      required: [street, city]
      properties:
        street: {type: string}
        city: {type: string}
      discriminator: {propertyName: city}
      xml: {name: address}
    Gift:
      type: object
      properties:
        wrap: {type: boolean, description: wrap it, nullable: true}
        to: {type: string}
      description: this is a ref sibling's target
`

// doc31 is the OpenAPI 3.1 counterpart, and what only 3.1 has.
const doc31 = `openapi: 3.1.0
info: {title: shop, version: "1"}
paths:
  /add_item:
    post:
      summary: Add an item
      requestBody:
        $ref: '#/components/requestBodies/NewItem'
  /notes:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                note: {type: [string, 'null']}
                count: {type: integer, exclusiveMinimum: 0, exclusiveMaximum: 10}
                size:
                  $ref: '#/components/schemas/Size'
                  description: the size of this note
                strict:
                  $ref: '#/components/schemas/Size'
                  enum: [S, M]
                  example: S
                link: {$schema: 'https://json-schema.org/draft/2020-12/schema', type: string, const: x}
  /tree:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Node'}
  /lookahead:
    post:
      requestBody:
        content:
          application/json:
            schema: {properties: {code: {type: string, pattern: '^(?!00)[0-9]+$'}}}
  /scalar:
    post:
      requestBody:
        content:
          application/json:
            schema:
              $ref: '#/components/schemas/Size'
              maxLength: 1
  /elsewhere:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: 'common.yaml#/Thing'}
components:
  requestBodies:
    NewItem:
      content:
        application/json:
          schema:
            $ref: '#/components/schemas/NewItem'
  schemas:
    NewItem:
      $schema: https://spec.openapis.org/oas/3.1/dialect/base
      type: object
      required: [sku]
      properties:
        $schema: {type: string, format: uri, readOnly: true}
        sku: {type: string, examples: [ABC-1234]}
    Size:
      type: string
      enum: [S, M, L]
    Node:
      type: object
      required: [name]
      properties:
        name: {type: string}
        children:
          type: array
          items: {$ref: '#/components/schemas/Node'}
`

func schemaJSON(t *testing.T, s *jsonschema.Schema) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func load(t *testing.T, data string) *Document {
	t.Helper()
	doc, err := Load([]byte(data))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return doc
}

func TestLoadOperations(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name, doc, path string
		input           string // the input schema's JSON; "" when none
		noInput         string
		summary         string
		annotations     Annotations
		exclude         bool
	}{
		{name: "3.0 $ref'd body, nested $ref", doc: doc30, path: "/add_item", summary: "Add an item",
			input: `{"type":"object","properties":{"sku":{"type":"string","pattern":"^[A-Z]{3}-[0-9]{4}$"},"quantity":{"type":"integer","default":1,"minimum":1},"size":{"type":"string","description":"the size, when the item has sizes","enum":["S","M","L"]}},"required":["sku","quantity"]}`},
		{name: "3.0 $ref siblings are ignored, discriminator and xml dropped", doc: doc30, path: "/ship",
			summary: "Ship the cart",
			input:   `{"type":"object","properties":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}},"required":["street","city"]},"gift":{"type":"object","properties":{"wrap":{"type":["boolean","null"],"description":"wrap it"},"to":{"type":"string"}},"description":"this is a ref sibling's target"}},"required":["address"]}`},
		{name: "no body: no arguments", doc: doc30, path: "/ping", summary: "Check the shop is up",
			input:       `{"type":"object","additionalProperties":false}`,
			annotations: Annotations{Title: "Ping", ReadOnly: &yes, Idempotent: &yes}},
		{name: "3.0 nullable, exclusive bounds, example", doc: doc30, path: "/notes",
			input: `{"type":"object","properties":{"note":{"type":["string","null"]},"count":{"type":["integer","null"],"maximum":9,"exclusiveMinimum":0},"anything":true,"tags":{"type":["array","null"],"items":{"type":"string"},"examples":[["a","b"]]}}}`},
		{name: "allOf, read-only property left out", doc: doc30, path: "/special",
			input:       `{"type":"object","allOf":[{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}},"required":["street","city"]},{"type":"object","properties":{"floor":{"type":"integer"}},"required":["floor"]}]}`,
			annotations: Annotations{Destructive: &yes, OpenWorld: &no}},
		{name: "not JSON", doc: doc30, path: "/upload",
			noInput: "the request body is multipart/form-data, application/octet-stream; only an application/json (or +json) body can carry a tool's arguments"},
		{name: "+json", doc: doc30, path: "/merge",
			input: `{"type":"object","properties":{"name":{"type":"string"}}}`},
		{name: "not an object", doc: doc30, path: "/batch",
			noInput: "the request body's schema is of type array; a tool's arguments are a JSON object"},
		{name: "excluded", doc: doc30, path: "/drop", exclude: true,
			input: `{"type":"object","additionalProperties":false}`},
		{name: "JSON without a schema: any object", doc: doc30, path: "/any", input: `{"type":"object"}`},

		{name: "3.1 request body $ref, $schema dropped", doc: doc31, path: "/add_item", summary: "Add an item",
			input: `{"type":"object","properties":{"sku":{"type":"string","examples":["ABC-1234"]}},"required":["sku"]}`},
		{name: "3.1 type lists, numeric bounds, $ref siblings", doc: doc31, path: "/notes",
			input: `{"type":"object","properties":{"note":{"type":["string","null"]},"count":{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":10},"size":{"type":"string","description":"the size of this note","enum":["S","M","L"]},"strict":{"examples":["S"],"enum":["S","M"],"allOf":[{"type":"string","enum":["S","M","L"]}]},"link":{"type":"string","const":"x"}}}`},
		{name: "3.1 recursive component in $defs", doc: doc31, path: "/tree",
			input: `{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"$defs":{"Node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["name"]}},"required":["name"]}`},
		{name: "a pattern Go's regexp cannot run", doc: doc31, path: "/lookahead",
			noInput: "the request body's schema does not resolve: jsonschema.Schema: <anonymous schema>: pattern: error parsing regexp: invalid or unsupported Perl syntax: `(?!`"},
		{name: "3.1 $ref with constraints to a string", doc: doc31, path: "/scalar",
			noInput: "the request body's schema is of type string; a tool's arguments are a JSON object"},
		{name: "3.1 $ref to another file", doc: doc31, path: "/elsewhere",
			noInput: `#/paths/~1elsewhere/post/requestBody/content/application~1json/schema: the $ref "common.yaml#/Thing" points outside the document; bundle the document into one file`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			op := load(t, c.doc).Operation("POST", c.path)
			if op == nil {
				t.Fatalf("no operation POST %s", c.path)
			}
			if op.NoInput != c.noInput {
				t.Errorf("NoInput = %q, want %q", op.NoInput, c.noInput)
			}
			switch {
			case c.input == "" && op.Input != nil:
				t.Errorf("Input = %s, want none", schemaJSON(t, op.Input))
			case c.input != "" && op.Input == nil:
				t.Errorf("Input = nil, want %s", c.input)
			case c.input != "":
				if got := schemaJSON(t, op.Input); got != c.input {
					t.Errorf("Input =\n  %s\nwant\n  %s", got, c.input)
				}
				if _, err := op.Input.Resolve(nil); err != nil {
					t.Errorf("Input does not resolve: %v", err)
				}
			}
			if op.Summary != c.summary {
				t.Errorf("Summary = %q, want %q", op.Summary, c.summary)
			}
			if got, want := annotationsJSON(op.Annotations), annotationsJSON(c.annotations); got != want {
				t.Errorf("Annotations = %s, want %s", got, want)
			}
			if op.Exclude != c.exclude {
				t.Errorf("Exclude = %v, want %v", op.Exclude, c.exclude)
			}
		})
	}
}

func annotationsJSON(a Annotations) string {
	b, _ := json.Marshal(a)
	return string(b)
}

// TestLoadDocument checks what Load says of a document as a whole.
func TestLoadDocument(t *testing.T) {
	doc := load(t, doc30)
	var got []string
	for _, op := range doc.Operations {
		got = append(got, op.Method+" "+op.Path)
	}
	want := []string{"POST /add_item", "POST /ship", "POST /ping", "POST /notes", "POST /special", "POST /upload", "POST /merge", "POST /batch", "POST /drop", "POST /any", "GET /items/{id}"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
	if doc.Version != "3.0.3" {
		t.Errorf("Version = %q", doc.Version)
	}
	if op := doc.Operation("POST", "/add_item"); op.Description != "Adds an item to the cart." || op.Line != 5 {
		t.Errorf("POST /add_item: description %q, line %d", op.Description, op.Line)
	}

	warned := load(t, "openapi: 3.1.0\npaths:\n  /x:\n    post:\n      x-mcp-readonly: true\n")
	if diff := cmp.Diff([]string{"openapi: line 5: #/paths/~1x/post/x-mcp-readonly: unknown extension, ignored; mcpdoor reads x-mcp-read-only, x-mcp-destructive, x-mcp-idempotent, x-mcp-open-world, x-mcp-title and x-mcp-exclude"}, warned.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestLoadProperties: the document's order of properties is kept.
func TestLoadPropertyOrder(t *testing.T) {
	doc := load(t, `openapi: 3.1.0
paths:
  /x:
    post:
      requestBody:
        content:
          application/json:
            schema:
              properties: {zeta: {type: string}, alpha: {type: string}, mid: {type: string}}
`)
	if got := schemaJSON(t, doc.Operation("POST", "/x").Input); got != `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"string"},"mid":{"type":"string"}}}` {
		t.Errorf("got %s", got)
	}
}

func TestLoadErrors(t *testing.T) {
	const head = "openapi: 3.0.3\npaths:\n  /x:\n    post:\n"
	body := func(schema string) string {
		return head + "      requestBody:\n        content:\n          application/json:\n            schema: " + schema + "\n"
	}
	cases := []struct {
		name, doc, want string
	}{
		{"empty", "  \n", "openapi: the document is empty"},
		{"not YAML", "openapi: [3.0\n", "openapi: not valid YAML or JSON: line 1: did not find expected ',' or ']'"},
		{"not JSON", "{\"openapi\": \"3.1.0\",\n \"paths\": {]}", "openapi: line 2: not valid JSON: invalid character ']'"},
		{"truncated JSON", "{\"openapi\": \"3.1.0\",\n \"paths\": {", "openapi: line 2: not valid JSON: unexpected EOF"},
		{"trailing JSON", "{\"openapi\": \"3.1.0\"}\n{}", "openapi: line 2: not valid JSON: data after the document"},
		{"not a mapping", "- openapi\n", "openapi: line 1: the document must be a mapping (an OpenAPI object), got a list"},
		{"not OpenAPI", "name: x\n", "openapi: line 1: #: no openapi field: this is not an OpenAPI document"},
		{"Swagger 1.2", "swagger: '1.2'\n", `openapi: line 1: #/swagger: Swagger version "1.2" is not supported; want 2.0 (or openapi 3.0.x or 3.1.x)`},
		{"version", "openapi: 4.0.0\n", `openapi: line 1: #/openapi: version "4.0.0" is not supported; want 3.0.x or 3.1.x`},
		{"duplicate top-level key", "openapi: 3.1.0\nopenapi: 3.0.0\n", `openapi: line 2: #: the key "openapi" is given twice`},
		{"paths not a mapping", "openapi: 3.1.0\npaths: [a]\n", "openapi: line 2: #/paths: want a mapping, got a list"},
		{"path without /", "openapi: 3.1.0\npaths:\n  x: {}\n", `openapi: line 3: #/paths/x: the path "x" must start with /`},
		{"duplicate key", head + "      summary: a\n      summary: b\n", `openapi: line 6: #/paths/~1x/post: the key "summary" is given twice`},
		{"annotation type", head + "      x-mcp-read-only: \"yes\"\n", `openapi: line 5: #/paths/~1x/post/x-mcp-read-only: want a boolean, got the string "yes"`},
		{"exclude type", head + "      x-mcp-exclude: 1\n", `openapi: line 5: #/paths/~1x/post/x-mcp-exclude: want a boolean, got a number`},
		{"missing component", body("{$ref: '#/components/schemas/Gone'}"),
			`openapi: line 8: #/paths/~1x/post/requestBody/content/application~1json/schema: the $ref "#/components/schemas/Gone" points to nothing`},
		{"missing nested component", body("{$ref: '#/components/schemas/A'}") + "components:\n  schemas:\n    A:\n      properties:\n        b: {$ref: '#/components/schemas/B'}\n",
			`openapi: line 13: #/components/schemas/A/properties/b: the $ref "#/components/schemas/B" points to nothing`},
		{"missing request body", head + "      requestBody: {$ref: '#/components/requestBodies/Gone'}\n",
			`openapi: line 5: #/paths/~1x/post/requestBody: the $ref "#/components/requestBodies/Gone" points to nothing`},
		{"schema not a mapping", body("5"), `openapi: line 8: #/paths/~1x/post/requestBody/content/application~1json/schema: a schema must be a mapping or a boolean, got a number`},
		{"required not a list", body("{required: name}"), `openapi: line 8: #/paths/~1x/post/requestBody/content/application~1json/schema: not a valid schema: required: want a list, got a string`},
		{"pattern not a string", body("{pattern: [a]}"), `openapi: line 8: #/paths/~1x/post/requestBody/content/application~1json/schema: not a valid schema: pattern: want a string, got a list`},
		{"bad type", body("{type: map}"), `openapi: line 8: #/paths/~1x/post/requestBody/content/application~1json/schema: not a valid schema: type "map" is not a JSON Schema type`},
		{"properties not a mapping", body("{properties: [a]}"), `openapi: line 8: #/paths/~1x/post/requestBody/content/application~1json/schema/properties: want a mapping, got a list`},
		{"empty type list", body("{type: []}"), `openapi: line 8: #/paths/~1x/post/requestBody/content/application~1json/schema: not a valid schema: type is an empty list`},
		{"tuple items", body("{properties: {a: {items: [{type: string}]}}}"), `openapi: line 8: #/paths/~1x/post/requestBody/content/application~1json/schema/properties/a/items: items must be a schema (a list of schemas is prefixItems in JSON Schema 2020-12)`},
		{"alias cycle", "openapi: 3.1.0\npaths:\n  /:\n   post:\n    requestBody:\n     content:\n      application/json:\n       schema: &s {properties: {a: *s}}\n",
			`openapi: line 8: #/paths/~1/post/requestBody/content/application~1json/schema/properties/a/properties/a/properties/a/...: nested more than 256 levels deep (is it a YAML alias inside the node it names?)`},
		{"alias cycle in a value", "openapi: 3.1.0\npaths:\n  /:\n   post:\n    requestBody:\n     content:\n      application/json:\n       schema: {default: &d [*d]}\n",
			`openapi: line 8: #/paths/~1/post/requestBody/content/application~1json/schema/default/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0...: nested more than 256 levels deep (is it a YAML alias inside the node it names?)`},
		{"infinity", body("{maximum: .inf}"), `openapi: line 8: #/paths/~1x/post/requestBody/content/application~1json/schema/maximum: .inf is not a number JSON can hold`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load([]byte(c.doc))
			if err == nil {
				t.Fatalf("no error, want %s", c.want)
			}
			if err.Error() != c.want {
				t.Errorf("error:\n  %v\nwant\n  %s", err, c.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%T is not an *Error", err)
			}
		})
	}
}
