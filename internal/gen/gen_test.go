package gen

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/longtest"
)

var update = flag.Bool("update", false, "rewrite the generated files of testdata/blog, the golden files")

// The fixtures are apps whose handlers the tests read, each a module of
// its own: blog holds every handler shape, and the edge cases of gen's
// reading; shop is a 52-route REST server, and untuned an app of the
// shapes gen was not tuned for (the app's own response helpers, a
// response library of another module, json/v2, wrapped handlers, a
// generic validating middleware, query helpers, swaggo annotations):
// the measurement's.
const (
	fixture = "testdata/blog"
	shop    = "testdata/shop"
	untuned = "testdata/untuned"
)

// fixtureDecoders are the decoders the blog's edge package is taught on
// the command line (its go:generate line says the same).
var fixtureDecoders = []string{"example.com/blog/edge.bindForm:1"}

// fixtureEnv is the environment of go commands in the fixtures: their
// modules are not in the repository's workspace, and untuned reads JSON
// with encoding/json/v2, which Go 1.26 has under GOEXPERIMENT=jsonv2.
func fixtureEnv() []string { return append(os.Environ(), "GOWORK=off", "GOEXPERIMENT=jsonv2") }

// long skips t unless MCPDOOR_LONG=1: it runs go list -export, go builds
// or tests of the fixtures, tens of seconds.
func long(t *testing.T) {
	t.Helper()
	longtest.Skip(t, "builds the fixture modules")
}

// TestGolden: gen writes the fixtures' generated files as they are
// checked in (-update rewrites them), one for each package with handlers.
func TestGolden(t *testing.T) {
	long(t)
	for _, c := range []struct {
		dir      string
		decoders []string
		files    []string
	}{
		{fixture, fixtureDecoders, []string{"api/mcpdoor_gen.go", "edge/mcpdoor_gen.go", "legacy.v1/mcpdoor_gen.go"}}, // web holds no handler
		{shop, nil, []string{"admin/mcpdoor_gen.go", "articles/mcpdoor_gen.go", "cart/mcpdoor_gen.go", "comments/mcpdoor_gen.go", "notify/mcpdoor_gen.go",
			"orders/mcpdoor_gen.go", "search/mcpdoor_gen.go", "tags/mcpdoor_gen.go", "users/mcpdoor_gen.go"}}, // server holds middleware that reads nothing
		{untuned, nil, []string{"comments/mcpdoor_gen.go", "items/mcpdoor_gen.go", "opaque/mcpdoor_gen.go", "orders/mcpdoor_gen.go", "pets/mcpdoor_gen.go",
			"reports/mcpdoor_gen.go", "respond/mcpdoor_gen.go", "server/mcpdoor_gen.go", "stock/mcpdoor_gen.go", "wrap/mcpdoor_gen.go"}},
	} {
		res, err := Run(Options{Dir: c.dir, Decoders: c.decoders, Env: fixtureEnv()})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range res.Files {
			rel, _ := filepath.Rel(mustAbs(t, c.dir), f.Path)
			names = append(names, filepath.ToSlash(rel))
			if *update {
				if err := os.WriteFile(f.Path, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			old, err := os.ReadFile(f.Path)
			if err != nil {
				t.Errorf("%s/%s: %v (go test -update writes it)", c.dir, rel, err)
				continue
			}
			if !bytes.Equal(old, f.Data) {
				line, have, want := firstDifference(old, f.Data)
				t.Errorf("%s/%s differs from what gen writes, from its line %d:\n  golden: %s\n  gen:    %s\n(go test -update rewrites it)", c.dir, rel, line, have, want)
			}
		}
		if !slices.Equal(names, c.files) {
			t.Errorf("gen writes %v in %s, want %v", names, c.dir, c.files)
		}
		if c.dir == untuned {
			want := "example.com/untuned/opaque: opaque.go:62: (*Importer).Import: body: gen cannot follow dec, a function value, which may be any function, at opaque.go:69, which is handed the request: the body it may decode there is unknown"
			if !slices.Contains(res.Notes, want) {
				t.Errorf("notes %q, want %q among them", res.Notes, want)
			}
			want = "example.com/untuned/pets: pets.go:152: (*Shelter).AdoptPet: its @Success says it answers model.Pet, the code answers model.Adoption; the code wins"
			if !slices.Contains(res.Warnings, want) {
				t.Errorf("warnings %q, want %q among them", res.Warnings, want)
			}
		}
		if c.dir == fixture {
			want := "example.com/blog/edge: router.go:37: 2 closures on one line, which the running program cannot tell apart: neither is described; put each on a line of its own"
			if !slices.Contains(res.Warnings, want) {
				t.Errorf("warnings %q, want %q among them", res.Warnings, want)
			}
		}
	}
}

// TestFixtureApp runs the fixtures' own tests — what their tools carry
// over MCP, parity through both doors, the shop's measurement — with
// their generated files, built as usual and with -trimpath, whose file
// names the runtime's matching of closures must survive.
func TestFixtureApp(t *testing.T) {
	long(t)
	for _, dir := range []string{fixture, shop, untuned} {
		for _, flags := range [][]string{nil, {"-trimpath"}} {
			args := append([]string{"test", "-count=1"}, flags...)
			cmd := exec.Command("go", append(args, "./...")...)
			cmd.Dir, cmd.Env = dir, fixtureEnv()
			out, err := cmd.CombinedOutput()
			if err != nil {
				hint := ""
				if strings.Contains(string(out), "missing go.sum entry") {
					hint = "\n(the repository's dependencies changed: run GOWORK=off go mod tidy in " + dir + ")"
				}
				t.Errorf("go %s ./... in %s: %v\n%s%s", strings.Join(args, " "), dir, err, out, hint)
			}
		}
	}
}

// TestMeasurement runs the measurement of the fixtures that hold one,
// the shop and untuned: of the body members, query parameters, doc
// comments and JSON answers their handlers read or write (counted by
// hand, in their server/measure_test.go), the share tools/list
// advertises, each kind on its own. It logs each fixture's figures and
// misses, with the reason the startup report gives for each, and fails
// when a kind is under 95% over the fixtures together.
func TestMeasurement(t *testing.T) {
	long(t)
	kinds := []string{"body members", "query parameters", "descriptions", "success outputs"}
	have, of := map[string]int{}, map[string]int{}
	for _, dir := range []string{shop, untuned} {
		cmd := exec.Command("go", "test", "-count=1", "-run", "TestAdvertised", "-v", "./server/")
		cmd.Dir, cmd.Env = dir, fixtureEnv()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the measurement of %s: %v\n%s", dir, err, out)
		}
		var log []string
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "handlers: advertised") || strings.HasPrefix(line, "          ") {
				log = append(log, strings.TrimSpace(line))
			}
		}
		t.Logf("%s:\n\t%s", dir, strings.Join(log, "\n\t"))
		for _, kind := range kinds {
			m := regexp.MustCompile(kind + ` (\d+)/(\d+)`).FindStringSubmatch(string(out))
			if m == nil {
				t.Fatalf("%s's measurement gives no %s:\n%s", dir, kind, out)
			}
			h, _ := strconv.Atoi(m[1])
			n, _ := strconv.Atoi(m[2])
			have[kind] += h
			of[kind] += n
		}
	}
	var sum []string
	for _, kind := range kinds {
		pct := 100 * float64(have[kind]) / float64(max(of[kind], 1))
		sum = append(sum, fmt.Sprintf("%s %d/%d (%.1f%%)", kind, have[kind], of[kind], pct))
		if pct < 95 {
			t.Errorf("the fixtures advertise %s of %d %s (%.1f%%), want at least 95%%", strconv.Itoa(have[kind]), of[kind], kind, pct)
		}
	}
	t.Logf("the fixtures together: %s", strings.Join(sum, ", "))
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
