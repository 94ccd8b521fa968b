package autoexpose

import (
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpdoor/mcpdoor/internal/typeschema"
)

// SchemaFor returns the JSON schema of the arguments a T is decoded from,
// as the MCP SDK derives it (json and jsonschema struct tags), except that a
// slice is an "array" and never null unless it is behind a pointer: a
// required []string field requires an array, and *[]string also admits
// null. As an output schema it is too strict for a value holding a nil
// slice, which encoding/json writes as null. It panics if T has no schema
// (a channel, a func), a setup mistake.
func SchemaFor[T any]() *jsonschema.Schema {
	s, err := typeschema.Input[T]()
	if err != nil {
		panic(fmt.Sprintf("mcpdoor: SchemaFor[%s]: %v", reflect.TypeFor[T](), err))
	}
	return s
}
