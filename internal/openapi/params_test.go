package openapi

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// docParams is a REST document: parameters on the path item and the
// operation, by $ref and inline, of every location.
const docParams = `openapi: 3.0.3
info: {title: notes, version: "1"}
paths:
  /notes/{id}:
    parameters:
      - $ref: '#/components/parameters/NoteID'
      - {name: trace, in: header, schema: {type: string}}
      - {name: verbose, in: query, schema: {type: boolean}}
    get:
      operationId: getNote
    patch:
      parameters:
        - {name: verbose, in: query, description: say more, schema: {type: integer, nullable: true}}
        - {name: dry_run, in: query, required: true, schema: {type: boolean}}
        - {name: session, in: cookie}
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {text: {type: string}}}
  /notes:
    get:
      parameters:
        - {name: tag, in: query, content: {application/json: {schema: {type: string}}}}
        - {name: limit, in: query, schema: {$ref: '#/components/schemas/Limit'}}
components:
  parameters:
    NoteID: {name: id, in: path, required: true, description: the note's id, schema: {type: integer, minimum: 1}}
  schemas:
    Limit: {type: integer, minimum: 1, maximum: 100, default: 20}
`

// TestLoadParams: an operation's path and query parameters, the path
// item's included and overridden by the operation's own; header and cookie
// parameters left out; $refs resolved; 3.0 keywords converted.
func TestLoadParams(t *testing.T) {
	doc := load(t, docParams)
	type want struct {
		name, in string
		required bool
		desc     string
		schema   string // "" when none
		noSchema string
	}
	for _, tc := range []struct {
		method, path string
		hasBody      bool
		params       []want
	}{
		{"GET", "/notes/{id}", false, []want{
			{"id", "path", true, "the note's id", `{"type":"integer","minimum":1}`, ""},
			{"verbose", "query", false, "", `{"type":"boolean"}`, ""},
		}},
		{"PATCH", "/notes/{id}", true, []want{
			{"id", "path", true, "the note's id", `{"type":"integer","minimum":1}`, ""},
			{"verbose", "query", false, "say more", `{"type":["integer","null"]}`, ""},
			{"dry_run", "query", true, "", `{"type":"boolean"}`, ""},
		}},
		{"GET", "/notes", false, []want{
			{"tag", "query", false, "", "", "the parameter has no schema"},
			{"limit", "query", false, "", `{"type":"integer","default":20,"minimum":1,"maximum":100}`, ""},
		}},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			op := doc.Operation(tc.method, tc.path)
			if op == nil {
				t.Fatal("no operation")
			}
			if op.HasBody != tc.hasBody {
				t.Errorf("HasBody = %v, want %v", op.HasBody, tc.hasBody)
			}
			if len(op.Params) != len(tc.params) {
				t.Fatalf("%d parameters, want %d: %+v", len(op.Params), len(tc.params), op.Params)
			}
			for i, w := range tc.params {
				p := op.Params[i]
				schema := ""
				if p.Schema != nil {
					schema = schemaJSON(t, p.Schema)
				}
				got := want{p.Name, p.In, p.Required, p.Description, schema, p.NoSchema}
				if got != w {
					t.Errorf("parameter %d:\n  %+v\nwant\n  %+v", i, got, w)
				}
			}
		})
	}
}

func TestLoadParamErrors(t *testing.T) {
	const head = "openapi: 3.1.0\npaths:\n  /x/{id}:\n    get:\n      parameters:\n"
	for _, tc := range []struct{ name, params, want string }{
		{"not a list", "        {name: id}\n", `openapi: line 6: #/paths/~1x~1{id}/get/parameters: want a list of parameters, got a mapping`},
		{"no name", "        - {in: query}\n", `openapi: line 6: #/paths/~1x~1{id}/get/parameters/0: a parameter needs "name"`},
		{"no in", "        - {name: id}\n", `openapi: line 6: #/paths/~1x~1{id}/get/parameters/0: a parameter needs "in"`},
		{"bad in", "        - {name: id, in: body}\n", `openapi: line 6: #/paths/~1x~1{id}/get/parameters/0/in: in is "body"; want path, query, header or cookie`},
		{"twice", "        - {name: id, in: path}\n        - {name: id, in: path}\n", `openapi: line 7: #/paths/~1x~1{id}/get/parameters/1: the path parameter "id" is listed twice`},
		{"required type", "        - {name: id, in: path, required: yes}\n", `openapi: line 6: #/paths/~1x~1{id}/get/parameters/0/required: want a boolean, got the string "yes"`},
		{"missing $ref", "        - $ref: '#/components/parameters/Gone'\n", `openapi: line 6: #/paths/~1x~1{id}/get/parameters/0: the $ref "#/components/parameters/Gone" points to nothing`},
		{"bad schema", "        - {name: id, in: path, schema: {type: map}}\n", `openapi: line 6: #/paths/~1x~1{id}/get/parameters/0/schema: not a valid schema: type "map" is not a JSON Schema type`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]byte(head + tc.params))
			var e *Error
			if err == nil || err.Error() != tc.want || !errors.As(err, &e) {
				t.Errorf("error:\n  %v\nwant\n  %s", err, tc.want)
			}
		})
	}
}

// TestLoadParamNoSchema: a parameter whose schema cannot be served is kept
// without one, and the reason names the parameter's schema, not the
// request body's.
func TestLoadParamNoSchema(t *testing.T) {
	var chain strings.Builder
	for i := range 30 {
		fmt.Fprintf(&chain, "    C%d: {allOf: [{$ref: '#/components/schemas/C%d'}, {$ref: '#/components/schemas/C%d'}]}\n", i, i+1, i+1)
	}
	chain.WriteString("    C30: {type: integer}\n")
	doc := load(t, `openapi: 3.1.0
paths:
  /p:
    get:
      parameters:
        - {name: self, in: query, schema: {$ref: '#/components/schemas/S'}}
        - {name: wide, in: query, schema: {$ref: '#/components/schemas/C0'}}
        - {name: bad_default, in: query, schema: {type: integer, default: x}}
components:
  schemas:
    S: {type: integer, allOf: [{$ref: '#/components/schemas/S'}]}
`+chain.String())
	op := doc.Operation("GET", "/p")
	if op == nil || len(op.Params) != 3 {
		t.Fatalf("operation %+v", op)
	}
	for i, want := range []string{
		"the parameter's schema applies #/components/schemas/S to the same value without end (through allOf, anyOf, oneOf, not, if, then, else or dependentSchemas): checking a value against it would never finish",
		"the parameter's schema is too large: it applies more than 10000 schemas to one value once its $refs are expanded",
		"the parameter's schema does not resolve: ",
	} {
		p := op.Params[i]
		if p.Schema != nil || !strings.HasPrefix(p.NoSchema, want) || (i < 2) != (p.NoSchema == want) {
			t.Errorf("parameter %s: schema %v, NoSchema\n  %s\nwant\n  %s", p.Name, p.Schema != nil, p.NoSchema, want)
		}
	}
}
