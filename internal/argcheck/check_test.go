package argcheck

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// compileJSON compiles a schema written as JSON.
func compileJSON(t testing.TB, schema string) *Schema {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		t.Fatalf("schema %s: %v", schema, err)
	}
	cs, err := Compile(&s)
	if err != nil {
		t.Fatalf("Compile(%s): %v", schema, err)
	}
	return cs
}

func decode(t testing.TB, args string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		t.Fatalf("arguments %s: %v", args, err)
	}
	return v
}

// TestCheck: each keyword a schema can break is reported with the fields
// that break it and a detail built from the keyword's values.
func TestCheck(t *testing.T) {
	cases := []struct {
		name, schema, args string
		fields             []string
		detail             string
	}{
		// What a tool's arguments most often get wrong.
		{"required", `{"required":["a","b"]}`, `{}`,
			[]string{"a", "b"}, "missing required field a, b"},
		{"required at every depth at once", `{"required":["a"],"properties":{"o":{"type":"object","required":["x"]}}}`, `{"o":{}}`,
			[]string{"a", "o.x"}, "missing required field a, o.x"},
		{"required in an item", `{"properties":{"people":{"type":"array","items":{"required":["name"]}}}}`, `{"people":[{"name":"a"},{}]}`,
			[]string{"people[].name"}, "missing required field people[].name"},
		{"dependentRequired", `{"dependentRequired":{"start":["end"]}}`, `{"start":1}`,
			[]string{"end"}, "missing required field end (required with start)"},
		{"unknown fields, sorted", `{"properties":{"a":{}},"additionalProperties":false}`, `{"z":1,"a":1,"b":2}`,
			[]string{"b", "z"}, "unknown field b, z"},
		{"an unknown field with no name", `{"properties":{},"additionalProperties":false}`, `{"":1}`,
			[]string{`""`}, `unknown field ""`},
		{"unknown nested field", `{"properties":{"o":{"properties":{},"additionalProperties":false}}}`, `{"o":{"q":1}}`,
			[]string{"o.q"}, "unknown field o.q"},
		{"type of the arguments", `{"type":"object"}`, `[1]`,
			nil, "arguments: want object, got array"},
		{"type, a whole number", `{"properties":{"s":{"type":"string"}}}`, `{"s":5}`,
			[]string{"s"}, "s: want string, got integer"},
		{"type, a fraction", `{"properties":{"n":{"type":"integer"}}}`, `{"n":1.5}`,
			[]string{"n"}, "n: want integer, got number"},
		{"type list, null last", `{"properties":{"n":{"type":["null","integer","string"]}}}`, `{"n":true}`,
			[]string{"n"}, "n: want integer or string or null, got boolean"},
		{"type of an item", `{"properties":{"tags":{"type":"array","items":{"type":"string"}}}}`, `{"tags":["a",{}]}`,
			[]string{"tags[]"}, "tags[]: want string, got object"},
		{"type of a map's value", `{"properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}}}}`, `{"m":{"a":null}}`,
			[]string{"m.a"}, "m.a: want integer, got null"},
		{"a field named 0", `{"properties":{"m":{"properties":{"0":{"type":"string"}}}}}`, `{"m":{"0":[]}}`,
			[]string{"m.0"}, "m.0: want string, got array"},

		// Values.
		{"enum", `{"properties":{"color":{"enum":["red","green"]}}}`, `{"color":"blue"}`,
			[]string{"color"}, `color: want one of "red", "green", got "blue"`},
		{"enum of numbers and null", `{"properties":{"n":{"enum":[1,2.5,null]}}}`, `{"n":3}`,
			[]string{"n"}, `n: want one of 1, 2.5, null, got 3`},
		{"const", `{"properties":{"v":{"const":{"a":[1]}}}}`, `{"v":{"a":[2]}}`,
			[]string{"v"}, `v: want {"a":[1]}, got {"a":[2]}`},
		{"minimum", `{"properties":{"n":{"minimum":1}}}`, `{"n":0}`,
			[]string{"n"}, "n: 0 is less than the minimum, 1"},
		{"maximum, large", `{"properties":{"n":{"maximum":1e15}}}`, `{"n":1e16}`,
			[]string{"n"}, "n: 10000000000000000 is greater than the maximum, 1000000000000000"},
		{"exclusiveMinimum", `{"properties":{"n":{"exclusiveMinimum":-0.5}}}`, `{"n":-0.5}`,
			[]string{"n"}, "n: -0.5 is not greater than -0.5"},
		{"exclusiveMaximum", `{"properties":{"n":{"exclusiveMaximum":2}}}`, `{"n":3}`,
			[]string{"n"}, "n: 3 is not less than 2"},
		{"multipleOf", `{"properties":{"n":{"multipleOf":0.1}}}`, `{"n":0.25}`,
			[]string{"n"}, "n: 0.25 is not a multiple of 0.1"},
		{"minLength", `{"properties":{"s":{"minLength":3}}}`, `{"s":"é"}`,
			[]string{"s"}, "s: 1 character, fewer than the minimum, 3"},
		{"maxLength", `{"properties":{"s":{"maxLength":2}}}`, `{"s":"abc"}`,
			[]string{"s"}, "s: 3 characters, more than the maximum, 2"},
		{"pattern", `{"properties":{"isbn":{"pattern":"^97[89][0-9]{10}$"}}}`, `{"isbn":"123"}`,
			[]string{"isbn"}, `isbn: pattern: "123" does not match regular expression "^97[89][0-9]{10}$"`},
		{"minItems", `{"properties":{"l":{"minItems":1}}}`, `{"l":[]}`,
			[]string{"l"}, "l: 0 items, fewer than the minimum, 1"},
		{"maxItems", `{"properties":{"l":{"maxItems":1}}}`, `{"l":[1,2]}`,
			[]string{"l"}, "l: 2 items, more than the maximum, 1"},
		{"uniqueItems", `{"properties":{"l":{"uniqueItems":true}}}`, `{"l":[1,2,1.0]}`,
			[]string{"l"}, "l: items 0 and 2 are equal; want no duplicates (counting from 0)"},
		{"contains", `{"properties":{"l":{"contains":{"type":"string"}}}}`, `{"l":[1]}`,
			[]string{"l"}, "l: no item matches the schema under contains"},
		{"minContains", `{"properties":{"l":{"contains":{"type":"string"},"minContains":2}}}`, `{"l":["a",1]}`,
			[]string{"l"}, "l: 1 item matches the schema under contains, fewer than the minimum, 2"},
		{"maxContains", `{"properties":{"l":{"contains":{"type":"string"},"maxContains":1}}}`, `{"l":["a","b"]}`,
			[]string{"l"}, "l: 2 items match the schema under contains, more than the maximum, 1"},
		{"minProperties", `{"properties":{"o":{"minProperties":1}}}`, `{"o":{}}`,
			[]string{"o"}, "o: 0 fields, fewer than the minimum, 1"},
		{"maxProperties of the arguments", `{"maxProperties":1}`, `{"a":1,"b":2}`,
			nil, "arguments: 2 fields, more than the maximum, 1"},
		{"a field the schema forbids", `{"properties":{"x":false}}`, `{"x":1}`,
			[]string{"x"}, "x: not allowed"},
		{"items after prefixItems", `{"properties":{"p":{"prefixItems":[{"type":"number"}],"items":false}}}`, `{"p":[1,2]}`,
			[]string{"p[]"}, "p[]: not allowed"},
		{"not", `{"properties":{"s":{"not":{"const":"root"}}}}`, `{"s":"root"}`,
			[]string{"s"}, "s: must not match the schema under not"},
		{"propertyNames", `{"properties":{"m":{"propertyNames":{"pattern":"^[a-z]+$"}}}}`, `{"m":{"ok":1,"Bad":2}}`,
			[]string{"m.Bad"}, `invalid field name m.Bad: pattern: "Bad" does not match regular expression "^[a-z]+$"`},
		{"formats are not checked", `{"properties":{"e":{"format":"email"},"d":{"type":"string","format":"date-time"}},"required":["x"]}`, `{"e":"not an email","d":"tomorrow"}`,
			[]string{"x"}, "missing required field x"},

		// Composition.
		{"$ref keeps the path", `{"properties":{"home":{"$ref":"#/$defs/address"}},"$defs":{"address":{"properties":{"zip":{"type":"string"}}}}}`, `{"home":{"zip":1}}`,
			[]string{"home.zip"}, "home.zip: want string, got integer"},
		{"recursive $ref", `{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}},"n":{"type":"integer"}}}}}`, `{"kids":[{"kids":[{"n":"x"}]}]}`,
			[]string{"kids[].kids[].n"}, "kids[].kids[].n: want integer, got string"},
		{"allOf", `{"allOf":[{"required":["a"]},{"required":["b"]}]}`, `{}`,
			[]string{"a", "b"}, "missing required field a, b"},
		{"anyOf of types", `{"properties":{"v":{"anyOf":[{"type":"string"},{"type":"null"},{"type":"integer"}]}}}`, `{"v":[]}`,
			[]string{"v"}, "v: want integer or string or null, got array"},
		{"anyOf, the alternative of the right type", `{"properties":{"v":{"anyOf":[{"type":"string","minLength":3},{"type":"null"}]}}}`, `{"v":"ab"}`,
			[]string{"v"}, "v: 2 characters, fewer than the minimum, 3"},
		{"anyOf, two alternatives of the right type", `{"properties":{"v":{"anyOf":[{"type":"string","minLength":3},{"type":"string","pattern":"^a"},{"type":"null"}]}}}`, `{"v":"bb"}`,
			[]string{"v"}, `v: matches none of the alternatives of anyOf: (1) v: 2 characters, fewer than the minimum, 3; (2) v: pattern: "bb" does not match regular expression "^a"`},
		{"anyOf of objects", `{"anyOf":[{"required":["id"]},{"required":["name"]}]}`, `{}`,
			nil, "arguments: matches none of the alternatives of anyOf: (1) missing required field id; (2) missing required field name"},
		{"oneOf, none", `{"properties":{"v":{"oneOf":[{"type":"string"},{"type":"boolean"}]}}}`, `{"v":1}`,
			[]string{"v"}, "v: want boolean or string, got integer"}, // the validator's order of types, not the schema's
		{"oneOf, two", `{"properties":{"v":{"oneOf":[{"type":"number"},{"minimum":0}]}}}`, `{"v":1}`,
			[]string{"v"}, "v: matches alternatives 1 and 2 of oneOf; want exactly one"},
		{"if then", `{"if":{"properties":{"kind":{"const":"card"}}},"then":{"required":["number"]}}`, `{"kind":"card"}`,
			[]string{"number"}, "missing required field number"},

		// Which of several problems is reported.
		{"missing before unknown before type before the rest", `{"required":["r"],"properties":{"a":{"minimum":5},"t":{"type":"string"}},"additionalProperties":false}`, `{"a":1,"t":1,"u":1}`,
			[]string{"r"}, "missing required field r"},
		{"unknown before type", `{"properties":{"a":{"minimum":5},"t":{"type":"string"}},"additionalProperties":false}`, `{"a":1,"t":1,"u":1}`,
			[]string{"u"}, "unknown field u"},
		{"type before the rest", `{"properties":{"a":{"minimum":5},"t":{"type":"string"}}}`, `{"a":1,"t":1}`,
			[]string{"t"}, "t: want string, got integer"},
		{"among equals, the first field", `{"properties":{"b":{"type":"string"},"a":{"type":"string"},"c":{"type":"string"}}}`, `{"c":1,"b":1,"a":1}`,
			[]string{"a"}, "a: want string, got integer"},
		{"at one field, the first detail", `{"properties":{"n":{"minimum":5,"multipleOf":2}}}`, `{"n":3}`,
			[]string{"n"}, "n: 3 is less than the minimum, 5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := compileJSON(t, c.schema)
			f := cs.Check(decode(t, c.args))
			if f == nil {
				t.Fatalf("%s passed %s", c.schema, c.args)
			}
			if !slices.Equal(f.Fields, c.fields) || f.Detail != c.detail {
				t.Errorf("got  %q %s\nwant %q %s", f.Fields, f.Detail, c.fields, c.detail)
			}
		})
	}
}

// TestCheckValid: valid arguments pass, formats included.
func TestCheckValid(t *testing.T) {
	cs := compileJSON(t, `{"type":"object","properties":{"e":{"type":"string","format":"email"},"n":{"type":["integer","null"],"minimum":1},"tags":{"type":"array","items":{"type":"string"}}},"required":["e"],"additionalProperties":false}`)
	for _, args := range []string{`{"e":"x"}`, `{"e":"a@b.c","n":null}`, `{"e":"","n":3,"tags":[]}`, `{"e":"","n":3.0}`} {
		if f := cs.Check(decode(t, args)); f != nil {
			t.Errorf("%s: %+v", args, f)
		}
	}
}

// TestCheckSameEveryTime: the failure reported for arguments with many
// problems does not depend on map order.
func TestCheckSameEveryTime(t *testing.T) {
	cs := compileJSON(t, `{"properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"minimum":3},"d":{"minimum":3}},"patternProperties":{"^[a-d]$":{"type":"integer"}},"additionalProperties":false}`)
	v := decode(t, `{"d":1,"c":1,"b":1.5,"a":1.5,"x":1,"y":2,"z":3}`)
	first := cs.Check(v)
	for range 50 {
		if f := cs.Check(v); !slices.Equal(f.Fields, first.Fields) || f.Detail != first.Detail {
			t.Fatalf("got %+v, then %+v", first, f)
		}
	}
	if want := "unknown field x, y, z"; first.Detail != want {
		t.Errorf("got %s, want %s", first.Detail, want)
	}
}

// TestCompileErrors: a schema that cannot serve is refused when compiled,
// with the reason.
func TestCompileErrors(t *testing.T) {
	cases := []struct{ name, schema, want string }{
		{"bad pattern", `{"properties":{"s":{"pattern":"(?!x)"}}}`, "error parsing regexp"},
		{"default breaks its schema", `{"properties":{"n":{"type":"integer","default":"one"}}}`, `a default value breaks its own schema: validating /properties/n: type: one has type "string", want "integer"`},
		{"$ref to nowhere", `{"properties":{"a":{"$ref":"#/$defs/missing"}}}`, "missing"},
		{"$ref to another document", `{"properties":{"a":{"$ref":"https://example.com/a.json"}}}`, "example.com/a.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s jsonschema.Schema
			if err := json.Unmarshal([]byte(c.schema), &s); err != nil {
				t.Fatal(err)
			}
			_, err := Compile(&s)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Compile(%s) = %v, want an error containing %q", c.schema, err, c.want)
			}
		})
	}
}
