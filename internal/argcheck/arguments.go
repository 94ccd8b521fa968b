package argcheck

import (
	"bytes"
	"context"
	"encoding/json"
)

// Validate checks JSON arguments against s: nil when they are valid, else
// what is wrong with them (see Check), or that they do not decode.
func (s *Schema) Validate(args []byte) *Failure {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return NotJSON(err)
	}
	return s.Check(v)
}

// NotJSON is the failure of arguments that do not decode.
func NotJSON(err error) *Failure {
	return &Failure{Detail: "arguments are not valid JSON: " + err.Error()}
}

// Body is the JSON body of a 422 response that refuses arguments for f,
// as a typed handler answers it: {"error": "invalid arguments", "fields":
// [...], "detail": "..."}, fields an empty list when the arguments as a
// whole are wrong.
func (f *Failure) Body() []byte {
	fields := f.Fields
	if fields == nil {
		fields = []string{}
	}
	b, _ := json.Marshal(struct {
		Error  string   `json:"error"`
		Fields []string `json:"fields"`
		Detail string   `json:"detail"`
	}{"invalid arguments", fields, f.Detail})
	return b
}

// checked records, in a dispatched request's context, the arguments the
// door has validated and against which schema, so that a typed handler
// with that schema does not check the same bytes again.
type checked struct {
	schema *Schema
	args   []byte
}

type checkedKey struct{}

// WithChecked returns ctx noting that args were checked against s.
func WithChecked(ctx context.Context, s *Schema, args []byte) context.Context {
	return context.WithValue(ctx, checkedKey{}, &checked{s, args})
}

// AlreadyChecked reports whether body is what ctx notes was checked
// against s (see WithChecked).
func AlreadyChecked(ctx context.Context, s *Schema, body []byte) bool {
	c, _ := ctx.Value(checkedKey{}).(*checked)
	return c != nil && c.schema == s && bytes.Equal(c.args, body)
}
