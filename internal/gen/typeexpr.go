package gen

import (
	"errors"
	"fmt"
	"go/types"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A typeWriter writes Go types as expressions of the generated file's
// package, for reflect.TypeFor: a named type by its name (imported when
// it is another package's), and a type the file cannot name (declared in
// a function, unexported in another package) as the type it is defined
// as, which encoding/json reads and writes alike. It numbers the types it
// writes, each once.
type typeWriter struct {
	pkg     *types.Package
	exprs   []string
	types   []types.Type // by index, as exprs
	byExpr  map[string]int
	imports map[string]string // path → the name the file imports it as
	taken   map[string]bool   // names the file may not import a package as
}

func newTypeWriter(pkg *types.Package) *typeWriter {
	w := &typeWriter{pkg: pkg, byExpr: map[string]int{}, imports: map[string]string{}, taken: map[string]bool{}}
	for _, name := range pkg.Scope().Names() {
		w.taken[name] = true
	}
	return w
}

// index returns the number of type t, writing it the first time.
func (w *typeWriter) index(t types.Type) (int, error) {
	e, err := w.expr(t, map[*types.Named]bool{})
	if err != nil {
		return -1, err
	}
	if i, ok := w.byExpr[e]; ok {
		return i, nil
	}
	w.exprs = append(w.exprs, e)
	w.types = append(w.types, t)
	w.byExpr[e] = len(w.exprs) - 1
	return len(w.exprs) - 1, nil
}

// name returns the name the file imports package path as, importing it.
func (w *typeWriter) name(path, want string) string {
	if n, ok := w.imports[path]; ok {
		return n
	}
	n := want
	for i := 2; w.taken[n]; i++ {
		n = want + strconv.Itoa(i)
	}
	w.taken[n] = true
	w.imports[path] = n
	return n
}

var errUnnamed = errors.New("it holds a type no Go expression can write (a function, a channel, a type parameter)")

// expr writes t. expanding holds the named types being written as their
// definitions, so that a recursive one stops.
func (w *typeWriter) expr(t types.Type, expanding map[*types.Named]bool) (string, error) {
	switch t := t.(type) {
	case *types.Alias:
		return w.expr(types.Unalias(t), expanding)
	case *types.Basic:
		if t.Info()&types.IsUntyped != 0 {
			return w.expr(types.Default(t), expanding)
		}
		if t.Kind() == types.UnsafePointer || t.Kind() == types.Invalid {
			return "", errUnnamed
		}
		return t.Name(), nil
	case *types.Pointer:
		e, err := w.expr(t.Elem(), expanding)
		return "*" + e, err
	case *types.Slice:
		e, err := w.expr(t.Elem(), expanding)
		return "[]" + e, err
	case *types.Array:
		e, err := w.expr(t.Elem(), expanding)
		return fmt.Sprintf("[%d]%s", t.Len(), e), err
	case *types.Map:
		k, err := w.expr(t.Key(), expanding)
		if err != nil {
			return "", err
		}
		e, err := w.expr(t.Elem(), expanding)
		return "map[" + k + "]" + e, err
	case *types.Interface:
		return "any", nil // encoding/json sees any interface alike
	case *types.Struct:
		return w.structExpr(t, expanding)
	case *types.Named:
		return w.named(t, expanding)
	}
	return "", errUnnamed
}

func (w *typeWriter) named(t *types.Named, expanding map[*types.Named]bool) (string, error) {
	obj := t.Obj()
	if obj.Pkg() == nil {
		return "any", nil // error, comparable: interfaces
	}
	if _, ok := t.Underlying().(*types.Interface); ok && obj.Pkg() != w.pkg {
		return "any", nil
	}
	local := obj.Parent() != nil && obj.Parent() != obj.Pkg().Scope()
	foreign := obj.Pkg() != w.pkg
	if local || (foreign && (!obj.Exported() || !importable(obj.Pkg().Path(), w.pkg.Path()) || obj.Pkg().Name() == "main")) {
		if codec(t) {
			return "", fmt.Errorf("%s encodes itself (a MarshalJSON or UnmarshalJSON method) and the generated file cannot name it", obj.Name())
		}
		if expanding[t] {
			return "", fmt.Errorf("%s refers to itself and the generated file cannot name it", obj.Name())
		}
		expanding[t] = true
		defer delete(expanding, t)
		return w.expr(t.Underlying(), expanding)
	}
	name := obj.Name()
	if foreign {
		name = w.name(obj.Pkg().Path(), obj.Pkg().Name()) + "." + name
	}
	if args := t.TypeArgs(); args.Len() > 0 {
		var list []string
		for i := range args.Len() {
			e, err := w.expr(args.At(i), expanding)
			if err != nil {
				return "", err
			}
			list = append(list, e)
		}
		name += "[" + strings.Join(list, ", ") + "]"
	}
	return name, nil
}

// structExpr writes a struct type: its exported fields and its embedded
// ones (which encoding/json promotes), with their tags.
func (w *typeWriter) structExpr(t *types.Struct, expanding map[*types.Named]bool) (string, error) {
	var fields []string
	for i := range t.NumFields() {
		fld, tag := t.Field(i), t.Tag(i)
		if !fld.Exported() && !fld.Embedded() {
			continue // encoding/json ignores it
		}
		e, err := w.expr(fld.Type(), expanding)
		if err != nil {
			return "", err
		}
		field := fld.Name() + " " + e
		if fld.Embedded() {
			if name := strings.TrimPrefix(e, "*"); !typeName(name) {
				return "", fmt.Errorf("it embeds %s, which the generated file cannot name", fld.Name())
			}
			field = e
		}
		switch {
		case tag == "":
		case rawSafe(tag):
			field += " `" + tag + "`"
		default:
			field += " " + strconv.Quote(tag)
		}
		fields = append(fields, field)
	}
	return "struct{" + strings.Join(fields, "; ") + "}", nil
}

// codec reports whether t encodes or decodes itself: the schema of its
// definition would not be that of its JSON.
func codec(t *types.Named) bool {
	for _, name := range []string{"MarshalJSON", "UnmarshalJSON", "MarshalText", "UnmarshalText"} {
		if obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(t), true, t.Obj().Pkg(), name); obj != nil {
			return true
		}
	}
	return false
}

// importable reports whether package path may be imported from package
// from: not an internal package of another tree.
func importable(path, from string) bool {
	i := strings.LastIndex(path, "/internal/")
	switch {
	case strings.HasSuffix(path, "/internal"):
		i = len(path) - len("/internal")
	case strings.HasPrefix(path, "internal/") || path == "internal":
		return strings.HasPrefix(from, "internal/") || from == "internal"
	}
	if i < 0 {
		return true
	}
	parent := path[:i]
	return from == parent || strings.HasPrefix(from, parent+"/")
}

// typeName reports whether e is a type's name, which a struct may embed,
// rather than a type literal.
func typeName(e string) bool {
	if e == "" || e == "any" || strings.HasPrefix(e, "struct{") || strings.HasPrefix(e, "map[") {
		return false
	}
	c := e[0]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// rawSafe reports whether a raw string literal holds s byte for byte: it
// has no backquote, no carriage return (which the compiler drops from a
// raw string), no NUL and no byte order mark (which it refuses in a file),
// and is valid UTF-8. Any other tag is written quoted, which holds every
// byte.
func rawSafe(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsAny(s, "`\r\x00\ufeff")
}
