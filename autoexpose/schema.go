package autoexpose

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpdoor/mcpdoor/internal/argcheck"
	"github.com/mcpdoor/mcpdoor/internal/typeschema"
)

// Where a tool's input schema came from, as the startup report's Schema
// column shows it (detector.Row.Schema).
const (
	sourceDeclared   = "declared"   // Config.Declared or Config.CatchAll
	sourceTyped      = "typed"      // the route's typed handler (Handler)
	sourceOpenAPI    = "openapi"    // the route's operation in Config.OpenAPI
	sourceGenerated  = "generated"  // the facts mcpdoor gen wrote for the route's handler
	sourcePermissive = "permissive" // nothing: any JSON object, which the route checks
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

// permissiveSchema accepts any JSON object: the input schema of a tool whose
// handler carries none and for which none is declared.
func permissiveSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object"}
}

// A resolver compiles the input schemas of one Install, each distinct
// schema once: compiling costs hundreds of microseconds, and a server with a
// thousand tools shares few schemas among them (the permissive one above
// all). Schemas are the same when their JSON is.
type resolver struct {
	byPointer map[*jsonschema.Schema]*argcheck.Schema
	byJSON    map[string]*argcheck.Schema
}

func newResolver() *resolver {
	return &resolver{byPointer: make(map[*jsonschema.Schema]*argcheck.Schema), byJSON: make(map[string]*argcheck.Schema)}
}

// know records a schema already compiled (a typed handler's).
func (r *resolver) know(s *jsonschema.Schema, cs *argcheck.Schema) {
	if s != nil && cs != nil {
		r.byPointer[s] = cs
	}
}

// of returns s compiled.
func (r *resolver) of(s *jsonschema.Schema) (*argcheck.Schema, error) {
	if cs, ok := r.byPointer[s]; ok {
		return cs, nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	cs, ok := r.byJSON[string(b)]
	if !ok {
		if cs, err = argcheck.Compile(s); err != nil {
			return nil, err
		}
		r.byJSON[string(b)] = cs
	}
	r.byPointer[s] = cs
	return cs, nil
}
