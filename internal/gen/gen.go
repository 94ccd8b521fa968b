// Package gen is mcpdoor gen: it reads the handlers of a module's packages
// with go/packages and go/types, and writes into each package that holds
// some a file of the facts Install matches to the routes (see package
// genfacts): each handler's doc comment, the JSON body it decodes, the
// query and path parameters it reads, and what it answers on success.
//
// What it reads, it reads from the code as it is, and stays on the safe
// side of what it cannot see: a member is required only where the handler
// refuses a request without it, and a body or an answer whose type it
// cannot tell is left undescribed, never guessed.
package gen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// FileName is the name of the file gen writes into a package.
const FileName = "mcpdoor_gen.go"

// buildTag keeps the generated files out of the generator's own view, so
// that a file that no longer compiles (a type it names was renamed) does
// not stop its regeneration.
const buildTag = "mcpdoor_gen"

// Options are what gen reads and how.
type Options struct {
	// Dir is the directory the patterns are relative to: the module's
	// root. Default: the working directory.
	Dir string
	// Patterns are the packages to read, as go list takes them. Default
	// ./...
	Patterns []string
	// Decoders teaches gen functions that decode a request's body: each
	// "pkg/path.Func:N" or "(*pkg/path.Type).Method:N", N the index of the
	// argument decoded into (from 0, the receiver not counted).
	Decoders []string
	// Tags are build tags to load the packages with, besides the one that
	// leaves the generated files out.
	Tags []string
}

// A File is one generated file: its path and its bytes.
type File struct {
	Path string
	Data []byte
}

// Result is what a run found: the files to write, and those on disk that
// no package needs any longer (the package holds no handler now).
type Result struct {
	Files    []File
	Obsolete []string
	// Warnings are things the user should know, such as a closure on the
	// same line as another, whose facts are left out.
	Warnings []string
}

// Run reads the packages and returns the generated files.
func Run(opts Options) (*Result, error) {
	decoders, err := parseDecoders(opts.Decoders)
	if err != nil {
		return nil, err
	}
	pkgs, err := load(opts)
	if err != nil {
		return nil, err
	}
	a := newAnalyzer(pkgs, decoders)
	res := &Result{}
	for _, p := range a.module {
		file, warnings, err := a.generate(p)
		if err != nil {
			return nil, err
		}
		res.Warnings = append(res.Warnings, warnings...)
		path := filepath.Join(packageDir(p), FileName)
		if file != nil {
			res.Files = append(res.Files, File{Path: path, Data: file})
		} else if _, err := os.Stat(path); err == nil {
			res.Obsolete = append(res.Obsolete, path)
		}
	}
	return res, nil
}

// Write writes the files of res, and removes the obsolete ones.
func (res *Result) Write() error {
	for _, f := range res.Files {
		if old, err := os.ReadFile(f.Path); err == nil && bytes.Equal(old, f.Data) {
			continue
		}
		if err := os.WriteFile(f.Path, f.Data, 0o644); err != nil {
			return fmt.Errorf("mcpdoor: gen: %w", err)
		}
	}
	for _, path := range res.Obsolete {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("mcpdoor: gen: %w", err)
		}
	}
	return nil
}

// Check compares res with the files on disk, and returns an error naming
// the first file that differs and its first differing line, or nil when
// every file is as gen would write it.
func (res *Result) Check(rerun string) error {
	for _, f := range res.Files {
		old, err := os.ReadFile(f.Path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("mcpdoor: gen -check: %s is missing; run %s", f.Path, rerun)
		case err != nil:
			return fmt.Errorf("mcpdoor: gen -check: %w", err)
		case !bytes.Equal(old, f.Data):
			return fmt.Errorf("mcpdoor: gen -check: %s is out of date: %s; run %s", f.Path, firstDifference(old, f.Data), rerun)
		}
	}
	if len(res.Obsolete) > 0 {
		return fmt.Errorf("mcpdoor: gen -check: %s describes a package that holds no handler now; run %s, which removes it", res.Obsolete[0], rerun)
	}
	return nil
}

// firstDifference says where have and want first differ, by line.
func firstDifference(have, want []byte) string {
	h, w := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(h) || i < len(w); i++ {
		var hl, wl string
		if i < len(h) {
			hl = h[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if hl != wl {
			return fmt.Sprintf("line %d is\n\t%s\nand would be\n\t%s\n", i+1, clip(hl), clip(wl))
		}
	}
	return "the files differ"
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// parseDecoders reads Options.Decoders.
func parseDecoders(specs []string) (map[string]int, error) {
	out := map[string]int{}
	for _, spec := range specs {
		name, index, ok := strings.Cut(spec, ":")
		n, err := strconv.Atoi(index)
		if !ok || err != nil || n < 0 || name == "" {
			return nil, fmt.Errorf("mcpdoor: gen: -decoder %q is not pkg/path.Func:N (N the index of the argument decoded into, from 0), such as github.com/you/app/web.Decode:1", spec)
		}
		out[name] = n
	}
	return out, nil
}

// load loads the packages with their syntax and types, leaving out the
// generated files.
func load(opts Options) ([]*packages.Package, error) {
	patterns := opts.Patterns
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	tags := append([]string{buildTag}, opts.Tags...)
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedImports | packages.NeedModule,
		Dir:        opts.Dir,
		BuildFlags: []string{"-tags=" + strings.Join(tags, ",")},
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("mcpdoor: gen: %w", err)
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	})
	if len(errs) > 0 {
		slices.Sort(errs)
		errs = slices.Compact(errs)
		if len(errs) > 10 {
			errs = append(errs[:10], fmt.Sprintf("and %d more", len(errs)-10))
		}
		return nil, fmt.Errorf("mcpdoor: gen: the packages do not load:\n\t%s", strings.Join(errs, "\n\t"))
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("mcpdoor: gen: no package matches %s", strings.Join(patterns, " "))
	}
	return pkgs, nil
}

// packageDir is the directory of a package's files.
func packageDir(p *packages.Package) string {
	if len(p.GoFiles) > 0 {
		return filepath.Dir(p.GoFiles[0])
	}
	return p.Dir
}
