package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the library's module path.
const module = "github.com/mcpdoor/mcpdoor"

// layers are the packages of the module, by directory, from the lowest
// layer to the highest: a package imports packages of lower layers only.
// A new package goes in the lowest layer above everything it imports, and
// in docs/design.md's picture.
var layers = []struct {
	name string
	pkgs []string
}{
	{"leaves: one concept each, no mcpdoor import", []string{
		"internal/argcheck", "internal/bodies", "internal/canonical", "internal/cputime", "internal/exposed",
		"internal/genfacts", "internal/header", "internal/httpwrite", "internal/keyring", "internal/longtest", "internal/openapi",
		"internal/pattern", "internal/recovery", "internal/sessionkey", "internal/stdio", "internal/store", "internal/table",
		"internal/typeschema", "internal/wire",
	}},
	{"concepts: detection, dispatch, tokens, sessions, the verify wrapper", []string{
		"internal/detect", "internal/dispatch", "internal/gen", "internal/mcpcall", "internal/sessions",
		"internal/telemetry", "token", "verifywrap",
	}},
	{"faces of the concepts, and the rollout contract", []string{
		"internal/rollout", "replay", "session",
	}},
	{"detection with the rollout contract's routes; the endpoint's HTTP steps; the store's public contract suite", []string{
		"detector", "internal/edge", "session/storetest",
	}},
	{"the harvest: a server's routes as tool specs", []string{"internal/harvest"}},
	{"the tool set: the tools a door serves, a failed call's result", []string{"internal/toolset"}},
	{"the tools/call pipeline", []string{"internal/call"}},
	{"transports: the fast path, the go-sdk server's machinery", []string{"internal/fastpath", "internal/sdkserver"}},
	{"the door", []string{"autoexpose"}},
	{"on top of the door: its test kit, the generator's command", []string{
		"autoexpose/autoexposetest", "cmd/mcpdoor",
	}},
	{"tests of the module as a whole", []string{
		"internal/apisurface", "internal/doccheck", "internal/gentest", "internal/layers",
		"internal/leakcheck",
	}},
}

// TestLayers: every package of the module is in the table, once, and
// imports (outside its tests) only packages of lower layers.
func TestLayers(t *testing.T) {
	layerOf := map[string]int{}
	for i, l := range layers {
		for _, p := range l.pkgs {
			if _, ok := layerOf[p]; ok {
				t.Errorf("%s is in the table twice", p)
			}
			layerOf[p] = i
		}
	}
	pkgs := packages(t)
	for _, dir := range slices.Sorted(maps.Keys(pkgs)) {
		at, ok := layerOf[dir]
		if !ok {
			t.Errorf("%s is in no layer: add it to the table of layers (and to docs/design.md), in the lowest layer above all it imports", dir)
			continue
		}
		for _, imp := range pkgs[dir] {
			to, ok := layerOf[imp.path]
			switch {
			case !ok:
				continue // reported as a package in no layer
			case to >= at:
				t.Errorf("%s: %s (layer %d, %q) imports %s (layer %d, %q): a package imports lower layers only",
					imp.pos, dir, at, layers[at].name, imp.path, to, layers[to].name)
			}
		}
	}
	for p := range layerOf {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("the table of layers names %s, which is no package of the module", p)
		}
	}
}

// TestDesignPicture: docs/design.md's picture of the layers (the first
// code block of its section "The layers", drawn from the highest layer
// down) names every package of the table, each layer's below those of
// the layer above it.
func TestDesignPicture(t *testing.T) {
	b, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(b), "## The layers\n")
	_, picture, _ := strings.Cut(section, "```\n")
	picture, _, ok := strings.Cut(picture, "```")
	if !ok {
		t.Fatal("docs/design.md has no picture in a section \"The layers\"")
	}
	words := strings.Fields(picture)
	above := -1 // where the layer above ends in the picture
	for i := len(layers) - 1; i >= 0; i-- {
		lo, hi := len(words), -1
		for _, p := range layers[i].pkgs {
			at := slices.Index(words, p)
			if at < 0 {
				t.Errorf("docs/design.md's picture of the layers does not name %s", p)
				continue
			}
			lo, hi = min(lo, at), max(hi, at)
		}
		if lo < above {
			t.Errorf("docs/design.md's picture has a package of the layer %q above one of a higher layer", layers[i].name)
		}
		above = max(above, hi)
	}
}

// TestNoInit: no package of the library declares an init function.
func TestNoInit(t *testing.T) {
	walk(t, func(dir string, f *ast.File, fset *token.FileSet) {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				t.Errorf("%s: func init in %s: set up what the package needs where it is used, or in a constructor", fset.Position(fn.Pos()), dir)
			}
		}
	})
}

// An imp is one import of a package of the module.
type imp struct {
	path string // the imported package's directory in the module
	pos  string // where it is imported
}

// packages returns the module's packages, by directory, with their
// imports of the module's packages, outside tests.
func packages(t *testing.T) map[string][]imp {
	pkgs := map[string][]imp{}
	walk(t, func(dir string, f *ast.File, fset *token.FileSet) {
		if _, ok := pkgs[dir]; !ok {
			pkgs[dir] = nil
		}
		for _, spec := range f.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if rel, ok := strings.CutPrefix(path, module+"/"); ok {
				pkgs[dir] = append(pkgs[dir], imp{path: rel, pos: fset.Position(spec.Pos()).String()})
			}
		}
	})
	return pkgs
}

// walk calls visit with every Go file of the module's packages but test
// files (the module's root, testdata, and nested modules left out), its
// directory relative to the root. A directory of test files alone (a
// package of tests) is visited with a file of no declarations.
func walk(t *testing.T, visit func(dir string, f *ast.File, fset *token.FileSet)) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel != "." {
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		tests := false
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") {
				continue
			}
			if strings.HasSuffix(name, "_test.go") {
				tests = true
				continue
			}
			src, err := os.ReadFile(filepath.Join(path, name))
			if err != nil {
				return err
			}
			f, err := parser.ParseFile(fset, filepath.ToSlash(filepath.Join(rel, name)), src, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			visit(rel, f, fset)
		}
		if tests && rel != "." {
			visit(rel, &ast.File{Name: ast.NewIdent("tests")}, fset)
		}
		return nil
	})
	if err != nil {
		t.Fatal(fmt.Errorf("reading the module's packages: %w", err))
	}
}
