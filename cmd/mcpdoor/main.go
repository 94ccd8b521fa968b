// Command mcpdoor is mcpdoor's tool. Its one command, gen, reads a
// module's handlers and writes into each package that holds some the file
// of facts (mcpdoor_gen.go) that autoexpose.Install matches to the routes:
// each handler's doc comment, the JSON body it decodes, the query and path
// parameters it reads, what it answers. Run it from the module's root:
//
//	go run github.com/mcpdoor/mcpdoor/cmd/mcpdoor gen ./...
//
// or from a //go:generate line:
//
//	//go:generate go run github.com/mcpdoor/mcpdoor/cmd/mcpdoor gen ./...
//
// Usage:
//
//	mcpdoor gen [-check] [-decoder pkg.Func:N]... [-tags a,b] [packages]
//
// -check writes nothing: it exits 1, naming the first file that differs
// and its first differing line, when a file is not what gen would write
// (for CI). -decoder teaches gen a function that decodes a request's body
// into its argument N (from 0); a //mcpdoor:decoder line in a function's
// doc comment does the same from the code. The packages default to ./...
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/gen"
)

// rerun is the command a drift report asks for.
const rerun = "go run github.com/mcpdoor/mcpdoor/cmd/mcpdoor gen ./... (or go generate ./...)"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// run runs the command line args and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "gen" {
		fmt.Fprintln(stderr, "usage: mcpdoor gen [-check] [-decoder pkg.Func:N]... [-tags a,b] [packages]")
		return 2
	}
	fs := flag.NewFlagSet("mcpdoor gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	check := fs.Bool("check", false, "write nothing; exit 1 when a generated file is not what gen would write")
	var decoders repeated
	fs.Var(&decoders, "decoder", "a function that decodes a request's body into its argument N (from 0): pkg/path.Func:N or (*pkg/path.Type).Method:N; repeatable")
	tags := fs.String("tags", "", "build tags to load the packages with, comma-separated")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	opts := gen.Options{Patterns: fs.Args(), Decoders: decoders}
	if *tags != "" {
		opts.Tags = strings.Split(*tags, ",")
	}
	res, err := gen.Run(opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(stderr, "mcpdoor: gen: warning: "+w)
	}
	for _, n := range res.Notes {
		fmt.Fprintln(stderr, "mcpdoor: gen: cannot read: "+n)
	}
	if *check {
		if err := res.Check(rerun); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	if err := res.Write(); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	for _, f := range res.Files {
		fmt.Fprintln(stdout, "mcpdoor: gen: wrote "+relative(f.Path))
	}
	for _, path := range res.Obsolete {
		fmt.Fprintln(stdout, "mcpdoor: gen: removed "+relative(path))
	}
	return 0
}

// relative returns path relative to the working directory, when it is
// under it.
func relative(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return path
	}
	return rel
}
