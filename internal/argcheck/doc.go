// Package argcheck validates a tool's JSON arguments against its input
// schema and says what is wrong in terms a caller can act on: the offending
// fields and a sentence.
//
//	s, err := argcheck.Compile(schema) // once, when the tool is set up
//	...
//	var v any
//	_ = json.Unmarshal(args, &v)
//	if f := s.Check(v); f != nil {
//		// f.Fields: ["address.zip"]; f.Detail: "address.zip: want string, got integer"
//	}
//
// Schemas are JSON Schema 2020-12, as github.com/google/jsonschema-go
// builds them: from Go types, declared by hand, or converted from an OpenAPI
// document. Validation is done by github.com/santhosh-tekuri/jsonschema/v6,
// whose errors are typed: a failed keyword's kind, its numbers and names,
// and the failing value's location. The fields and the detail are built from
// those values, never from an error message's text.
//
// Formats ("email", "date-time") are annotations, not checked, as in
// jsonschema-go.
package argcheck
