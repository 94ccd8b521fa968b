package autoexpose

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/mcpdoor/mcpdoor/internal/fastpath"
	"github.com/mcpdoor/mcpdoor/internal/longtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fence's tests observe who served a call from a tool's handler: the
// fast path runs the handler on the request's goroutine, under
// (*fastpath.Path).serve, and the go-sdk on a goroutine of its own. The handler
// answers its text and whether that frame is on its stack; testdata/fence
// is a program with the same handler, which TestFenceOffPath builds.

// fenceEcho is the handler of the tool echo of the fence's tests.
func fenceEcho(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Text string `json:"text"`
	}
	json.NewDecoder(r.Body).Decode(&in)
	stack := make([]byte, 64<<10)
	stack = stack[:runtime.Stack(stack, false)]
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"text":      in.Text,
		"fast_path": bytes.Contains(stack, []byte("fastpath.(*Path).serve(")),
	})
}

// An echoAnswer is what fenceEcho answers.
type echoAnswer struct {
	Text     string `json:"text"`
	FastPath bool   `json:"fast_path"`
}

// callEcho calls the tool echo at url with the go-sdk client, n times, and
// returns the answers.
func callEcho(t *testing.T, url string, n int) []echoAnswer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "fence-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	defer cs.Close()
	var out []echoAnswer
	for i := range n {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "call " + string(rune('1'+i))}})
		if err != nil {
			t.Fatalf("tools/call echo: %v", err)
		}
		var a echoAnswer
		if res.IsError || json.Unmarshal([]byte(text(res)), &a) != nil {
			t.Fatalf("tools/call echo: isError %v, %q", res.IsError, text(res))
		}
		if want := "call " + string(rune('1'+i)); a.Text != want {
			t.Errorf("tools/call echo answered %q, want %q", a.Text, want)
		}
		out = append(out, a)
	}
	return out
}

// TestFenceProbe: the probe of the fence's tests tells the two paths apart,
// in this test binary, where the fast path is on: a call the fast path
// serves says so, and one the go-sdk serves (mcp.disable_fast_path) does
// not.
func TestFenceProbe(t *testing.T) {
	for _, tc := range []struct {
		block  string
		fast   bool
		served uint64 // the calls the fast path counts
	}{{"", true, 1}, {"mcp:\n  disable_fast_path: true\n", false, 0}} {
		cfg, err := ParseConfig([]byte("name: fence\nexpose_tools_over_mcp: true\n" + tc.block))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Logger = slog.New(slog.DiscardHandler)
		r := chi.NewRouter()
		r.Post("/echo", fenceEcho)
		d, err := Install(r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(d)
		for _, a := range callEcho(t, srv.URL+"/mcp", 1) {
			if a.FastPath != tc.fast {
				t.Errorf("%q: the handler says fast_path %v, want %v", tc.block, a.FastPath, tc.fast)
			}
		}
		if served := d.fastCalls.Load(); served != tc.served {
			t.Errorf("%q: the fast path counted %d calls, want %d", tc.block, served, tc.served)
		}
		srv.Close()
	}
}

// TestFenceOffPath builds a real program (testdata/fence) whose build
// selects another go-sdk than this module's: a copy of it, in place of it
// by a replace directive, which could be any code. The program serves
// tool calls through the go-sdk, correctly, and says once at startup that
// the fast path is off and why; the fast path serves nothing.
func TestFenceOffPath(t *testing.T) {
	longtest.Skip(t, "builds a program against a replaced go-sdk (a build of its own, tens of seconds)")
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command to build a program: ", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()

	// The go-sdk this module requires, copied out of the module cache.
	list := exec.Command(goCmd, "list", "-m", "-f", "{{.Version}} {{.Dir}}", fastpath.SDKModulePath)
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", fastpath.SDKModulePath, err)
	}
	sdkVersion, sdkDir, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	sdkCopy := filepath.Join(tmp, "go-sdk")
	copyTree(t, sdkDir, sdkCopy)

	// A module that requires this one and replaces the go-sdk by the copy.
	prog := filepath.Join(tmp, "fence")
	if err := os.MkdirAll(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	goMod := "module example.com/fence\n\ngo " + goDirective(t, filepath.Join(root, "go.mod")) + "\n\n" +
		"require github.com/mcpdoor/mcpdoor v0.0.0\n\n" +
		"replace github.com/mcpdoor/mcpdoor => " + root + "\n\n" +
		"replace " + fastpath.SDKModulePath + " => " + sdkCopy + "\n"
	copyFile(t, filepath.Join(root, "go.sum"), filepath.Join(prog, "go.sum"))
	copyFile(t, filepath.Join("testdata", "fence", "main.go"), filepath.Join(prog, "main.go"))
	if err := os.WriteFile(filepath.Join(prog, "go.mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(prog, "fence")
	// -trimpath keeps the copy's temporary directory out of what the build
	// cache keys its packages by: the next run, with another directory,
	// compiles none of the go-sdk again (6 s warm without it, 2 s with).
	build := exec.Command(goCmd, "build", "-trimpath", "-o", bin, ".")
	build.Dir = prog
	// Offline, from the module cache this test binary was built from; -mod=mod
	// completes the module's requirements there.
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod -buildvcs=false", "GOPROXY=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of testdata/fence against a copy of the go-sdk: %v\n%s", err, out)
	}

	// Run it, and call its tool twice.
	cmd := exec.Command(bin)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	urls := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		urls <- strings.TrimSpace(line)
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(30 * time.Second):
		t.Fatalf("the program printed no URL in 30 s; its log:\n%s", stderr.String())
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("the program printed %q, not its URL; its log:\n%s", url, stderr.String())
	}
	for _, a := range callEcho(t, url, 2) {
		if a.FastPath {
			t.Errorf("the fast path served a call (the handler ran under (*fastpath.Path).serve), with go-sdk %s => %s: the go-sdk must serve it", sdkVersion, sdkCopy)
		}
	}

	log := stderr.String()
	var lines []string
	for line := range strings.Lines(log) {
		if strings.Contains(line, "fast path off") {
			lines = append(lines, line)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("the log has %d lines that say the fast path is off, want 1:\n%s", len(lines), log)
	}
	line := lines[0]
	for _, want := range []string{"level=INFO", "mcpdoor: fast path off", "through the go-sdk", `go_sdk="` + sdkVersion + " => " + sdkCopy + `"`, "replace"} {
		if !strings.Contains(line, want) {
			t.Errorf("the log line lacks %q: %s", want, line)
		}
	}
}

// goDirective returns the go version of the go.mod file at path.
func goDirective(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
			return v
		}
	}
	t.Fatalf("%s has no go directive", path)
	return ""
}

// copyTree copies the files under dir to to, writable (the module cache's
// are not, and t.TempDir must be able to remove them).
func copyTree(t *testing.T, dir, to string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copyFile copies the file from to to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A lockedBuffer is a buffer a process writes to while a test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestFenceLog: behind a fence that keeps the fast path off, Install logs
// why once, at INFO, and the go-sdk serves every call; where the fast path
// is off anyway (mcp.disable_fast_path, mcp.stateful), nothing is logged.
func TestFenceLog(t *testing.T) {
	saved := fastpath.TheFence
	t.Cleanup(func() { fastpath.TheFence = saved })
	fastpath.TheFence = func() fastpath.Fence {
		return fastpath.Fence{Found: "v9.0.0", Why: "the fast path was not verified against go-sdk v9.0.0"}
	}
	for _, tc := range []struct {
		block string
		lines int
	}{{"", 1}, {"mcp:\n  disable_fast_path: true\n", 0}, {"mcp:\n  stateful: true\n", 0}} {
		var logged lockedBuffer
		cfg, err := ParseConfig([]byte("name: fence\nexpose_tools_over_mcp: true\n" + tc.block))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Logger = slog.New(slog.NewTextHandler(&logged, nil))
		r := chi.NewRouter()
		r.Post("/echo", fenceEcho)
		d, err := Install(r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(d)
		for _, a := range callEcho(t, srv.URL+"/mcp", 2) {
			if a.FastPath {
				t.Errorf("%q: the fast path served a call behind the fence", tc.block)
			}
		}
		srv.Close()
		if n := d.fastCalls.Load(); n != 0 {
			t.Errorf("%q: the fast path counted %d calls behind the fence", tc.block, n)
		}
		const want = `level=INFO msg="mcpdoor: fast path off: tool calls go through the go-sdk, which serves them correctly but slower" go_sdk=v9.0.0 verified=`
		if n := strings.Count(logged.String(), "fast path off"); n != tc.lines || tc.lines == 1 && !strings.Contains(logged.String(), want) {
			t.Errorf("%q: the log says the fast path is off %d times, want %d, as %q:\n%s", tc.block, n, tc.lines, want, logged.String())
		}
	}
}
