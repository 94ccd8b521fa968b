package argcheck

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// A Failure says why arguments fail their schema.
type Failure struct {
	// Fields are the offending fields as dotted paths: "city",
	// "address.zip", "tags[]" (an item of the array tags), "scores.ada" (a
	// key of the map scores). Nil when the arguments as a whole are wrong.
	Fields []string
	// Detail says what is wrong, in words a model can act on:
	// "missing required field city", "unknown field isbn",
	// "n: 0 is less than the minimum, 1", "arguments: want object, got string".
	Detail string
}

// Check validates v, arguments as encoding/json decodes them into an any
// (map[string]any, []any, float64, string, bool, nil), and returns nil when
// they are valid.
//
// When several things are wrong, one is reported, chosen in this order:
// missing required fields, then fields missing because another field is
// present (dependentRequired), then unknown fields, then a value of the
// wrong type, then any other broken keyword; among equals, the field path
// that sorts first, then the detail that sorts first. Missing and unknown
// fields are reported all at once: every missing required field of the
// arguments in one failure, or every unknown field. A type mismatch lists
// the wanted types in a fixed order, null last ("want string or null"),
// whatever their order in the schema.
//
// An anyOf or oneOf that no alternative matches is reported as the type
// the alternatives want when none has the value's type; otherwise by the
// alternatives that have it: the one's own failure when there is one, or
// each one's failure, numbered as in the schema.
func (s *Schema) Check(v any) *Failure {
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *validator.ValidationError
	if !errors.As(err, &ve) { // Validate returns nothing else
		return &Failure{Detail: "arguments: " + err.Error()}
	}
	return report(problems(v, ve))
}

// Problem ranks: what is reported first.
const (
	rankMissing = iota
	rankDependent
	rankUnknown
	rankType
	rankOther
)

// A problem is one failed keyword at one place in the arguments.
type problem struct {
	rank int
	path string // the field path of the failing value, "" for the arguments
	// fields are the offending fields when they are not the value at path
	// (missing or unknown fields); detail then is the whole detail, and
	// otherwise follows "path: ".
	fields []string
	detail string
	// typ is set for a value of the wrong type, so that anyOf's alternatives
	// can be merged into one "want string or null".
	typ *mismatch
}

// mismatch is a value's type and the types a schema wants.
type mismatch struct {
	want []string
	got  string
}

// problems lists what e says is wrong with the arguments v, one problem for
// each failed keyword: groups ($ref, allOf, a schema with several failed
// keywords) are opened, and anyOf and oneOf are summed up by alternatives.
func problems(v any, e *validator.ValidationError) []problem {
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		var out []problem
		for _, c := range e.Causes {
			out = append(out, problems(v, c)...)
		}
		return out
	case *kind.AnyOf:
		return alternatives(v, e, "anyOf")
	case *kind.OneOf:
		if k.Subschemas == nil { // none matched
			return alternatives(v, e, "oneOf")
		}
	case *kind.PropertyNames:
		return []problem{propertyName(v, e, k)}
	}
	return []problem{describe(v, e)}
}

// alternatives sums up an anyOf or oneOf that no alternative matched, one
// cause per alternative, in order. When every alternative wants another
// type, the problem is the type: "want string or null, got integer". When
// the value has the type of some alternatives, the others are left out:
// an alternative of the right type is the one the caller meant, and when
// only one is left its problems are the problems. Otherwise the problem
// names each one.
func alternatives(v any, e *validator.ValidationError, keyword string) []problem {
	path := fieldPath(v, e.InstanceLocation)
	branches := make([][]problem, 0, len(e.Causes))
	for _, c := range e.Causes {
		ps := problems(v, c)
		sortProblems(ps)
		branches = append(branches, ps)
	}
	wrongType := func(ps []problem) bool {
		return len(ps) == 0 || ps[0].typ != nil && ps[0].path == path
	}
	var kept []int
	merged := &mismatch{}
	for i, ps := range branches {
		if !wrongType(ps) {
			kept = append(kept, i)
			continue
		}
		if len(ps) > 0 {
			merged.got = ps[0].typ.got
			for _, w := range ps[0].typ.want {
				if !slices.Contains(merged.want, w) {
					merged.want = append(merged.want, w)
				}
			}
		}
	}
	switch len(kept) {
	case 0:
		if merged.got == "" { // no cause at all: nothing to say but the keyword
			return []problem{{rank: rankOther, path: path, detail: "matches none of the alternatives of " + keyword}}
		}
		return []problem{typeProblem(path, merged)}
	case 1:
		return branches[kept[0]]
	}
	var b strings.Builder
	b.WriteString("matches none of the alternatives of ")
	b.WriteString(keyword)
	b.WriteString(":")
	for n, i := range kept {
		if n > 0 {
			b.WriteString(";")
		}
		b.WriteString(" (")
		b.WriteString(itoa(i + 1))
		b.WriteString(") ")
		b.WriteString(report(branches[i]).Detail)
	}
	return []problem{{rank: rankOther, path: path, detail: b.String()}}
}

// propertyName is the problem of a field name that fails propertyNames.
// The causes say why, with the name as the value that failed.
func propertyName(v any, e *validator.ValidationError, k *kind.PropertyNames) problem {
	field := join(fieldPath(v, e.InstanceLocation), k.Property)
	var why []problem
	for _, c := range e.Causes {
		why = append(why, problems(k.Property, c)...)
	}
	detail := "invalid field name " + field
	if len(why) > 0 {
		f := report(why)
		detail += ": " + strings.TrimPrefix(f.Detail, "arguments: ")
	}
	return problem{rank: rankOther, path: field, fields: []string{field}, detail: detail}
}

func sortProblems(ps []problem) {
	slices.SortStableFunc(ps, func(a, b problem) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.path, b.path), cmp.Compare(a.detail, b.detail))
	})
}

// report turns problems into the one failure Check returns (see the order
// there).
func report(ps []problem) *Failure {
	if len(ps) == 0 { // a failure with no cause; validators do not make one
		return &Failure{Detail: "arguments: do not match the schema"}
	}
	sortProblems(ps)
	first := ps[0]
	switch first.rank {
	case rankMissing, rankUnknown:
		var fields []string
		for _, p := range ps {
			if p.rank != first.rank {
				break
			}
			for _, f := range p.fields {
				if !slices.Contains(fields, f) {
					fields = append(fields, f)
				}
			}
		}
		word := "missing required field "
		if first.rank == rankUnknown {
			word = "unknown field "
		}
		return &Failure{Fields: fields, Detail: word + strings.Join(fields, ", ")}
	}
	if first.fields != nil {
		return &Failure{Fields: first.fields, Detail: first.detail}
	}
	if first.path == "" {
		return &Failure{Detail: "arguments: " + first.detail}
	}
	return &Failure{Fields: []string{first.path}, Detail: first.path + ": " + first.detail}
}
