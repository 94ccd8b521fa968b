package harvest

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzObjectForms: whatever schema JSON a config or a document holds,
// objectForms writes valid JSON that holds no boolean where a subschema
// goes (but false that closes members), and writes its own output as it
// is.
func FuzzObjectForms(f *testing.F) {
	for _, seed := range []string{
		`{"type":"object","properties":{"data":true,"never":false}}`,
		`{"type":"object","additionalProperties":false,"items":[true,{"not":true}]}`,
		`{"anyOf":[true,{"$defs":{"x":false}}],"dependencies":{"a":["b"],"c":true},"enum":[true,false],"default":true}`,
		`{"properties":{"a":{"items":{"additionalProperties":true}}},"const":{"properties":true}}`,
		`true`, `false`, `[]`, `{}`, `{"prefixItems":[false],"unevaluatedItems":false}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var compact bytes.Buffer
		json.Compact(&compact, data)
		out := objectForms(compact.Bytes(), nil)
		if !json.Valid(out) {
			t.Fatalf("objectForms(%s) = %s, not JSON", compact.Bytes(), out)
		}
		if again := objectForms(out, nil); !bytes.Equal(again, out) {
			t.Fatalf("objectForms is not idempotent:\n%s\n%s", out, again)
		}
		var v any
		json.Unmarshal(out, &v)
		if path, ok := booleanSchema(v, "$"); ok {
			t.Fatalf("objectForms(%s) = %s, with a boolean schema at %s", compact.Bytes(), out, path)
		}
	})
}

// booleanSchema returns the path of a boolean where a subschema goes in
// the schema v, but false that closes members.
func booleanSchema(v any, path string) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	check := func(sub any, at string, closer bool) (string, bool) {
		switch b := sub.(type) {
		case bool:
			if closer && !b {
				return "", false
			}
			return at, true
		case map[string]any:
			return booleanSchema(b, at)
		}
		return "", false
	}
	for key, val := range m {
		at := path + "." + key
		switch schemaKeywords[key] {
		case oneSchema:
			if list, ok := val.([]any); ok {
				for _, sub := range list {
					if p, ok := check(sub, at+"[]", false); ok {
						return p, true
					}
				}
			} else if p, ok := check(val, at, closers[key]); ok {
				return p, true
			}
		case schemaList:
			list, _ := val.([]any)
			for _, sub := range list {
				if p, ok := check(sub, at+"[]", false); ok {
					return p, true
				}
			}
		case schemaByName, schemaOrNames:
			members, _ := val.(map[string]any)
			for name, sub := range members {
				if _, isList := sub.([]any); isList && schemaKeywords[key] == schemaOrNames {
					continue
				}
				if p, ok := check(sub, at+"."+name, false); ok {
					return p, true
				}
			}
		}
	}
	return "", false
}
