// Package typeschema infers the JSON schema of a Go type the way
// jsonschema-go's For does, and then corrects where a slice may be null, so
// that the schema says what encoding/json actually reads and writes.
//
// jsonschema.For declares every slice as ["null","array"], because
// encoding/json writes a nil slice as null. For arguments that is the wrong
// way round: a client never needs to send null for a []string, and a schema
// that admits null for a required array does not require an array. Input
// therefore declares a slice that is not behind a pointer as "array", at any
// depth. Output keeps null where encoding/json can write it, and declares
// "array" only for a slice field tagged omitempty or omitzero, which
// encoding/json omits rather than writing null. A pointer (*[]string) stays
// nullable in both.
//
// The correction walks the Go type alongside the schema For returned; it
// reads nothing but the type and the json struct tags For itself reads.
package typeschema

import (
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Input returns the schema of the JSON arguments a T is decoded from:
// jsonschema.For's, with every slice that is not behind a pointer declared
// "array", never null. Its errors are For's.
func Input[T any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, err
	}
	correct(reflect.TypeFor[T](), s, true, false)
	return s, nil
}

// Output returns the schema of the JSON encoding/json writes for a T:
// jsonschema.For's, with a slice field tagged omitempty or omitzero (never
// written as null) declared "array". Its errors are For's.
func Output[T any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, err
	}
	correct(reflect.TypeFor[T](), s, false, false)
	return s, nil
}

// nullableArray is the type list jsonschema.For gives a slice.
var nullableArray = []string{"null", "array"}

// correct walks t and its schema s together (s as jsonschema.For made it
// for t) and declares non-null the slices that cannot be null: in input,
// every slice not behind a pointer; in output, such a slice only when it is
// a struct field that encoding/json omits when empty (omitted).
func correct(t reflect.Type, s *jsonschema.Schema, input, omitted bool) {
	if s == nil {
		return
	}
	pointer := false
	for t.Kind() == reflect.Pointer {
		t, pointer = t.Elem(), true
	}
	switch t.Kind() {
	case reflect.Slice:
		if !pointer && (input || omitted) && s.Type == "" && slices.Equal(s.Types, nullableArray) {
			s.Type, s.Types = "array", nil
		}
		correct(t.Elem(), s.Items, input, false)
	case reflect.Array:
		correct(t.Elem(), s.Items, input, false)
	case reflect.Map:
		correct(t.Elem(), s.AdditionalProperties, input, false)
	case reflect.Struct:
		// A JSON name can belong to more than one field; For keeps the
		// schema of the last, so the walk does too.
		fields := map[string]reflect.StructField{}
		for _, f := range reflect.VisibleFields(t) {
			if name, ok := jsonName(f); ok {
				fields[name] = f
			}
		}
		for name, f := range fields {
			correct(f.Type, s.Properties[name], input, omitsEmpty(f))
		}
	}
}

// jsonName returns the property name jsonschema.For gives field f, and false
// for a field it leaves out: an unexported field, an embedded field (its
// promoted fields are visited on their own), or one tagged json:"-".
func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() || f.Anonymous {
		return "", false
	}
	tag, ok := f.Tag.Lookup("json")
	if !ok {
		return f.Name, true
	}
	name, _, hasOptions := strings.Cut(tag, ",")
	switch {
	case name == "-" && !hasOptions:
		return "", false
	case name == "":
		return f.Name, true
	}
	return name, true
}

// omitsEmpty reports whether encoding/json leaves field f out when it is a
// nil slice, instead of writing null.
func omitsEmpty(f reflect.StructField) bool {
	_, options, _ := strings.Cut(f.Tag.Get("json"), ",")
	for o := range strings.SplitSeq(options, ",") {
		if o == "omitempty" || o == "omitzero" {
			return true
		}
	}
	return false
}
