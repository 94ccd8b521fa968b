package harvest

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpdoor/mcpdoor/internal/wire"
)

// What tools/list and the catalog send of a tool's schemas, whichever
// source gave them (typed, declared, OpenAPI, generated), is in the form
// every client takes. JSON Schema allows a boolean wherever a schema goes
// (true for any value, false for none), and a Go field of type any is
// the schema true; clients' validators do not all allow it: the official
// TypeScript SDK refuses the whole of a tools/list whose tool has a
// property schema that is not an object (a ZodError at ["tools", i,
// "outputSchema", "properties", "data"]), so that its clients see no
// tool at all. So every boolean subschema goes out in its object form,
// true as {} and false as {"not":{}}, at every depth; the schemas mean
// what they meant, and the door checks arguments against them as before.
// One boolean stays: false as the value of additionalProperties (and of
// additionalItems, unevaluatedProperties and unevaluatedItems), which
// every validator takes and a model provider's strict mode asks for in
// those very words.

// Advertised returns the JSON of schema s as a client is sent it; nil for
// nil.
func Advertised(s *jsonschema.Schema) (json.RawMessage, error) {
	if s == nil {
		return nil, nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return objectForms(b, make([]byte, 0, len(b)+16)), nil
}

// How a keyword's value holds subschemas.
const (
	oneSchema     = iota + 1 // the value is a schema ("items": a schema, or an array of them)
	schemaList               // an array of schemas
	schemaByName             // an object whose members are schemas
	schemaOrNames            // "dependencies": each member a schema or a list of names
)

// schemaKeywords are the keywords, of draft 4 to 2020-12, whose values
// hold subschemas. The others hold data ("default", "enum", "const",
// "examples") or names, and are sent as they are.
var schemaKeywords = map[string]int{
	"additionalItems": oneSchema, "additionalProperties": oneSchema, "contains": oneSchema, "contentSchema": oneSchema,
	"else": oneSchema, "if": oneSchema, "items": oneSchema, "not": oneSchema, "propertyNames": oneSchema,
	"then": oneSchema, "unevaluatedItems": oneSchema, "unevaluatedProperties": oneSchema,
	"allOf": schemaList, "anyOf": schemaList, "oneOf": schemaList, "prefixItems": schemaList,
	"$defs": schemaByName, "definitions": schemaByName, "dependentSchemas": schemaByName, "patternProperties": schemaByName,
	"properties":   schemaByName,
	"dependencies": schemaOrNames,
}

// closers are the keywords whose value false, "nothing more", stays as
// it is.
var closers = map[string]bool{"additionalProperties": true, "additionalItems": true, "unevaluatedProperties": true, "unevaluatedItems": true}

// objectForms appends to out the schema s (valid JSON) with its boolean
// subschemas, and itself, in their object forms.
func objectForms(s, out []byte) []byte {
	switch {
	case string(s) == "true":
		return append(out, "{}"...)
	case string(s) == "false":
		return append(out, `{"not":{}}`...)
	case len(s) == 0 || s[0] != '{':
		return append(out, s...) // not a schema: sent as it is
	}
	start := len(out)
	out = append(out, '{')
	n := 0
	ok := wire.Members(s, func(key, value []byte) bool {
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = append(append(out, key...), ':')
		keyword := wire.Unquote(key)
		switch schemaKeywords[keyword] {
		case oneSchema:
			switch {
			case closers[keyword] && string(value) == "false":
				out = append(out, value...)
			case value[0] == '[':
				out = eachItem(value, out)
			default:
				out = objectForms(value, out)
			}
		case schemaList:
			out = eachItem(value, out)
		case schemaByName:
			out = eachMember(value, out, false)
		case schemaOrNames:
			out = eachMember(value, out, true)
		default:
			out = append(out, value...)
		}
		return true
	})

	if !ok { // not reached: the JSON is json.Marshal's
		return append(out[:start], s...)
	}
	return append(out, '}')
}

// eachItem appends the array of schemas list, each in its object forms.
func eachItem(list, out []byte) []byte {
	if list[0] != '[' {
		return append(out, list...)
	}
	start := len(out)
	out = append(out, '[')
	i := wire.SkipSpace(list, 1)
	for n := 0; i < len(list) && list[i] != ']'; n++ {
		end := wire.SkipValue(list, i)
		if end < 0 { // not reached: the JSON is json.Marshal's
			return append(out[:start], list...)
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = objectForms(list[i:end], out)
		i = wire.SkipSpace(list, end)
		if i < len(list) && list[i] == ',' {
			i = wire.SkipSpace(list, i+1)
		}
	}
	return append(out, ']')
}

// eachMember appends the object of schemas m, each member in its object
// forms; with names, a member that is an array (a list of property names)
// is sent as it is.
func eachMember(m, out []byte, names bool) []byte {
	if m[0] != '{' {
		return append(out, m...)
	}
	start := len(out)
	out = append(out, '{')
	n := 0
	ok := wire.Members(m, func(key, value []byte) bool {
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = append(append(out, key...), ':')
		if names && value[0] == '[' {
			out = append(out, value...)
		} else {
			out = objectForms(value, out)
		}
		return true
	})

	if !ok { // not reached: the JSON is json.Marshal's
		return append(out[:start], m...)
	}
	return append(out, '}')
}
