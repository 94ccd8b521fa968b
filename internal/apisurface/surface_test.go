package apisurface

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxExported is the bound on the module's public surface: the exported
// identifiers of all its importable packages together.
const maxExported = 200

// maxKit is the bound on the test kit's share of it: what a server's tests,
// tests/ and the examples need, and no more.
const maxKit = 24

// kit is the test kit's directory, relative to the module root.
const kit = "autoexpose/autoexposetest"

// TestExportedSurface counts the exported identifiers of every public
// package (not internal/, examples/, tests/, testdata/, nor a nested module)
// the way go/doc presents them: funcs, types, methods, struct fields
// (also those of nested anonymous structs), interface methods, consts and
// vars, each name once. It fails above maxExported and logs the figure of
// each package.
func TestExportedSurface(t *testing.T) {
	root := moduleRoot(t)
	counts := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel != "." && skipDir(rel, d.Name()) {
			return filepath.SkipDir
		}
		if rel != "." {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		n, ok, err := countDir(path)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if ok {
			counts[rel] = n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) == 0 {
		t.Fatal("no public package found under the module root")
	}
	dirs := make([]string, 0, len(counts))
	total := 0
	for dir, n := range counts {
		dirs = append(dirs, dir)
		total += n
	}
	sort.Strings(dirs)
	var b strings.Builder
	for _, dir := range dirs {
		fmt.Fprintf(&b, "  %-28s %4d\n", dir, counts[dir])
	}
	fmt.Fprintf(&b, "  %-28s %4d", "total", total)
	t.Logf("exported identifiers per package:\n%s", b.String())
	if total > maxExported {
		t.Errorf("the public packages export %d identifiers, more than %d:\n%s", total, maxExported, b.String())
	}
	if counts[kit] > maxKit {
		t.Errorf("the test kit (%s) exports %d identifiers, more than %d", kit, counts[kit], maxKit)
	}
}

// TestKitUsesExportedAPI: the test kit is built on what any user's test
// can import: the public packages, and no internal package but
// internal/rollout, which owns the rollout contract's constants (its paths,
// its metadata key), not a Door's state. What the kit knows of a Door, it
// reads through the Door's exported methods.
func TestKitUsesExportedAPI(t *testing.T) {
	root := moduleRoot(t)
	bp, err := build.ImportDir(filepath.Join(root, kit), 0)
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/mcpdoor/mcpdoor/"
	for _, imp := range bp.Imports {
		if rest, ok := strings.CutPrefix(imp, module); ok && isInternal(rest) && rest != "internal/rollout" {
			t.Errorf("the test kit imports %s: read what it needs through the Door's exported API", imp)
		}
	}
}

// isInternal reports whether the package at rel (relative to the module
// root) is internal to the module.
func isInternal(rel string) bool {
	return rel == "internal" || strings.HasPrefix(rel, "internal/") || strings.Contains(rel, "/internal/") || strings.HasSuffix(rel, "/internal")
}

// skipDir reports whether the directory at rel (slash-separated, relative to
// the module root) holds no public package.
func skipDir(rel, name string) bool {
	switch name {
	case "internal", "testdata", "node_modules":
		return true
	}
	if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return true
	}
	top, _, _ := strings.Cut(rel, "/")
	return top == "examples" || top == "tests"
}

// countDir counts the exported identifiers of the package in dir, built
// for this platform; ok is false where dir holds no importable package.
func countDir(dir string) (n int, ok bool, err error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		if _, none := err.(*build.NoGoError); none {
			return 0, false, nil
		}
		return 0, false, err
	}
	if bp.Name == "main" {
		return 0, false, nil
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return 0, false, err
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, bp.ImportPath)
	if err != nil {
		return 0, false, err
	}
	return count(p), true, nil
}

// count counts the exported identifiers of p. doc.NewFromFiles has already
// dropped the unexported declarations, fields and methods.
func count(p *doc.Package) int {
	n := len(p.Funcs) + values(p.Consts) + values(p.Vars)
	for _, typ := range p.Types {
		n++
		n += len(typ.Funcs) + len(typ.Methods) + values(typ.Consts) + values(typ.Vars)
		n += members(typ.Decl)
	}
	return n
}

// values counts the names of const and var declarations.
func values(vs []*doc.Value) int {
	n := 0
	for _, v := range vs {
		for _, name := range v.Names {
			if ast.IsExported(name) {
				n++
			}
		}
	}
	return n
}

// members counts the exported fields and interface methods declared in a
// type declaration, inside nested anonymous structs too.
func members(decl *ast.GenDecl) int {
	n := 0
	ast.Inspect(decl, func(node ast.Node) bool {
		var list *ast.FieldList
		switch x := node.(type) {
		case *ast.StructType:
			list = x.Fields
		case *ast.InterfaceType:
			list = x.Methods
		default:
			return true
		}
		for _, f := range list.List {
			if len(f.Names) == 0 { // embedded: named by its type
				if name := embeddedName(f.Type); name != "" && ast.IsExported(name) {
					n++
				}
				continue
			}
			for _, name := range f.Names {
				if name.IsExported() {
					n++
				}
			}
		}
		return true
	})
	return n
}

// embeddedName is the field name of an embedded field of type x.
func embeddedName(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.StarExpr:
		return embeddedName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.IndexExpr:
		return embeddedName(x.X)
	case *ast.IndexListExpr:
		return embeddedName(x.X)
	}
	return ""
}

// moduleRoot is the directory of the module's go.mod, two levels up.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at the module root %s: %v", root, err)
	}
	return root
}
