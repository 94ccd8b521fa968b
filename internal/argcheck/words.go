package argcheck

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// describe is the problem of one failed keyword, in words built from the
// keyword's values and the arguments.
func describe(v any, e *validator.ValidationError) problem {
	path := fieldPath(v, e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		return problem{rank: rankMissing, path: path, fields: joinAll(path, k.Missing)}
	case *kind.DependentRequired:
		return dependent(path, k.Prop, k.Missing)
	case *kind.Dependency:
		return dependent(path, k.Prop, k.Missing)
	case *kind.AdditionalProperties:
		names := slices.Clone(k.Properties)
		slices.Sort(names) // the validator finds them in map order
		return problem{rank: rankUnknown, path: path, fields: joinAll(path, names)}
	case *kind.Type:
		return typeProblem(path, &mismatch{want: k.Want, got: typeOf(valueAt(v, e.InstanceLocation))})
	}
	detail, ok := valueWords(e.ErrorKind)
	if !ok {
		detail, ok = countWords(e.ErrorKind)
	}
	if !ok {
		// A keyword with no words of its own (content assertions, which
		// are off): name it.
		detail = "fails the schema's " + strings.Join(e.ErrorKind.KeywordPath(), "/")
	}
	return problem{rank: rankOther, path: path, detail: detail}
}

// valueWords says how a value fails a keyword on the value itself: enum,
// const, the bounds of a number, a string's pattern and format, a schema
// it must or must not match; ok is false for another keyword.
func valueWords(ek validator.ErrorKind) (detail string, ok bool) {
	switch k := ek.(type) {
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonText(w)
		}
		return fmt.Sprintf("want one of %s, got %s", strings.Join(want, ", "), jsonText(k.Got)), true
	case *kind.Const:
		return fmt.Sprintf("want %s, got %s", jsonText(k.Want), jsonText(k.Got)), true
	case *kind.Minimum:
		return fmt.Sprintf("%s is less than the minimum, %s", number(k.Got), number(k.Want)), true
	case *kind.Maximum:
		return fmt.Sprintf("%s is greater than the maximum, %s", number(k.Got), number(k.Want)), true
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("%s is not greater than %s", number(k.Got), number(k.Want)), true
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("%s is not less than %s", number(k.Got), number(k.Want)), true
	case *kind.MultipleOf:
		return fmt.Sprintf("%s is not a multiple of %s", number(k.Got), number(k.Want)), true
	case *kind.Pattern:
		return fmt.Sprintf("pattern: %q does not match regular expression %q", k.Got, k.Want), true
	case *kind.Format:
		return fmt.Sprintf("%s is not a valid %s", jsonText(k.Got), k.Want), true
	case *kind.FalseSchema:
		return "not allowed", true
	case *kind.Not:
		return "must not match the schema under not", true
	case *kind.OneOf: // more than one alternative matched
		return fmt.Sprintf("matches alternatives %d and %d of oneOf; want exactly one", k.Subschemas[0]+1, k.Subschemas[1]+1), true
	}
	return "", false
}

// countWords says how a value fails a keyword that counts: the length of
// a string, the items of an array, the fields of an object; ok is false
// for another keyword.
func countWords(ek validator.ErrorKind) (detail string, ok bool) {
	switch k := ek.(type) {
	case *kind.MinLength:
		return fmt.Sprintf("%s, fewer than the minimum, %d", count(k.Got, "character"), k.Want), true
	case *kind.MaxLength:
		return fmt.Sprintf("%s, more than the maximum, %d", count(k.Got, "character"), k.Want), true
	case *kind.MinItems:
		return fmt.Sprintf("%s, fewer than the minimum, %d", count(k.Got, "item"), k.Want), true
	case *kind.MaxItems:
		return fmt.Sprintf("%s, more than the maximum, %d", count(k.Got, "item"), k.Want), true
	case *kind.UniqueItems:
		return fmt.Sprintf("items %d and %d are equal; want no duplicates (counting from 0)", k.Duplicates[0], k.Duplicates[1]), true
	case *kind.AdditionalItems:
		return fmt.Sprintf("%s more than the schema allows", count(k.Count, "item")), true
	case *kind.Contains:
		return "no item matches the schema under contains", true
	case *kind.MinContains:
		return fmt.Sprintf("%s the schema under contains, fewer than the minimum, %d", count(len(k.Got), "item matches", "items match"), k.Want), true
	case *kind.MaxContains:
		return fmt.Sprintf("%s the schema under contains, more than the maximum, %d", count(len(k.Got), "item matches", "items match"), k.Want), true
	case *kind.MinProperties:
		return fmt.Sprintf("%s, fewer than the minimum, %d", count(k.Got, "field"), k.Want), true
	case *kind.MaxProperties:
		return fmt.Sprintf("%s, more than the maximum, %d", count(k.Got, "field"), k.Want), true
	}
	return "", false
}

// dependent is the problem of fields required because another is present.
func dependent(path, prop string, missing []string) problem {
	fields := joinAll(path, missing)
	return problem{rank: rankDependent, path: path, fields: fields,
		detail: fmt.Sprintf("missing required field %s (required with %s)", strings.Join(fields, ", "), join(path, prop))}
}

// typeOrder is the order in which wanted types are listed, null last:
// "want string or null".
var typeOrder = []string{"boolean", "number", "integer", "string", "array", "object", "null"}

// typeProblem is the problem of a value of the wrong type.
func typeProblem(path string, m *mismatch) problem {
	want := slices.Clone(m.want)
	slices.SortFunc(want, func(a, b string) int {
		return slices.Index(typeOrder, a) - slices.Index(typeOrder, b)
	})
	return problem{rank: rankType, path: path, typ: m,
		detail: fmt.Sprintf("want %s, got %s", strings.Join(want, " or "), m.got)}
}

// typeOf names a decoded JSON value's type as JSON Schema does, a whole
// number being an integer.
func typeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if v == math.Trunc(v) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// number writes a number as JSON would: 50, 0.75, 100.5.
func number(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// jsonText writes a value as JSON: "red", 3, ["a"].
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// count says n things: "1 item", "3 items".
func count(n int, one string, many ...string) string {
	if n == 1 {
		return "1 " + one
	}
	if len(many) > 0 {
		return itoa(n) + " " + many[0]
	}
	return itoa(n) + " " + one + "s"
}

func itoa(n int) string { return strconv.Itoa(n) }
