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
	"strconv"
	"strings"
)

// FileName is the name of the file gen writes into a package.
const FileName = "mcpdoor_gen.go"

// autoexposePath is the package a generated file hands its facts to.
const autoexposePath = "github.com/mcpdoor/mcpdoor/autoexpose"

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
	// Env is the environment of the go command that lists the packages.
	// Default: the process's.
	Env []string
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
	targets, ld, err := load(opts)
	if err != nil {
		return nil, err
	}
	a := newAnalyzer(ld, decoders)
	res := &Result{}
	cycle := map[string]bool{}
	if _, ok := ld.listed[autoexposePath]; ok {
		cycle = ld.importsOf(autoexposePath) // a file there would import autoexpose into its own imports
	}
	defer func() {
		if len(res.Files) > 0 && len(cycle) == 0 {
			res.Warnings = append(res.Warnings, "no package of the module imports "+autoexposePath+" (tests aside), and the generated files do: "+
				"if the build asks for go.sum entries, call autoexpose.Install in the app, or run go mod tidy")
		}
	}()
	for _, p := range a.module {
		if !targets[p.PkgPath] || cycle[p.PkgPath] {
			continue
		}
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
		path := f.Path
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
				path = rel
			}
		}
		old, err := os.ReadFile(f.Path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("mcpdoor: gen -check: %s is missing; run %s", path, rerun)
		case err != nil:
			return fmt.Errorf("mcpdoor: gen -check: %w", err)
		case !bytes.Equal(old, f.Data):
			line, have, want := firstDifference(old, f.Data)
			return fmt.Errorf("mcpdoor: gen -check: %s is out of date, from its line %d:\n\tthe file has: %s\n\tgen writes:   %s\nrun %s", path, line, have, want, rerun)
		}
	}
	if len(res.Obsolete) > 0 {
		return fmt.Errorf("mcpdoor: gen -check: %s describes a package that holds no handler now; run %s, which removes it", res.Obsolete[0], rerun)
	}
	return nil
}

// firstDifference returns the first line where have and want differ, and
// that line of each.
func firstDifference(have, want []byte) (int, string, string) {
	h, w := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(h) || i < len(w); i++ {
		hl, wl := "(the end of the file)", "(the end of the file)"
		if i < len(h) {
			hl = h[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if hl != wl {
			return i + 1, clip(strings.TrimSpace(hl)), clip(strings.TrimSpace(wl))
		}
	}
	return 0, "", ""
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

// packageDir is the directory of a package's files.
func packageDir(p *pkg) string {
	if len(p.GoFiles) > 0 {
		return filepath.Dir(p.GoFiles[0])
	}
	return p.Dir
}
