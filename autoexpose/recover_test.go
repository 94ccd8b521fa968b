package autoexpose

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// crashChildEnv names, in a child process of the test binary, the mcp
// block of the door it serves.
const crashChildEnv = "MCPDOOR_CRASH_CHILD"

// initializeRequest is an initialize request of protocol 2025-03-26, the
// last that allows batches, with this id.
func initializeRequest(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c%d","version":"1"}}}`, id, id)
}

// twoInitializes is a JSON-RPC batch of two initialize requests: the
// go-sdk answers the second with an error, and the typed-nil result that
// goes with it reached the span's description.
var twoInitializes = "[" + initializeRequest(1) + "," + initializeRequest(2) + "]"

// TestBatchOfInitializesKeepsServing: a batch of two initializes, posted to
// a stateful or an exclusive door with default settings and no tracer,
// is answered, and the server goes on serving. It killed the process: the
// second initialize's typed-nil result was read in a goroutine of the
// go-sdk's, which nothing recovers. The door runs in a child process of
// the test binary, so that a crash shows as this test's failure.
func TestBatchOfInitializesKeepsServing(t *testing.T) {
	if block := os.Getenv(crashChildEnv); block != "" {
		serveCrashChild(t, block)
		return
	}
	for _, c := range []struct{ name, block string }{
		{"stateful", "  stateful: true\n"},
		{"exclusive", "  exclusive: true\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			url, exited, _ := startCrashChild(t, "TestBatchOfInitializesKeepsServing", c.block)
			status, body := postChild(t, url, twoInitializes, exited)
			if status != http.StatusOK || !strings.Contains(body, `"id":1,"result":{`) || !strings.Contains(body, `"id":2,"error":{`) {
				t.Errorf("a batch of two initializes: %d %s; want 200, the first initialized and the second refused", status, body)
			}
			// Still serving: a new session opens.
			status, body = postChild(t, url, initializeRequest(3), exited)
			if status != http.StatusOK || !strings.Contains(body, `"protocolVersion":"2025-03-26"`) {
				t.Errorf("an initialize after the batch: %d %s; want 200 and a result", status, body)
			}
			if err := exited(true); err != nil {
				t.Fatalf("the server process: %v", err)
			}
		})
	}
}

// TestPanicInGoSDKGoroutine: a panic where the go-sdk serves a request — a
// prompt added on Door.Server whose handler panics — is the JSON-RPC
// internal error of that request, with an ERROR in the log, and the server
// goes on serving. It killed the process.
func TestPanicInGoSDKGoroutine(t *testing.T) {
	if block := os.Getenv(crashChildEnv); block != "" {
		serveCrashChild(t, block)
		return
	}
	url, exited, logs := startCrashChild(t, "TestPanicInGoSDKGoroutine", panickingPrompt)
	const get = `{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"boom"}}`
	status, body := postChild(t, url, get, exited)
	const want = `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"mcpdoor: internal error serving prompts/get; the server logged it"}}`
	if status != http.StatusOK || strings.TrimSpace(body) != want {
		t.Errorf("prompts/get of a panicking prompt: %d %s; want 200 %s", status, body, want)
	}
	status, body = postChild(t, url, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}`, exited)
	if status != http.StatusOK || !strings.Contains(body, `still here`) {
		t.Errorf("a call after the panic: %d %s; want 200 and its echo", status, body)
	}
	if err := exited(true); err != nil {
		t.Fatalf("the server process: %v", err)
	}
	if log := logs(); !strings.Contains(log, `level=ERROR msg="mcpdoor: serving an MCP request panicked; its client gets an internal error (-32603)" method=prompts/get panic="the prompt's handler fails"`) {
		t.Errorf("the log has no ERROR of the panic:\n%s", log)
	}
}

// postChild posts body to the child's MCP endpoint at url, as postBatch
// does, and returns the status and body; it fails the test, saying so,
// when the child died.
func postChild(t *testing.T, url, body string, exited func(bool) error) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	resp, err := http.DefaultClient.Do(req)
	if died := exited(false); died != nil {
		t.Fatalf("the server process died on %.80s: %v", body, died)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// panickingPrompt is the block that has the child add a prompt whose
// handler panics.
const panickingPrompt = "  # a panicking prompt\n"

// startCrashChild starts a child process of the test binary that serves a
// door with the mcp block on 127.0.0.1, and returns its MCP endpoint's URL
// and a func that returns an error, with the child's exit status and the
// panic it printed, when the child has died (with stop set, it first asks
// the child to end, and waits for it); logs returns what the child has
// written to its stderr. The child runs test, which calls serveCrashChild.
func startCrashChild(t *testing.T, test, block string) (url string, exited func(stop bool) error, logs func() string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+block, "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	var waitErr error
	line, err := bufio.NewReader(stdout).ReadString('\n')
	go func() {
		io.Copy(io.Discard, stdout)
		waitErr = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		stdin.Close()
		<-done
		cancel()
	})
	if !strings.HasPrefix(line, "serving ") {
		t.Fatalf("the child did not start (%v): %q\n%s", err, line, stderr.String())
	}
	exited = func(stop bool) error {
		wait := 200 * time.Millisecond // a panic ends the child at once
		if stop {
			stdin.Close()
			wait = 30 * time.Second
		}
		select {
		case <-done:
		case <-time.After(wait):
			if stop {
				return fmt.Errorf("it did not end within %s of being asked to", wait)
			}
			return nil
		}
		switch {
		case waitErr != nil:
			return fmt.Errorf("%w\n%s", waitErr, panicOf(stderr.String()))
		case !stop:
			return fmt.Errorf("it exited\n%s", stderr.String())
		}
		return nil
	}
	logs = func() string {
		<-done // stderr is written until the child exits
		return stderr.String()
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "serving ")), exited, logs
}

// panicOf returns the first lines of the panic in a child's stderr, or all
// of it.
func panicOf(stderr string) string {
	if i := strings.Index(stderr, "panic: "); i >= 0 {
		stderr = stderr[i:]
	}
	lines := strings.SplitN(stderr, "\n", 12)
	return strings.Join(lines[:min(len(lines), 11)], "\n")
}

// serveCrashChild is the child: it serves the echo door with the mcp block
// on 127.0.0.1, logging to its stderr, until its stdin closes.
func serveCrashChild(t *testing.T, block string) {
	cfg, err := ParseConfig([]byte("name: echo_server\nexpose_tools_over_mcp: true\nmcp:\n  session_secret: \"a test secret of at least thirty-two bytes\"\n" + block))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	r := chi.NewRouter()
	r.Method(http.MethodPost, "/echo", Handler(func(_ context.Context, _ *http.Request, in echoText) (echoText, error) {
		return in, nil
	}))
	if block == panickingPrompt {
		cfg.ExtendServer = func(s *mcp.Server) {
			s.AddPrompt(&mcp.Prompt{Name: "boom"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				panic("the prompt's handler fails")
			})
		}
	}
	door, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	fmt.Printf("serving http://%s/mcp\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
}
