package argcheck

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// fuzzSchemas are the schemas FuzzCheck validates against: a typed input's,
// as jsonschema-go derives it, and hand-written ones that use every keyword
// but format (which neither library checks) and multipleOf with a divisor
// that is not a power of two (see TestMultipleOfDecimal).
var fuzzSchemas = []string{
	typedSchema(),
	`{"type":"object","properties":{
		"n": {"type":"integer","minimum":1,"maximum":20},
		"price": {"type":"number","exclusiveMinimum":0,"exclusiveMaximum":100.5,"multipleOf":0.5},
		"note": {"type":["string","null"],"minLength":2,"maxLength":5,"pattern":"^[a-z]"},
		"tags": {"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3,"uniqueItems":true},
		"pair": {"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false},
		"some": {"type":"array","contains":{"const":1},"minContains":1,"maxContains":2}
	},"required":["n"],"additionalProperties":false}`,
	`{"type":"object","$defs":{"addr":{"type":"object","properties":{"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"required":["zip"]},
		"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}},"v":{"enum":[1,"a",null,[1],{"k":true}]}}}},
	"properties":{
		"home": {"$ref":"#/$defs/addr"},
		"tree": {"$ref":"#/$defs/node"},
		"id": {"anyOf":[{"type":"string","minLength":3},{"type":"integer","minimum":0},{"type":"null"}]},
		"kind": {"oneOf":[{"const":"card"},{"const":"cash"},{"type":"number"}]},
		"nope": {"not":{"type":"string"}},
		"all": {"allOf":[{"type":"object","required":["a"]},{"properties":{"a":{"type":"boolean"}}}]},
		"map": {"type":"object","propertyNames":{"pattern":"^[a-z]+$"},"additionalProperties":{"type":"integer"},"minProperties":1,"maxProperties":3},
		"pat": {"type":"object","patternProperties":{"^x":{"type":"string"}},"additionalProperties":false},
		"never": false
	},
	"dependentRequired":{"card":["expiry"]},
	"if":{"properties":{"kind":{"const":"card"}},"required":["kind"]},"then":{"required":["card"]},"else":{"not":{"required":["card"]}}}`,
}

func typedSchema() string {
	type in struct {
		To      []string `json:"to"`
		Subject string   `json:"subject"`
		Count   int      `json:"count,omitempty"`
		Ratio   float64  `json:"ratio,omitempty"`
		ReplyTo *string  `json:"reply_to,omitempty"`
		Sender  struct {
			Name string `json:"name"`
		} `json:"sender"`
		Extra map[string]int `json:"extra,omitempty"`
	}
	s, err := jsonschema.For[in](nil)
	if err != nil {
		panic(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// FuzzCheck: for any argument bytes that decode, Check does not panic,
// agrees with jsonschema-go on whether they are valid, and a failure says
// what is wrong.
func FuzzCheck(f *testing.F) {
	type pair struct {
		mine   *Schema
		theirs *jsonschema.Resolved
	}
	var schemas []pair
	for _, js := range fuzzSchemas {
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(js), &s); err != nil {
			f.Fatal(err)
		}
		mine, err := Compile(&s)
		if err != nil {
			f.Fatal(err)
		}
		theirs, err := s.Resolve(nil)
		if err != nil {
			f.Fatal(err)
		}
		schemas = append(schemas, pair{mine, theirs})
	}
	for _, seed := range []string{`{}`, `{"n":1}`, `{"to":["a"],"subject":"s","sender":{"name":"x"}}`, `{"id":"ab"}`, `[1]`, `null`} {
		for i := range schemas {
			f.Add(uint8(i), []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		var v any
		if json.Unmarshal(args, &v) != nil {
			return
		}
		p := schemas[int(which)%len(schemas)]
		failure := p.mine.Check(v)
		theirs := p.theirs.Validate(v)
		if (failure == nil) != (theirs == nil) {
			t.Fatalf("schema %d, arguments %s: argcheck says %+v, jsonschema-go says %v", int(which)%len(schemas), args, failure, theirs)
		}
		if failure == nil {
			return
		}
		if failure.Detail == "" || strings.Contains(failure.Detail, "%!") {
			t.Fatalf("arguments %s: detail %q", args, failure.Detail)
		}
		for _, field := range failure.Fields {
			if field == "" {
				t.Fatalf("arguments %s: an empty field in %q", args, failure.Fields)
			}
		}
	})
}

// TestMultipleOfDecimal: multipleOf is exact for decimals, where
// jsonschema-go divides floats: 0.3 is a multiple of 0.1.
func TestMultipleOfDecimal(t *testing.T) {
	schema := `{"properties":{"n":{"multipleOf":0.1}}}`
	cs := compileJSON(t, schema)
	if f := cs.Check(decode(t, `{"n":0.3}`)); f != nil {
		t.Errorf("0.3: %+v", f)
	}
	var s jsonschema.Schema
	json.Unmarshal([]byte(schema), &s)
	rs, _ := s.Resolve(nil)
	if err := rs.Validate(decode(t, `{"n":0.3}`)); err != nil {
		t.Logf("jsonschema-go refuses it: %v", err)
	}
}
