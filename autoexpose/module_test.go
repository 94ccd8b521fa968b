package autoexpose

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestModuleDeps: the library module's packages, which a user's build
// compiles, import neither mark3labs/mcp-go nor goleak: the benchmark
// program that measures against mcp-go lives in a module of its own
// (bench/), and goleak is for tests. A user's build ignores this
// repository's go.work, and so does the check (GOWORK=off).
func TestModuleDeps(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command: ", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	list := exec.Command(goCmd, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./...")
	list.Dir = root
	list.Env = append(os.Environ(), "GOWORK=off")
	out, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ./...: %v\n%s", err, out)
	}
	for pkg := range strings.Lines(string(out)) {
		pkg = strings.TrimSpace(pkg)
		for _, banned := range []string{"github.com/mark3labs/mcp-go", "go.uber.org/goleak"} {
			if pkg == banned || strings.HasPrefix(pkg, banned+"/") {
				t.Errorf("the library module's packages import %s: keep it to tests or to another module (bench/)", pkg)
			}
		}
	}
}
