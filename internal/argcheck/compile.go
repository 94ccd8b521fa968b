package argcheck

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is an input schema compiled for validation. It is safe for
// concurrent use.
type Schema struct {
	compiled *validator.Schema
}

// location names the schema inside its compiler. A $ref resolves against it
// only when it points into the schema itself ("#/$defs/address"), or into
// a document the schema declares with $id.
const location = "urn:mcpdoor:input-schema"

// Compile prepares s for [Schema.Check]. It fails when s is not a schema
// jsonschema-go can resolve (its error is returned as it is: the schema's
// author reads it), when a default breaks its own schema, or when s refers
// to a document outside itself.
//
// Compiling costs a few hundred microseconds; do it once per schema, not
// per call.
func Compile(s *jsonschema.Schema) (*Schema, error) {
	// jsonschema-go resolves the schema first: it is the library the schema
	// was built with, it checks that defaults validate, and its errors are
	// the ones schema authors already know.
	if _, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
		if _, plain := s.Resolve(nil); plain == nil {
			return nil, fmt.Errorf("a default value breaks its own schema: %w", err)
		}
		return nil, err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	doc, err := validator.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	c := validator.NewCompiler()
	c.DefaultDraft(validator.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(location, doc); err != nil {
		return nil, err
	}
	compiled, err := c.Compile(location)
	if err != nil {
		return nil, fmt.Errorf("compiling the schema for validation: %w", err)
	}
	return &Schema{compiled: compiled}, nil
}

// noLoader refuses to load any document: a tool's schema is one document,
// and setting up a server must read no file and make no request because a
// schema says so.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is outside the schema; a tool's input schema may refer only to itself ($defs)", url)
}
