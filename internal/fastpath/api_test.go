package fastpath

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFastPathPublicAPI: the fast path reads the response writer through
// net/http's public API only. No file of it imports reflect or unsafe
// (but fence.go, which reads where the go-sdk's source lies from a func
// of it), and no file of the package names net/http's package path at run
// time (as a check of a value's type by its package would): a writer told
// by a name net/http does not export would go unrecognised, or be
// mistaken, the day net/http renames it.
func TestFastPathPublicAPI(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if name != "fence.go" {
			for _, imp := range f.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); path == "reflect" || path == "unsafe" {
					t.Errorf("%s imports %s: the fast path must read the response writer through net/http's public API", name, path)
				}
			}
		}
		imports := map[*ast.BasicLit]bool{}
		for _, imp := range f.Imports {
			imports[imp.Path] = true
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && !imports[lit] {
				if s, _ := strconv.Unquote(lit.Value); s == "net/http" {
					t.Errorf("%s: %q at run time: net/http's types are told by their methods, not their package", fset.Position(lit.Pos()), s)
				}
			}
			return true
		})
	}
	if _, err := os.Stat("fastpath.go"); err != nil {
		t.Fatal(err) // the files are where the test looks
	}
}
