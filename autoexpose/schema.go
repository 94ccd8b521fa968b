package autoexpose

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
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

// resolve prepares s for validation.
func resolve(s *jsonschema.Schema) (*jsonschema.Resolved, error) {
	return s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
}

// A resolver resolves the input schemas of one Install, each schema once:
// resolving costs tens of microseconds, and a server with a thousand tools
// shares few schemas among them (the permissive one above all).
type resolver struct {
	done       map[*jsonschema.Schema]*jsonschema.Resolved
	permissive *jsonschema.Resolved
}

func newResolver() *resolver {
	return &resolver{done: make(map[*jsonschema.Schema]*jsonschema.Resolved)}
}

// know records a schema already resolved (a typed handler's).
func (r *resolver) know(s *jsonschema.Schema, rs *jsonschema.Resolved) {
	if s != nil && rs != nil {
		r.done[s] = rs
	}
}

// of returns s resolved.
func (r *resolver) of(s *jsonschema.Schema) (*jsonschema.Resolved, error) {
	if rs, ok := r.done[s]; ok {
		return rs, nil
	}
	permissive := reflect.DeepEqual(s, permissiveSchema())
	if permissive && r.permissive != nil {
		return r.permissive, nil
	}
	rs, err := resolve(s)
	if err != nil {
		return nil, err
	}
	r.done[s] = rs
	if permissive {
		r.permissive = rs
	}
	return rs, nil
}

// ArgumentError is the answer to arguments that fail a tool's input schema:
// an HTTP 422 whose JSON body names the fields, the same over both doors.
type ArgumentError struct {
	// Fields are the offending fields, as dotted paths ("city",
	// "address.zip", "tags[]"); empty when the arguments as a whole are wrong.
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

// validateArgs checks JSON arguments against a resolved input schema.
func validateArgs(rs *jsonschema.Resolved, args []byte) *ArgumentError {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return notJSON(err)
	}
	return checkValue(rs, v)
}

// notJSON is the ArgumentError of arguments that do not decode.
func notJSON(err error) *ArgumentError {
	return &ArgumentError{Detail: "arguments are not valid JSON: " + err.Error()}
}

// checkValue checks decoded JSON arguments against a resolved input schema.
func checkValue(rs *jsonschema.Resolved, v any) *ArgumentError {
	if err := rs.Validate(v); err != nil {
		return argumentError(err)
	}
	return nil
}

var (
	// jsonschema-go reports an error as a chain of "validating <schema
	// pointer>: " prefixes ending in the failed keyword's message.
	validatingPrefix = regexp.MustCompile(`validating (root|/[^:]*): `)
	quotedList       = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	typeMismatch     = regexp.MustCompile(`^type: .* has type "([^"]+)", want (.+)$`)
	// jsonschema-go prints the number as a fraction (50/1) and the bound
	// with %f (20.000000).
	numberBound = regexp.MustCompile(`^(minimum|maximum|exclusiveMinimum|exclusiveMaximum|multipleOf): (-?\d+/\d+) is .* (-?[0-9.]+)$`)
)

// argumentError turns a jsonschema-go validation error into field names and
// a detail a model can read.
func argumentError(err error) *ArgumentError {
	msg := err.Error()
	path := ""
	for {
		loc := validatingPrefix.FindStringSubmatchIndex(msg)
		if loc == nil || loc[0] != 0 {
			break
		}
		if p := msg[loc[2]:loc[3]]; p != "root" {
			path = fieldPath(p)
		}
		msg = msg[loc[1]:]
	}
	join := func(name string) string {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	switch {
	case strings.HasPrefix(msg, "required: missing properties:"):
		fields := quotedNames(msg)
		for i := range fields {
			fields[i] = join(fields[i])
		}
		return &ArgumentError{Fields: fields, Detail: "missing required field " + strings.Join(fields, ", ")}
	case strings.HasPrefix(msg, "unexpected additional properties"):
		fields := quotedNames(msg)
		for i := range fields {
			fields[i] = join(fields[i])
		}
		return &ArgumentError{Fields: fields, Detail: "unknown field " + strings.Join(fields, ", ")}
	}
	detail := msg
	if m := typeMismatch.FindStringSubmatch(msg); m != nil {
		want := strings.Trim(m[2], `"`)
		if list, ok := strings.CutPrefix(m[2], `one of "`); ok { // a type list, such as a nullable field's
			want = strings.ReplaceAll(strings.TrimSuffix(list, `"`), ", ", " or ")
		}
		detail = fmt.Sprintf("want %s, got %s", want, m[1])
	}
	if m := numberBound.FindStringSubmatch(msg); m != nil {
		detail = boundDetail(m[1], m[2], m[3])
	}
	if path == "" {
		return &ArgumentError{Detail: "arguments: " + detail}
	}
	return &ArgumentError{Fields: []string{path}, Detail: path + ": " + detail}
}

// boundDetail says which numeric bound a number breaks, with both numbers
// as JSON writes them.
func boundDetail(keyword, value, bound string) string {
	if r, ok := new(big.Rat).SetString(value); ok {
		if r.IsInt() {
			value = r.Num().String()
		} else {
			f, _ := r.Float64()
			value = strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	if f, err := strconv.ParseFloat(bound, 64); err == nil {
		bound = strconv.FormatFloat(f, 'g', -1, 64)
	}
	switch keyword {
	case "minimum":
		return fmt.Sprintf("%s is less than the minimum, %s", value, bound)
	case "maximum":
		return fmt.Sprintf("%s is greater than the maximum, %s", value, bound)
	case "exclusiveMinimum":
		return fmt.Sprintf("%s is not greater than %s", value, bound)
	case "exclusiveMaximum":
		return fmt.Sprintf("%s is not less than %s", value, bound)
	}
	return fmt.Sprintf("%s is not a multiple of %s", value, bound)
}

// fieldPath turns a schema pointer such as /properties/a/properties/b/items
// into a field path such as a.b[].
func fieldPath(pointer string) string {
	parts := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	var b strings.Builder
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties":
			if i+1 < len(parts) {
				i++
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(unescapePointer(parts[i]))
			}
		case "items", "additionalProperties", "prefixItems":
			b.WriteString("[]")
			if parts[i] == "prefixItems" && i+1 < len(parts) {
				i++ // the index
			}
		case "$defs", "definitions":
			b.Reset() // a $ref'd definition: the path restarts there
			i++
		}
	}
	return b.String()
}

func unescapePointer(s string) string {
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
}

func quotedNames(msg string) []string {
	var out []string
	for _, m := range quotedList.FindAllStringSubmatch(msg, -1) {
		out = append(out, m[1])
	}
	return out
}
