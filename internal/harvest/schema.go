package harvest

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpdoor/mcpdoor/internal/argcheck"
)

// Where a tool's input schema came from, as the startup report's Schema
// column shows it (detector.Row.Schema).
const (
	SourceDeclared   = "declared"   // Config.Declared or Config.CatchAll
	SourceTyped      = "typed"      // the route's typed handler (Handler)
	SourceOpenAPI    = "openapi"    // the route's operation in Config.OpenAPI
	SourceGenerated  = "generated"  // the facts mcpdoor gen wrote for the route's handler
	SourcePermissive = "permissive" // nothing: any JSON object, which the route checks
)

// permissiveSchema accepts any JSON object: the input schema of a tool whose
// handler carries none and for which none is declared.
func permissiveSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object"}
}

// A Resolver compiles the input schemas of one Install, each distinct
// schema once: compiling costs hundreds of microseconds, and a server with a
// thousand tools shares few schemas among them (the permissive one above
// all). Schemas are the same when their JSON is.
type Resolver struct {
	byPointer map[*jsonschema.Schema]*argcheck.Schema
	byJSON    map[string]*argcheck.Schema
}

func NewResolver() *Resolver {
	return &Resolver{byPointer: make(map[*jsonschema.Schema]*argcheck.Schema), byJSON: make(map[string]*argcheck.Schema)}
}

// know records a schema already compiled (a typed handler's).
func (r *Resolver) Know(s *jsonschema.Schema, cs *argcheck.Schema) {
	if s != nil && cs != nil {
		r.byPointer[s] = cs
	}
}

// of returns s compiled.
func (r *Resolver) Of(s *jsonschema.Schema) (*argcheck.Schema, error) {
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
