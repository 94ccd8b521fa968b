package autoexpose

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/longtest"
)

// banned are the modules a user's build of the library must not compile,
// nor its module graph hold: mark3labs/mcp-go (the benchmark program that
// measures against it lives in bench/), goleak (for tests), go-redis (the
// Redis session store is a module of its own, session/redisstore), and
// OpenTelemetry's SDK, exporters and instrumentations (the library uses
// OpenTelemetry's API alone; the program that wires them is the user's).
var banned = []string{
	"github.com/mark3labs/mcp-go",
	"go.uber.org/goleak",
	"github.com/redis/go-redis",
	"go.opentelemetry.io/otel/sdk",
	"go.opentelemetry.io/otel/exporters",
	"go.opentelemetry.io/contrib",
	"go.opentelemetry.io/proto",
}

// TestModuleDeps: the library module's packages, which a user's build
// compiles, import none of the banned modules, and the OpenTelemetry API
// only. A user's build ignores this repository's go.work, and so does the
// check (GOWORK=off).
func TestModuleDeps(t *testing.T) {
	goCmd, root := goTool(t)
	list := exec.Command(goCmd, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./...")
	list.Dir = root
	list.Env = append(os.Environ(), "GOWORK=off")
	out, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ./...: %v\n%s", err, out)
	}
	api := false
	for pkg := range strings.Lines(string(out)) {
		pkg = strings.TrimSpace(pkg)
		api = api || pkg == "go.opentelemetry.io/otel/trace"
		for _, banned := range banned {
			if pkg == banned || strings.HasPrefix(pkg, banned+"/") {
				t.Errorf("the library module's packages import %s: keep it to tests or to another module (bench/, tests/, examples/)", pkg)
			}
		}
	}
	if !api {
		t.Errorf("the library module's packages do not import go.opentelemetry.io/otel/trace: the door traces with OpenTelemetry's API")
	}
}

// TestUserModuleGraph: the module graph of a user's one-file program that
// imports autoexpose names none of the banned modules, and holds
// OpenTelemetry's API. A module graph holds every requirement of the
// modules it uses, test-only ones included, so the library's go.mod must
// require none of them: they belong to the modules of bench/, tests/ and
// examples/. The program's module replaces mcpdoor
// with this checkout, ignores go.work, and resolves from the module cache
// alone (GOPROXY=off); without what it needs there, the test is skipped.
func TestUserModuleGraph(t *testing.T) {
	goCmd, root := goTool(t)
	dir := t.TempDir()
	files := map[string]string{
		"main.go": "package main\n\nimport \"github.com/mcpdoor/mcpdoor/autoexpose\"\n\nfunc main() { _ = autoexpose.Config{} }\n",
		"go.mod": "module example.com/user\n\ngo 1.26.0\n\nrequire github.com/mcpdoor/mcpdoor v0.0.0\n\n" +
			"replace github.com/mcpdoor/mcpdoor => " + filepath.ToSlash(root) + "\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command(goCmd, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// No go mod tidy: it loads the tests of every dependency, which the
	// module cache may not hold; the graph comes from the go.mod files
	// alone, the library's first.
	graph, err := run("mod", "graph")
	if err != nil {
		t.Skipf("go mod graph of a program requiring the library, from the module cache alone: %v\n%s", err, graph)
	}
	for line := range strings.Lines(graph) {
		for _, banned := range banned {
			// A module path, or one under it: ".../sdk@v1" and ".../sdk/metric@v1".
			if strings.Contains(line, " "+banned+"@") || strings.Contains(line, " "+banned+"/") ||
				strings.HasPrefix(line, banned+"@") || strings.HasPrefix(line, banned+"/") {
				t.Errorf("a user's module graph has %q: keep %s out of the library's go.mod (bench/, tests/ and examples/ are modules of their own)", strings.TrimSpace(line), banned)
			}
		}
	}
	if !strings.Contains(graph, " go.opentelemetry.io/otel@") {
		t.Errorf("a user's module graph lacks go.opentelemetry.io/otel, the API the door traces with:\n%s", graph)
	}
}

// goTool returns the go command, skipping the test without one or without
// MCPDOOR_LONG=1, and the library module's root.
func goTool(t *testing.T) (goCmd, root string) {
	t.Helper()
	longtest.Skip(t, "runs the go command")
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command: ", err)
	}
	root, err = filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return goCmd, root
}
