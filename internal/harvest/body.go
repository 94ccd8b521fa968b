package harvest

import (
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpdoor/mcpdoor/internal/wire"
)

// A tool's arguments are one JSON object, and a route's body need not be
// one: a bulk route decodes a JSON array. When the typed handler's input,
// the OpenAPI request body or the declaration is not an object's schema,
// the tool takes the body as its one argument "body" (beside a REST tool's
// path and query parameters), advertised with the body's own schema, and
// a call sends that argument's value, as the client wrote it, as the
// route's body.

// bodyArgument is the argument that holds a body that is not an object.
const bodyArgument = "body"

// bodyInput returns the input schema whose argument bodyArgument is a body
// of the schema body: required, and the only one. The body's $defs, which
// its $refs name from the root, move to the root.
func bodyInput(body *jsonschema.Schema) *jsonschema.Schema {
	b := *body
	defs := b.Defs
	b.Defs = nil
	if b.Description == "" {
		what := "JSON value"
		if b.Type == "array" || len(b.Types) > 0 && slices.Contains(b.Types, "array") && !slices.Contains(b.Types, "object") {
			what = "JSON array"
		}
		b.Description = "The request body: a " + what + "."
	}
	return &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{bodyArgument: &b},
		Required:             []string{bodyArgument},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		Defs:                 defs,
	}
}

// objectBody reports whether a body's schema is an object's (or allows
// one): such a body is the tool's arguments themselves.
func objectBody(s *jsonschema.Schema) bool {
	switch {
	case s.Type != "":
		return s.Type == "object"
	case s.Types != nil:
		return slices.Contains(s.Types, "object")
	}
	return true
}

// BodyMember returns the value of the member name of the JSON object args,
// as written; nil when it has none.
func BodyMember(args []byte, name string) []byte {
	var value []byte
	wire.Members(args, func(rawKey, v []byte) bool {
		if wire.Unquote(rawKey) == name {
			value = v
		}
		return true
	})

	return value
}
