package argcheck

import (
	"strconv"
	"strings"
)

// fieldPath names the value at loc, a JSON pointer's tokens into the
// arguments v, as a dotted path: an object's field by its name ("address.
// zip"), an array's item by "[]" ("tags[]"). Whether a token is a field or
// an index is read from the arguments, so a field named "0" stays a field.
func fieldPath(v any, loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		switch x := v.(type) {
		case []any:
			b.WriteString("[]")
			v = nil
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(x) {
				v = x[i]
			}
		default: // an object; the validator never goes into anything else
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(name(tok))
			v = nil
			if m, ok := x.(map[string]any); ok {
				v = m[tok]
			}
		}
	}
	return b.String()
}

// valueAt is the value at loc in the arguments v.
func valueAt(v any, loc []string) any {
	for _, tok := range loc {
		switch x := v.(type) {
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		case map[string]any:
			v = x[tok]
		default:
			return nil
		}
	}
	return v
}

// join appends a field name to a path.
func join(path, field string) string {
	if path == "" {
		return name(field)
	}
	return path + "." + name(field)
}

// name is how a field's name is written in a path: as it is, but for the
// empty name, which would vanish, written "".
func name(field string) string {
	if field == "" {
		return `""`
	}
	return field
}

func joinAll(path string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = join(path, n)
	}
	return out
}
