package typeschema

import (
	"encoding"
	"encoding/json"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Decoded returns the schema of every JSON value that encoding/json
// decodes into a t without an error, as far as a schema can say: For's
// properties and types, but no member required (a missing member leaves
// its field as it was), null admitted at every depth below the root (it
// leaves a value as it was too), and members For does not name admitted
// unless strict (json.Decoder.DisallowUnknownFields, which refuses them
// at any depth). A type with its own UnmarshalJSON admits any value, one
// with UnmarshalText any string, and a field tagged ",string" a string.
//
// It is the input schema of a handler that decodes its body itself: a
// schema that refused what the handler takes would change what the route
// accepts. Its errors are For's (a cycle in the types, a channel).
func Decoded(t reflect.Type, strict bool) (*jsonschema.Schema, error) {
	opts := &jsonschema.ForOptions{TypeSchemas: codecs(t, true)}
	s, err := jsonschema.ForType(t, opts)
	if err != nil {
		return nil, err
	}
	if err := loosen(t, s, loose{decoded: true, strict: strict, root: true, opts: opts}); err != nil {
		return nil, err
	}
	return s, nil
}

// Encoded returns the schema of the JSON encoding/json writes for a t:
// For's properties and types, with null where encoding/json can write it
// (a nil pointer, slice or map not omitted), no member required (a nil
// embedded pointer drops its promoted fields) and other members admitted.
// A type with its own MarshalJSON may be any value, one with MarshalText a
// string. A pointer at the root is followed: it is the schema of what a
// handler that encodes a non-nil *T writes.
func Encoded(t reflect.Type) (*jsonschema.Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	opts := &jsonschema.ForOptions{TypeSchemas: codecs(t, false)}
	s, err := jsonschema.ForType(t, opts)
	if err != nil {
		return nil, err
	}
	if err := loosen(t, s, loose{root: true, opts: opts}); err != nil {
		return nil, err
	}
	return s, nil
}

// The types For already describes by what they marshal to.
var known = map[reflect.Type]bool{
	reflect.TypeFor[time.Time](): true, reflect.TypeFor[big.Int](): true,
	reflect.TypeFor[big.Rat](): true, reflect.TypeFor[big.Float](): true,
}

var (
	unmarshaler     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	marshaler       = reflect.TypeFor[json.Marshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
)

// codecs returns, for each named type reachable from t that encodes or
// decodes itself (decoded says which way), the schema of what it takes or
// writes: any value for JSON, a string for text. Embedded fields are left
// to For, which takes no override for them; a struct that embeds such a
// type has its method too, and so is overridden itself.
func codecs(t reflect.Type, decoded bool) map[reflect.Type]*jsonschema.Schema {
	out := map[reflect.Type]*jsonschema.Schema{}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, embedded bool)
	walk = func(t reflect.Type, embedded bool) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if seen[t] {
			return
		}
		seen[t] = true
		if t.Name() != "" && !known[t] && !embedded {
			p := reflect.PointerTo(t)
			jsonSelf, textSelf := p.Implements(marshaler), p.Implements(textMarshaler)
			if decoded {
				jsonSelf, textSelf = p.Implements(unmarshaler), p.Implements(textUnmarshaler)
			}
			switch {
			case jsonSelf:
				out[t] = &jsonschema.Schema{}
				return
			case textSelf:
				out[t] = &jsonschema.Schema{Type: "string"}
				return
			}
		}
		switch t.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map:
			walk(t.Elem(), false)
		case reflect.Struct:
			for _, f := range reflect.VisibleFields(t) {
				if f.IsExported() || f.Anonymous {
					walk(f.Type, f.Anonymous) // For takes no override for an embedded field, tagged or not
				}
			}
		}
	}
	walk(t, false)
	return out
}

// loose is how loosen loosens.
type loose struct {
	decoded bool // a decoded value's schema, else an encoded one's
	strict  bool // decoded with DisallowUnknownFields
	root    bool // the schema is the root's: not made nullable
	omitted bool // an encoded struct field tagged omitempty or omitzero
	opts    *jsonschema.ForOptions
}

// loosen walks t and its schema s together (s as For made it for t) and
// loosens s as Decoded and Encoded say.
func loosen(t reflect.Type, s *jsonschema.Schema, o loose) error {
	if s == nil {
		return nil
	}
	pointer := false
	for t.Kind() == reflect.Pointer {
		t, pointer = t.Elem(), true
	}
	switch {
	case o.decoded && !o.root:
		nullable(s)
	case !o.decoded && !o.root && !pointer && !o.omitted && t.Kind() == reflect.Map:
		nullable(s) // a nil map is written as null
	}
	child := loose{decoded: o.decoded, strict: o.strict, opts: o.opts}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return loosen(t.Elem(), s.Items, child)
	case reflect.Map:
		return loosen(t.Elem(), s.AdditionalProperties, child)
	case reflect.Struct:
		if s.Properties == nil && len(s.Type+strings.Join(s.Types, "")) > 0 && !hasType(s, "object") {
			return nil // overridden (time.Time, a codec)
		}
		s.Required = nil
		if !o.strict {
			s.AdditionalProperties = nil
		}
		if err := nameEmbedded(t, s, o.opts); err != nil {
			return err
		}
		fields := map[string]reflect.StructField{}
		for _, f := range reflect.VisibleFields(t) {
			if name, ok := jsonName(f); ok {
				fields[name] = f
			} else if name, ok := taggedEmbedded(f); ok {
				fields[name] = f
			}
		}
		for name, f := range fields {
			p := s.Properties[name]
			if p == nil {
				continue
			}
			if quoted(f) {
				s.Properties[name] = quotedSchema(p, o.decoded)
				continue
			}
			if err := loosen(f.Type, p, loose{decoded: o.decoded, strict: o.strict, omitted: omitsEmpty(f), opts: o.opts}); err != nil {
				return err
			}
		}
	}
	return nil
}

// taggedEmbedded returns the JSON name of an embedded struct field that a
// json tag names: encoding/json reads and writes it as a member of that
// name, not as its promoted fields.
func taggedEmbedded(f reflect.StructField) (string, bool) {
	if !f.Anonymous {
		return "", false
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" || name == "-" {
		return "", false
	}
	return name, true
}

// nameEmbedded corrects For's schema of struct t for its tagged embedded
// fields, which For flattens: each becomes the member its tag names, and
// the fields it promotes leave the object, unless a field of the same
// name comes another way.
func nameEmbedded(t reflect.Type, s *jsonschema.Schema, opts *jsonschema.ForOptions) error {
	visible := reflect.VisibleFields(t)
	for _, e := range visible {
		name, ok := taggedEmbedded(e)
		if !ok || len(e.Index) != 1 && !untaggedPath(t, e.Index) {
			continue
		}
		through := func(f reflect.StructField) bool {
			return len(f.Index) > len(e.Index) && slices.Equal(f.Index[:len(e.Index)], e.Index)
		}
		for _, f := range visible {
			n, ok := jsonName(f)
			if !ok || !through(f) {
				continue
			}
			if !slices.ContainsFunc(visible, func(g reflect.StructField) bool { m, ok := jsonName(g); return ok && m == n && !through(g) }) {
				delete(s.Properties, n)
				s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(p string) bool { return p == n })
			}
		}
		sub, err := jsonschema.ForType(e.Type, opts)
		if err != nil {
			return err
		}
		if s.Properties == nil {
			s.Properties = map[string]*jsonschema.Schema{}
		}
		s.Properties[name] = sub
		s.PropertyOrder = append(s.PropertyOrder, name)
	}
	return nil
}

// untaggedPath reports whether the embedded fields that lead to the field
// at index, but the last, are untagged: its tag then names a member of t
// itself.
func untaggedPath(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		f := t.Field(i)
		if _, tagged := taggedEmbedded(f); tagged {
			return false
		}
		t = f.Type
	}
	return true
}

// nullable admits null besides what s admits.
func nullable(s *jsonschema.Schema) {
	switch {
	case s.Type != "":
		s.Types, s.Type = []string{"null", s.Type}, ""
	case len(s.Types) > 0 && !hasType(s, "null"):
		s.Types = append([]string{"null"}, s.Types...)
	}
}

func hasType(s *jsonschema.Schema, typ string) bool {
	if s.Type == typ {
		return true
	}
	for _, t := range s.Types {
		if t == typ {
			return true
		}
	}
	return false
}

// quoted reports whether field f is tagged ",string": encoding/json then
// reads and writes its number or boolean as a JSON string.
func quoted(f reflect.StructField) bool {
	_, options, _ := strings.Cut(f.Tag.Get("json"), ",")
	for o := range strings.SplitSeq(options, ",") {
		if o == "string" {
			switch t := f.Type; t.Kind() {
			case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
				reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
				reflect.Float32, reflect.Float64, reflect.String:
				return true
			}
		}
	}
	return false
}

// quotedSchema is the schema of a ",string" field: a string, keeping the
// description; a decoded one may be null too.
func quotedSchema(p *jsonschema.Schema, decoded bool) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string", Description: p.Description}
	if decoded {
		nullable(s)
	}
	return s
}
