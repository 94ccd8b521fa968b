package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/longtest"
)

const fixture = "../../internal/gen/testdata/blog"

// copyFixture copies the fixture app into a new directory, its
// replace directive pointed at this repository, and returns it.
func copyFixture(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "blog")
	err := filepath.WalkDir(fixture, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(fixture, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(dst, "go.mod")
	data, _ := os.ReadFile(mod)
	data = regexp.MustCompile(`(?m)^replace github.com/mcpdoor/mcpdoor => .*$`).ReplaceAll(data, []byte("replace github.com/mcpdoor/mcpdoor => "+filepath.ToSlash(root)))
	if err := os.WriteFile(mod, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// runIn runs the command in dir and returns its exit code and output.
func runIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// long skips t unless MCPDOOR_LONG=1: it builds and tests the fixture
// module, tens of seconds.
func long(t *testing.T) {
	t.Helper()
	longtest.Skip(t, "builds the fixture module")
}

func goCmd(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestUsage: a command line that is not gen's is refused with the usage.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"generate"}, {"gen", "-nope"}} {
		var stderr bytes.Buffer
		if code := run(args, &bytes.Buffer{}, &stderr); code != 2 || !strings.Contains(strings.ToLower(stderr.String()), "usage") {
			t.Errorf("run(%q) = %d, stderr %q; want 2 and the usage", args, code, stderr.String())
		}
	}
}

// TestBadDecoder: a -decoder that is not pkg.Func:N is refused, saying
// what it should be.
func TestBadDecoder(t *testing.T) {
	var stderr bytes.Buffer
	code := run([]string{"gen", "-decoder", "web.Decode"}, &bytes.Buffer{}, &stderr)
	want := `mcpdoor: gen: -decoder "web.Decode" is not pkg/path.Func:N (N the index of the argument decoded into, from 0), such as github.com/you/app/web.Decode:1`
	if code != 1 || strings.TrimSpace(stderr.String()) != want {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), want)
	}
}

// TestCheckDrift: on the fixture as checked in, gen -check passes; once a
// handler moves (a line above it), -check exits 1 naming the file and its
// first differing line, and a build of the app without regenerating warns
// at Install of the stale file, naming the tool and the command; go
// generate (the fixture's go:generate lines) brings both back.
func TestCheckDrift(t *testing.T) {
	long(t)
	dir := copyFixture(t)
	t.Setenv("GOWORK", "off")
	check := []string{"gen", "-check", "-decoder", "example.com/blog/edge.bindForm:1", "./..."}
	if code, _, stderr := runIn(t, dir, check...); code != 0 {
		t.Fatalf("gen -check on the fixture as it is: exit %d\n%s", code, stderr)
	}

	articles := filepath.Join(dir, "api", "articles.go")
	src, _ := os.ReadFile(articles)
	src = bytes.Replace(src, []byte("package api\n"), []byte("package api\n\n// The articles' handlers.\n"), 1)
	if err := os.WriteFile(articles, src, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runIn(t, dir, check...)
	if code != 1 {
		t.Fatalf("gen -check on a moved handler: exit %d, want 1\n%s", code, stderr)
	}
	for _, want := range []string{
		"mcpdoor: gen -check: api/mcpdoor_gen.go is out of date, from its line ",
		`"at":"articles.go:79"`, // ArticleCtx, two lines down
		"run go run github.com/mcpdoor/mcpdoor/cmd/mcpdoor gen ./... (or go generate ./...)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("gen -check says\n%s\nwant it to say %q", stderr, want)
		}
	}

	out, err := goCmd(t, dir, "test", "-count=1", "-run", "TestNothingStale", "./api/")
	if err == nil {
		t.Errorf("the app's test passed with a stale generated file:\n%s", out)
	}
	for _, want := range []string{
		"mcpdoor: a generated file is stale",
		"get_article (GET /articles/{articleID}/, GetArticle is at articles.go:130, the file has it at articles.go:128)",
		"fix: rerun go run github.com/mcpdoor/mcpdoor/cmd/mcpdoor gen ./... (or go generate ./...) from the module's root",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the stale app's Install log\n%s\nwant it to say %q", out, want)
		}
	}

	if out, err := goCmd(t, dir, "generate", "./..."); err != nil {
		t.Fatalf("go generate: %v\n%s", err, out)
	}
	if code, _, stderr := runIn(t, dir, check...); code != 0 {
		t.Errorf("gen -check after go generate: exit %d\n%s", code, stderr)
	}
	if out, err := goCmd(t, dir, "test", "-count=1", "./..."); err != nil {
		t.Errorf("the app's tests after go generate: %v\n%s", err, out)
	}
}

// TestRenamedType: a type the generated file names is renamed, so that
// the app no longer builds, at the generated file; gen, which leaves its
// files out of what it loads, still runs, and its new file builds.
func TestRenamedType(t *testing.T) {
	long(t)
	dir := copyFixture(t)
	t.Setenv("GOWORK", "off")
	pages := filepath.Join(dir, "api", "pages.go")
	src, _ := os.ReadFile(pages)
	if err := os.WriteFile(pages, bytes.ReplaceAll(src, []byte("SearchAnswer"), []byte("SearchResults")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := goCmd(t, dir, "build", "./...")
	if err == nil || !strings.Contains(out, "mcpdoor_gen.go") || !strings.Contains(out, "undefined: SearchAnswer") {
		t.Fatalf("go build with a renamed type: %v\n%s\nwant it to fail at the generated file", err, out)
	}
	if code, _, stderr := runIn(t, dir, "gen", "-decoder", "example.com/blog/edge.bindForm:1", "./..."); code != 0 {
		t.Fatalf("gen on an app whose generated file does not build: exit %d\n%s", code, stderr)
	}
	if out, err := goCmd(t, dir, "build", "./..."); err != nil {
		t.Errorf("go build after gen: %v\n%s", err, out)
	}
}
