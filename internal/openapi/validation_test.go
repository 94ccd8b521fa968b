package openapi

import (
	"strings"
	"testing"
)

// TestLoadValidationCost: a schema a validator would apply to the same
// value without end, or apply too many schemas with, is left out with
// the reason; recursion into the values inside a value, and ordinary
// defaults, are not.
func TestLoadValidationCost(t *testing.T) {
	body := func(schema, components string) string {
		return "openapi: 3.1.0\npaths:\n  /x:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema: " +
			schema + "\ncomponents:\n  schemas:\n" + components
	}
	endless := func(ref string) string {
		return "the request body's schema applies " + ref + " to the same value without end (through allOf, anyOf, oneOf, not, if, then, else or dependentSchemas): checking a value against it would never finish"
	}
	cases := []struct {
		name, doc, noInput string
	}{
		{"recursion into properties and items",
			body("{$ref: '#/components/schemas/Node'}", "    Node: {type: object, default: {name: a}, properties: {name: {type: string}, kids: {type: array, items: {$ref: '#/components/schemas/Node'}}, parent: {$ref: '#/components/schemas/Node'}}}\n"), ""},
		{"one component twice in allOf", body("{allOf: [{$ref: '#/components/schemas/A'}, {$ref: '#/components/schemas/A'}]}", "    A: {type: object, properties: {a: {$ref: '#/components/schemas/A'}}}\n"), ""},
		{"anyOf itself", body("{$ref: '#/components/schemas/A'}", "    A: {anyOf: [{type: object}, {$ref: '#/components/schemas/A'}]}\n"),
			endless("#/components/schemas/A")},
		{"not, through another", body("{type: object, properties: {a: {$ref: '#/components/schemas/A'}}}",
			"    A: {not: {$ref: '#/components/schemas/B'}}\n    B: {if: {$ref: '#/components/schemas/A'}}\n"),
			endless("#/components/schemas/A")},
		{"dependentSchemas", body("{$ref: '#/components/schemas/A'}", "    A: {type: object, dependentSchemas: {a: {$ref: '#/components/schemas/A'}}}\n"),
			endless("#/components/schemas/A")},
		{"a $ref beside constraints (3.1)", body("{$ref: '#/components/schemas/A'}", "    A: {$ref: '#/components/schemas/A', type: object}\n"),
			endless("#/components/schemas/A")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			op := load(t, c.doc).Operation("POST", "/x")
			if op.NoInput != c.noInput {
				t.Errorf("NoInput %q\nwant %q", op.NoInput, c.noInput)
			}
			if op.Input != nil {
				if _, err := op.Input.Resolve(nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestLoadLongReason: a resolver's error is cut short in the reason.
func TestLoadLongReason(t *testing.T) {
	doc := load(t, "openapi: 3.1.0\nx:\n  i: &i {type: integer}\npaths:\n  /x:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema: {type: object, properties: {a: {default: [s, s, s], items: {anyOf: ["+
		strings.Repeat("*i, ", 100)+"*i]}}}}\n")
	reason := doc.Operation("POST", "/x").NoInput
	const want = "the request body's schema does not resolve: validating /properties/a: validating /properties/a/items: anyOf: did not validate against any of [<anonymous schema> "
	if !strings.HasPrefix(reason, want) || !strings.HasSuffix(reason, "...") || len(reason) > len("the request body's schema does not resolve: ")+maxReason+3 {
		t.Errorf("NoInput (%d bytes): %.300s", len(reason), reason)
	}
}
