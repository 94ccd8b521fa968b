package tests

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// builds are the binaries goBuild has built, by package. They are kept in
// a directory of the user's cache, one per checkout, from one run to the
// next: go build leaves a binary that is up to date as it is, so later runs
// skip the link (a second or two on a busy machine). Without a user cache
// directory they go to a temporary one, which TestMain removes.
var builds struct {
	mu   sync.Mutex
	dir  string
	temp bool // dir is temporary
	bins map[string]string
}

// goBuild builds the main package pkg, a path from the repository root
// ("./examples/weather"), once per run, and returns the binary's path. It
// builds in the module pkg is in (examples/ or tests/), as a user of that
// module would.
func goBuild(t testing.TB, pkg string) string {
	t.Helper()
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if bin, ok := builds.bins[pkg]; ok {
		return bin
	}
	root := nodeclient.RepoRoot(t)
	if builds.dir == "" {
		dir, err := os.UserCacheDir()
		if err == nil {
			sum := sha256.Sum256([]byte(root))
			dir = filepath.Join(dir, "mcpdoor-tests", hex.EncodeToString(sum[:6]))
			err = os.MkdirAll(dir, 0o755)
		}
		if err != nil {
			if dir, err = os.MkdirTemp("", "mcpdoor-tests-"); err != nil {
				t.Fatal(err)
			}
			builds.temp = true
		}
		builds.dir, builds.bins = dir, make(map[string]string)
	}
	module, rel, _ := strings.Cut(strings.TrimPrefix(pkg, "./"), "/")
	bin := filepath.Join(builds.dir, strings.ReplaceAll(strings.Trim(pkg, "./"), "/", "_"))
	build := exec.Command("go", "build", "-o", bin, "./"+rel)
	build.Dir = filepath.Join(root, module)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	builds.bins[pkg] = bin
	return bin
}

// removeBuilds removes what goBuild built in a temporary directory.
func removeBuilds() {
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if builds.temp {
		os.RemoveAll(builds.dir)
	}
}

// exampleConfig is an example's config file: yaml, a config that ends in
// its mcp block (or in "mcp:"), with the fixtures' session secret added to
// that block, so that a test can read the example's cookies and tokens.
func exampleConfig(yaml string) string {
	return yaml + "\n  session_secret: \"" + testSecret + "\"\n"
}

// An example is an example's binary, running on a loopback port until the
// test ends, and a client of it.
type example struct {
	*server
	cmd *exec.Cmd // its process
	mu  sync.Mutex
	log strings.Builder // what it wrote to its standard error and output
}

// Log returns what the example has logged so far.
func (e *example) Log() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.log.String()
}

// startExample builds examples/<name> and starts it on a free loopback
// port, as the README's commands do, until the test ends: with config, a
// config file's content ("" for the example's own server.yaml), and the
// further flags args. No session secret comes from the environment.
func startExample(t testing.TB, name, config string, args ...string) *example {
	t.Helper()
	return startExampleEnv(t, name, config, nil, args...)
}

// startExampleEnv is startExample with env ("KEY=value") added to the
// example's environment.
func startExampleEnv(t testing.TB, name, config string, env []string, args ...string) *example {
	t.Helper()
	return startBinary(t, name, goBuild(t, "./examples/"+name), config, env, args...)
}

// startBinary starts the server binary bin, which logs as name does, as
// startExampleEnv starts an example's.
func startBinary(t testing.TB, name, bin, config string, env []string, args ...string) *example {
	t.Helper()
	args = append([]string{"-addr", "127.0.0.1:0"}, args...)
	if config != "" {
		file := filepath.Join(t.TempDir(), "server.yaml")
		if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-config", file)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "WEATHER_MCP_SECRET=", "WORKPLACE_MCP_SECRET="), env...)
	output, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e := &example{cmd: cmd}
	addr := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		listening := `msg="` + name + `: serving HTTP" addr=`
		sc := bufio.NewScanner(output)
		for sc.Scan() {
			e.mu.Lock()
			e.log.WriteString(sc.Text() + "\n")
			e.mu.Unlock()
			if _, a, ok := strings.Cut(sc.Text(), listening); ok {
				addr <- a
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		<-done
		cmd.Wait()
		if t.Failed() {
			t.Logf("%s's log:\n%s", name, e.Log())
		}
	})
	select {
	case a := <-addr:
		e.server = dialServer(t, "http://"+a)
	case <-done:
		t.Fatalf("%s exited before serving:\n%s", name, e.Log())
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not start:\n%s", name, e.Log())
	}
	return e
}
