package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// gen loads the packages itself, with the go command, go/parser and
// go/types, rather than with golang.org/x/tools/go/packages: a module that
// requires mcpdoor for autoexpose has in its go.sum what autoexpose needs,
// and nothing more, so that `go run .../cmd/mcpdoor gen` works from it only
// when the generator needs no other module.
//
// The main module's packages are type-checked from source, each once, so
// that a function has one *types.Func whichever package calls it. Other
// packages are read from their export data, and the few a handler's
// request or response is handed to (a response library) are also checked
// from source, on demand, to be followed into (see analyzer.external).

// A module is the module a package is in.
type module struct {
	Path      string
	Dir       string
	Main      bool
	GoVersion string
}

// A pkg is one loaded package.
type pkg struct {
	PkgPath   string
	Name      string
	Dir       string
	GoFiles   []string // absolute paths, the files type-checked
	Module    *module
	Fset      *token.FileSet
	Syntax    []*ast.File
	Types     *types.Package
	TypesInfo *types.Info
}

// listed is what go list says of a package.
type listed struct {
	ImportPath      string
	Name            string
	Dir             string
	GoFiles         []string
	CompiledGoFiles []string
	Export          string
	Standard        bool
	Module          *module
	ImportMap       map[string]string
	Imports         []string
	Error           *struct{ Err string }
	DepsErrors      []*struct{ Err string }
}

// files returns the absolute paths of the files the package compiles.
func (l *listed) files() []string {
	names := l.CompiledGoFiles
	if len(names) == 0 {
		names = l.GoFiles
	}
	out := make([]string, len(names))
	for i, n := range names {
		if !filepath.IsAbs(n) {
			n = filepath.Join(l.Dir, n)
		}
		out[i] = n
	}
	return out
}

// A loader holds what go list said of a module's packages and their
// dependencies, and the packages type-checked so far.
type loader struct {
	fset    *token.FileSet
	env     []string
	dir     string // the main module's root
	tags    string // the -tags flag
	listed  map[string]*listed
	order   []string // import paths, dependencies first
	checked map[string]*pkg
	export  types.Importer    // from export data, shared by every package
	exports map[string]string // import path → export data file
	sizes   types.Sizes
}

// listFields are the fields of go list's output that the loader reads.
const listFields = "ImportPath,Name,Dir,GoFiles,CompiledGoFiles,Standard,Module,ImportMap,Imports,Error,DepsErrors"

// goList runs go list with args in dir and decodes the packages it prints.
func goList(dir string, env []string, args ...string) ([]*listed, error) {
	cmd := exec.Command("go", append([]string{"list", "-e"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("mcpdoor: gen: go list: %s", msg)
	}
	var out []*listed
	dec := json.NewDecoder(&stdout)
	for {
		var l listed
		if err := dec.Decode(&l); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("mcpdoor: gen: go list printed what gen cannot read: %w", err)
		}
		out = append(out, &l)
	}
}

// load returns the paths of the packages the patterns match, and every
// package of their module, with syntax and types, leaving out the
// generated files: the functions a handler calls, and the decoders a
// directive teaches, may be in packages the patterns leave out.
func load(opts Options) (map[string]bool, *loader, error) {
	patterns := opts.Patterns
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	tags := "-tags=" + strings.Join(append([]string{buildTag}, opts.Tags...), ",")
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	targets, root, errs, err := matchTargets(dir, env, tags, patterns)
	if err != nil {
		return nil, nil, err
	}
	ld, deps, err := listModule(root, env, tags, errs)
	if err != nil {
		return nil, nil, err
	}
	if err := ld.readExports(deps); err != nil {
		return nil, nil, err
	}
	ld.export = importer.ForCompiler(ld.fset, "gc", ld.lookup)
	if err := ld.checkMain(); err != nil {
		return nil, nil, err
	}
	return targets, ld, nil
}

// matchTargets returns the packages of the main module the patterns
// match, the module's root directory, and the errors of the packages they
// match outside it, which fail the load all the same.
func matchTargets(dir string, env []string, tags string, patterns []string) (targets map[string]bool, root string, errs []string, err error) {
	matched, err := goList(dir, env, append([]string{tags, "-json=ImportPath,Module,Error"}, patterns...)...)
	if err != nil {
		return nil, "", nil, err
	}
	targets = map[string]bool{}
	for _, l := range matched {
		if l.Module == nil || !l.Module.Main {
			if l.Error != nil {
				errs = append(errs, l.Error.Err)
			}
			continue
		}
		targets[l.ImportPath] = true
		root = l.Module.Dir
	}
	if len(targets) == 0 {
		if len(errs) > 0 {
			return nil, "", nil, loadError(errs)
		}
		return nil, "", nil, fmt.Errorf("mcpdoor: gen: no package of the main module matches %s; run gen from the module's root", strings.Join(patterns, " "))
	}
	return targets, root, errs, nil
}

// listModule lists every package of the module at root and their
// dependencies, for a loader; deps are the packages outside the module,
// which are read from export data. errs are the errors found so far: any
// fails the load, with those of the listing.
func listModule(root string, env []string, tags string, errs []string) (ld *loader, deps []string, err error) {
	all, err := goList(root, env, tags, "-deps", "-compiled", "-json="+listFields, "./...")
	if err != nil {
		return nil, nil, err
	}
	ld = &loader{fset: token.NewFileSet(), env: env, dir: root, tags: tags, listed: map[string]*listed{}, checked: map[string]*pkg{}, exports: map[string]string{},
		sizes: types.SizesFor("gc", goarch(env))}
	for _, l := range all {
		ld.listed[l.ImportPath] = l
		ld.order = append(ld.order, l.ImportPath)
		if l.Error != nil {
			errs = append(errs, l.Error.Err)
		}
		if !ld.main(l) && l.ImportPath != "unsafe" {
			deps = append(deps, l.ImportPath)
		}
	}
	if len(errs) > 0 {
		return nil, nil, loadError(errs)
	}
	return ld, deps, nil
}

// readExports finds the export data of the packages deps.
func (ld *loader) readExports(deps []string) error {
	if len(deps) == 0 {
		return nil
	}
	exported, err := goList(ld.dir, ld.env, append([]string{ld.tags, "-export", "-json=ImportPath,Export,Error"}, deps...)...)
	if err != nil {
		return err
	}
	var errs []string
	for _, l := range exported {
		if l.Error != nil {
			errs = append(errs, l.Error.Err)
		}
		ld.exports[l.ImportPath] = l.Export
	}
	if len(errs) > 0 {
		return loadError(errs)
	}
	return nil
}

// checkMain type-checks the packages of the main module, in order.
func (ld *loader) checkMain() error {
	var errs []string
	for _, path := range ld.order {
		if l := ld.listed[path]; ld.main(l) {
			if _, err := ld.check(l); err != nil {
				errs = append(errs, err.Error())
			}
		}
	}
	if len(errs) > 0 {
		return loadError(errs)
	}
	return nil
}

// goarch is the GOARCH of env, else the running program's.
func goarch(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "GOARCH="); ok && v != "" {
			return v
		}
	}
	return runtime.GOARCH
}

// loadError is the error of packages that do not load: the first ten
// errors.
func loadError(errs []string) error {
	slices.Sort(errs)
	errs = slices.Compact(errs)
	if len(errs) > 10 {
		errs = append(errs[:10], fmt.Sprintf("and %d more", len(errs)-10))
	}
	return fmt.Errorf("mcpdoor: gen: the packages do not load:\n\t%s", strings.Join(errs, "\n\t"))
}

// main reports whether l is a package of the main module.
func (ld *loader) main(l *listed) bool { return l.Module != nil && l.Module.Main }

// lookup opens the export data of the package path, for the export data
// importer.
func (ld *loader) lookup(path string) (io.ReadCloser, error) {
	file, ok := ld.exports[path]
	if !ok || file == "" {
		return nil, fmt.Errorf("no export data for %s", path)
	}
	return os.Open(file)
}

// modulePackages returns the main module's packages, by import path.
func (ld *loader) modulePackages() []*pkg {
	var out []*pkg
	for _, path := range ld.order {
		if p := ld.checked[path]; p != nil && p.Module != nil && p.Module.Main {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(x, y *pkg) int { return strings.Compare(x.PkgPath, y.PkgPath) })
	return out
}

// importsOf returns the import paths of the packages path imports, at any
// depth, with path itself.
func (ld *loader) importsOf(path string) map[string]bool {
	out := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		if out[p] {
			return
		}
		out[p] = true
		if l := ld.listed[p]; l != nil {
			for _, imp := range l.Imports {
				visit(imp)
			}
		}
	}
	visit(path)
	return out
}

// check type-checks the package l from source, once.
func (ld *loader) check(l *listed) (*pkg, error) {
	if p, ok := ld.checked[l.ImportPath]; ok {
		return p, nil
	}
	p := &pkg{PkgPath: l.ImportPath, Name: l.Name, Dir: l.Dir, GoFiles: l.files(), Module: l.Module, Fset: ld.fset}
	ld.checked[l.ImportPath] = p
	for _, name := range p.GoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(ld.fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		p.Syntax = append(p.Syntax, f)
	}
	p.TypesInfo = &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Implicits:  map[ast.Node]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Instances:  map[*ast.Ident]types.Instance{},
		Scopes:     map[ast.Node]*types.Scope{},
	}
	var errs []string
	cfg := &types.Config{
		Importer: importerFunc(func(path, dir string, mode types.ImportMode) (*types.Package, error) {
			return ld.importFrom(l, path)
		}),
		Sizes: ld.sizes,
		Error: func(err error) {
			if len(errs) < 10 {
				errs = append(errs, err.Error())
			}
		},
	}
	if l.Module != nil && l.Module.GoVersion != "" {
		cfg.GoVersion = "go" + l.Module.GoVersion
	}
	p.Types, _ = cfg.Check(l.ImportPath, ld.fset, p.Syntax, p.TypesInfo)
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "\n\t"))
	}
	return p, nil
}

// importFrom returns the package that path names in the files of l: a
// main module's package as checked from source, any other from its export
// data.
func (ld *loader) importFrom(l *listed, path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if mapped, ok := l.ImportMap[path]; ok {
		path = mapped
	}
	if dep := ld.listed[path]; dep != nil && ld.main(dep) {
		p, err := ld.check(dep)
		if err != nil {
			return nil, err
		}
		if p.Types == nil {
			return nil, fmt.Errorf("import cycle through %s", path)
		}
		return p.Types, nil
	}
	return ld.export.Import(path)
}

// source returns a package outside the main module checked from source,
// to be followed into, or nil when it cannot be (the standard library,
// which gen knows by its functions; a package that does not check).
func (ld *loader) source(path string) *pkg {
	l := ld.listed[path]
	if l == nil || l.Standard || ld.main(l) || len(l.files()) == 0 {
		return nil
	}
	if p, ok := ld.checked[path]; ok {
		return p
	}
	p, err := ld.check(l)
	if err != nil {
		ld.checked[path] = nil
		return nil
	}
	return p
}

type importerFunc func(path, dir string, mode types.ImportMode) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path, "", 0) }
func (f importerFunc) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	return f(path, dir, mode)
}
