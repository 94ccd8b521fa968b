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
	at := func(detail string, args ...any) problem {
		return problem{rank: rankOther, path: path, detail: fmt.Sprintf(detail, args...)}
	}
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
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonText(w)
		}
		return at("want one of %s, got %s", strings.Join(want, ", "), jsonText(k.Got))
	case *kind.Const:
		return at("want %s, got %s", jsonText(k.Want), jsonText(k.Got))
	case *kind.Minimum:
		return at("%s is less than the minimum, %s", number(k.Got), number(k.Want))
	case *kind.Maximum:
		return at("%s is greater than the maximum, %s", number(k.Got), number(k.Want))
	case *kind.ExclusiveMinimum:
		return at("%s is not greater than %s", number(k.Got), number(k.Want))
	case *kind.ExclusiveMaximum:
		return at("%s is not less than %s", number(k.Got), number(k.Want))
	case *kind.MultipleOf:
		return at("%s is not a multiple of %s", number(k.Got), number(k.Want))
	case *kind.MinLength:
		return at("%s, fewer than the minimum, %d", count(k.Got, "character"), k.Want)
	case *kind.MaxLength:
		return at("%s, more than the maximum, %d", count(k.Got, "character"), k.Want)
	case *kind.Pattern:
		return at("pattern: %q does not match regular expression %q", k.Got, k.Want)
	case *kind.Format:
		return at("%s is not a valid %s", jsonText(k.Got), k.Want)
	case *kind.MinItems:
		return at("%s, fewer than the minimum, %d", count(k.Got, "item"), k.Want)
	case *kind.MaxItems:
		return at("%s, more than the maximum, %d", count(k.Got, "item"), k.Want)
	case *kind.UniqueItems:
		return at("items %d and %d are equal; want no duplicates (counting from 0)", k.Duplicates[0], k.Duplicates[1])
	case *kind.AdditionalItems:
		return at("%s more than the schema allows", count(k.Count, "item"))
	case *kind.Contains:
		return at("no item matches the schema under contains")
	case *kind.MinContains:
		return at("%s the schema under contains, fewer than the minimum, %d", count(len(k.Got), "item matches", "items match"), k.Want)
	case *kind.MaxContains:
		return at("%s the schema under contains, more than the maximum, %d", count(len(k.Got), "item matches", "items match"), k.Want)
	case *kind.MinProperties:
		return at("%s, fewer than the minimum, %d", count(k.Got, "field"), k.Want)
	case *kind.MaxProperties:
		return at("%s, more than the maximum, %d", count(k.Got, "field"), k.Want)
	case *kind.FalseSchema:
		return at("not allowed")
	case *kind.Not:
		return at("must not match the schema under not")
	case *kind.OneOf: // more than one alternative matched
		return at("matches alternatives %d and %d of oneOf; want exactly one", k.Subschemas[0]+1, k.Subschemas[1]+1)
	}
	// A keyword with no words of its own (content assertions, which are
	// off): name it.
	return at("fails the schema's %s", strings.Join(e.ErrorKind.KeywordPath(), "/"))
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
