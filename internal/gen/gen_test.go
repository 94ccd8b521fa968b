package gen

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated files of testdata/blog, the golden files")

// fixture is the app whose handlers the tests read: a module of its own.
const fixture = "testdata/blog"

// fixtureDecoders are the decoders the fixture's edge package is taught on
// the command line (its go:generate line says the same).
var fixtureDecoders = []string{"example.com/blog/edge.bindForm:1"}

// fixtureEnv is the environment of go commands in the fixture: its module
// is not in the repository's workspace.
func fixtureEnv() []string { return append(os.Environ(), "GOWORK=off") }

// TestGolden: gen writes the fixture's generated files as they are
// checked in (-update rewrites them), one for each package with handlers.
func TestGolden(t *testing.T) {
	res, err := Run(Options{Dir: fixture, Decoders: fixtureDecoders, Env: fixtureEnv()})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range res.Files {
		rel, _ := filepath.Rel(mustAbs(t, fixture), f.Path)
		names = append(names, filepath.ToSlash(rel))
		if *update {
			if err := os.WriteFile(f.Path, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(f.Path)
		if err != nil {
			t.Errorf("%s: %v (run go test -update)", rel, err)
			continue
		}
		if !bytes.Equal(old, f.Data) {
			line, have, want := firstDifference(old, f.Data)
			t.Errorf("%s differs from what gen writes, from its line %d:\n  golden: %s\n  gen:    %s\n(go test -update rewrites it)", rel, line, have, want)
		}
	}
	if want := []string{"api/mcpdoor_gen.go", "edge/mcpdoor_gen.go"}; !slices.Equal(names, want) {
		t.Errorf("gen writes %v, want %v (web holds no handler)", names, want)
	}
	if want := "example.com/blog/edge: router.go:34: 2 closures on one line, which the running program cannot tell apart: neither is described; put each on a line of its own"; !slices.Contains(res.Warnings, want) {
		t.Errorf("warnings %q, want %q among them", res.Warnings, want)
	}
}

// TestFixtureApp runs the fixture's own tests — what its tools carry over
// MCP, and parity through both doors — with its generated files, built as
// usual and with -trimpath, whose file names the runtime's matching of
// closures must survive.
func TestFixtureApp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the fixture module")
	}
	for _, flags := range [][]string{nil, {"-trimpath"}} {
		args := append([]string{"test", "-count=1"}, flags...)
		cmd := exec.Command("go", append(args, "./...")...)
		cmd.Dir, cmd.Env = fixture, fixtureEnv()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("go %s ./... in %s: %v\n%s", strings.Join(args, " "), fixture, err, out)
		}
	}
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
