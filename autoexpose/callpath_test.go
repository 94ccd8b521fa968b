package autoexpose_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// TestCallPath is the measure behind docs/design.md's count of the files
// one tools/call crosses; scripts/callfiles.sh runs it, in a test binary
// built with coverage of the whole library, and counts. MCPDOOR_CALLPATH
// names the case, a path (fast: the fast path; sdk: the go-sdk's) and a
// kind of route (direct: its handler called; replayed: served through the
// router, its middleware run), as "fast-direct"; MCPDOOR_CALLPATH_CALLS
// how many calls to make. The script runs each case with two calls and
// with three: the blocks whose counts differ are the third call's. Without
// MCPDOOR_CALLPATH it has nothing to do.
func TestCallPath(t *testing.T) {
	which := os.Getenv("MCPDOOR_CALLPATH")
	if which == "" {
		t.Skip("MCPDOOR_CALLPATH is unset: scripts/callfiles.sh runs this test")
	}
	path, route, _ := strings.Cut(which, "-")
	n, err := strconv.Atoi(os.Getenv("MCPDOOR_CALLPATH_CALLS"))
	if err != nil || (path != "fast" && path != "sdk") || (route != "direct" && route != "replayed") {
		t.Fatalf("MCPDOOR_CALLPATH=%q MCPDOOR_CALLPATH_CALLS=%q: want fast|sdk-direct|replayed and a count",
			which, os.Getenv("MCPDOOR_CALLPATH_CALLS"))
	}
	block := ""
	if path == "sdk" {
		block = "  disable_fast_path: true\n"
	}
	cfg, err := autoexpose.ParseConfig([]byte("name: path\nexpose_tools_over_mcp: true\nmcp:\n  session_secret: \"a test secret of at least thirty-two bytes\"\n" + block))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	type echo struct {
		Text string `json:"text"`
	}
	r := chi.NewRouter()
	var stack []string // the library's files on the stack at the route's handler
	handler := autoexpose.Handler(func(_ context.Context, _ *http.Request, in echo) (echo, error) {
		stack = libraryStack()
		return in, nil
	})
	r.Method(http.MethodPost, "/direct", handler)
	// A middleware the door cannot know is transparent: the route's calls
	// are replayed through the router.
	r.With(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Seen", "1")
			next.ServeHTTP(w, r)
		})
	}).Method(http.MethodPost, "/replayed", handler)
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+route+`","arguments":{"text":"hi"}}}`))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		w := httptest.NewRecorder()
		door.ServeHTTP(w, req)
		if body, _ := io.ReadAll(w.Result().Body); w.Code != http.StatusOK || !strings.Contains(string(body), `"hi"`) {
			t.Fatalf("%s: %d %s", which, w.Code, body)
		}
	}
	if out := os.Getenv("MCPDOOR_CALLPATH_STACK"); out != "" {
		if err := os.WriteFile(out, []byte(strings.Join(stack, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// libraryStack returns the files of the library's code on the calling
// goroutine's stack, tests aside, each once, as paths in the module: by the
// file a frame's code is in, which for a closure inlined into another
// package's function is its own package's file.
func libraryStack() []string {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(self)) + string(filepath.Separator) // the module's directory
	pcs := make([]uintptr, 256)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	var files []string
	for {
		f, more := frames.Next()
		if rel, ok := strings.CutPrefix(f.File, root); ok && !strings.HasSuffix(rel, "_test.go") && !slices.Contains(files, filepath.ToSlash(rel)) {
			files = append(files, filepath.ToSlash(rel))
		}
		if !more {
			return files
		}
	}
}
