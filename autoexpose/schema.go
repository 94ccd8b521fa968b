package autoexpose

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpdoor/mcpdoor/internal/argcheck"
)

// Where a tool's schema came from, as the startup report says.
const (
	SourceDeclared   = "declared"
	SourceTyped      = "typed"
	SourceOpenAPI    = "openapi"
	SourcePermissive = "permissive"
)

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

// ArgumentError is the answer to arguments that fail a tool's input schema:
// an HTTP 422 whose JSON body names the fields, the same over both doors.
// When several things are wrong, it names every missing required field
// first; failing that, every unknown field; then a value of the wrong type;
// then any other broken keyword, the first field in sorted order.
type ArgumentError struct {
	// Fields are the offending fields, as dotted paths ("city",
	// "address.zip", "tags[]" for an item of tags, "scores.ada" for a key of
	// the map scores); empty when the arguments as a whole are wrong.
	Fields []string `json:"fields"`
	// Detail says what is wrong, in words a model can act on.
	Detail string `json:"detail"`
}

func (e *ArgumentError) Error() string { return "invalid arguments: " + e.Detail }

// body is the JSON body of the 422 response.
func (e *ArgumentError) body() []byte {
	b, _ := json.Marshal(struct {
		Error  string   `json:"error"`
		Fields []string `json:"fields"`
		Detail string   `json:"detail"`
	}{"invalid arguments", e.fieldsOrEmpty(), e.Detail})
	return b
}

func (e *ArgumentError) fieldsOrEmpty() []string {
	if e.Fields == nil {
		return []string{}
	}
	return e.Fields
}

// checkArgs checks a call's arguments against the tool's input schema. A
// typed handler called directly checks them itself, against the same schema
// and with the same 422, so they are checked here only when they are not
// JSON at all (which MCP cannot carry, but a caller of Door.call could).
func (t *tool) checkArgs(args []byte) *ArgumentError {
	if t.selfChecking && json.Valid(args) {
		return nil
	}
	return validateArgs(t.resolved, args)
}

// validateArgs checks JSON arguments against a compiled input schema.
func validateArgs(cs *argcheck.Schema, args []byte) *ArgumentError {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return notJSON(err)
	}
	return checkValue(cs, v)
}

// notJSON is the ArgumentError of arguments that do not decode.
func notJSON(err error) *ArgumentError {
	return &ArgumentError{Detail: "arguments are not valid JSON: " + err.Error()}
}

// checkValue checks decoded JSON arguments against a compiled input schema.
func checkValue(cs *argcheck.Schema, v any) *ArgumentError {
	if f := cs.Check(v); f != nil {
		return &ArgumentError{Fields: f.Fields, Detail: f.Detail}
	}
	return nil
}
