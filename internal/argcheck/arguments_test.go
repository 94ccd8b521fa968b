package argcheck

import (
	"context"
	"testing"
)

// TestValidateBody: the 422 body of arguments that break the schema, that
// are not JSON, and that do not decode; valid arguments pass.
func TestValidateBody(t *testing.T) {
	s := compileJSON(t, `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`)
	for args, want := range map[string]string{
		`{}`:          `{"error":"invalid arguments","fields":["n"],"detail":"missing required field n"}`,
		`[1]`:         `{"error":"invalid arguments","fields":[],"detail":"arguments: want object, got array"}`,
		`{"n":1`:      `{"error":"invalid arguments","fields":[],"detail":"arguments are not valid JSON: unexpected end of JSON input"}`,
		`{"n":1e999}`: `{"error":"invalid arguments","fields":[],"detail":"arguments are not valid JSON: json: cannot unmarshal number 1e999 into Go value of type float64"}`,
	} {
		f := s.Validate([]byte(args))
		if f == nil {
			t.Errorf("%s passed", args)
			continue
		}
		if got := string(f.Body()); got != want {
			t.Errorf("%s:\ngot  %s\nwant %s", args, got, want)
		}
	}
	if f := s.Validate([]byte(`{"n":3}`)); f != nil {
		t.Errorf("valid arguments: %+v", f)
	}
}

// TestAlreadyChecked: a context notes the arguments checked against one
// schema, and no other arguments or schema.
func TestAlreadyChecked(t *testing.T) {
	s := compileJSON(t, `{"type":"object"}`)
	other := compileJSON(t, `{"type":"object"}`)
	ctx := WithChecked(context.Background(), s, []byte(`{"a":1}`))
	for _, tc := range []struct {
		ctx    context.Context
		schema *Schema
		body   string
		want   bool
	}{
		{ctx, s, `{"a":1}`, true},
		{ctx, s, `{"a":2}`, false},
		{ctx, other, `{"a":1}`, false},
		{context.Background(), s, `{"a":1}`, false},
	} {
		if got := AlreadyChecked(tc.ctx, tc.schema, []byte(tc.body)); got != tc.want {
			t.Errorf("AlreadyChecked(%s) = %v, want %v", tc.body, got, tc.want)
		}
	}
}
