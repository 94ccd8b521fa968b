package nodeclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// stub is a plain HTTP server with the two routes the http steps of a
// scenario typically use, and an /mcp that is not an MCP server: it records
// the session header it was sent and answers 404.
type stub struct {
	*httptest.Server
	mu         sync.Mutex
	mcpHeaders []string
	seedBody   map[string]any
}

func newStub(t *testing.T) *stub {
	s := &stub{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /seed_session", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.seedBody = body
		s.mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "s-1", Path: "/"})
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"mcp":{"server_name":"stub","url_path":"/mcp","transport":"http",`+
			`"headers":{"X-NeMo-Gym-Session-Token":"tok-1"}}}`)
	})
	mux.HandleFunc("GET /verify", func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie("session")
		if err != nil {
			http.Error(w, "no session cookie", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"session": c.Value, "reward": 1})
	})
	mux.HandleFunc("POST /logout", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Path: "/", MaxAge: -1})
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.mcpHeaders = append(s.mcpHeaders, r.Header.Get("X-NeMo-Gym-Session-Token"))
		s.mu.Unlock()
		http.NotFound(w, r)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func TestDirAndNode(t *testing.T) {
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"package.json", "package-lock.json", "mcp_client.mjs", "conformance.mjs"} {
		if !isFile(filepath.Join(dir, f)) {
			t.Errorf("%s not found in %s", f, dir)
		}
	}
	if root := RepoRoot(t); !isFile(filepath.Join(root, "go.mod")) {
		t.Errorf("RepoRoot %s has no go.mod", root)
	}
	node := Node(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, _, err := runNode(ctx, node, "--version", nil)
	if err != nil {
		t.Fatalf("%s --version: %v", node, err)
	}
	if v := strings.TrimSpace(string(out)); !strings.HasPrefix(v, "v22.") {
		t.Errorf("%s --version = %q, want v22.x", node, v)
	}
}

// recorder is a testing.TB that records Skip and Fatalf instead of stopping.
type recorder struct {
	testing.TB
	skipped, fatal string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Skip(args ...any)                  { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

func TestUnavailableSkipsOrFails(t *testing.T) {
	missing := errors.New("node_modules/node/bin/node is missing")

	t.Setenv(RequireEnv, "")
	r := &recorder{TB: t}
	unavailable(r, missing)
	if r.fatal != "" || !strings.Contains(r.skipped, InstallCommand) || !strings.Contains(r.skipped, "is missing") {
		t.Errorf("without %s: skipped %q, fatal %q", RequireEnv, r.skipped, r.fatal)
	}

	t.Setenv(RequireEnv, "1")
	r = &recorder{TB: t}
	unavailable(r, missing)
	if r.skipped != "" || !strings.Contains(r.fatal, InstallCommand) {
		t.Errorf("with %s=1: skipped %q, fatal %q", RequireEnv, r.skipped, r.fatal)
	}
}

func TestFindDirFromWorkingDirectory(t *testing.T) {
	// The fallback used when the source path is not usable (-trimpath).
	want, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	for _, wd := range []string{RepoRoot(t), filepath.Join(want, ".."), want} {
		if got, err := findDirFrom(wd); err != nil || got != want {
			t.Errorf("findDirFrom(%s) = %q, %v; want %q", wd, got, err, want)
		}
	}
	if got, err := findDirFrom(t.TempDir()); err == nil {
		t.Errorf("findDirFrom(a temporary directory) = %q, want an error", got)
	}
}

func TestRunHTTPSteps(t *testing.T) {
	t.Parallel()
	s := newStub(t)
	out := Run(t, Scenario{
		URL:       s.URL + "/mcp",
		TimeoutMs: 20000,
		Steps: []Step{
			HTTP("POST", "/seed_session", map[string]any{"task": "weather", "n": 2}),
			HTTP("GET", "/verify", nil),
			ConnectHeadersFrom(0, "mcp.headers"),
			List(),
			{Op: "no-such-op"},
		},
	})
	if len(out.Results) != 5 {
		t.Fatalf("got %d results, want 5: %s", len(out.Results), out.Results)
	}

	var seed HTTPResult
	out.Decode(t, 0, &seed)
	if seed.Status != 200 {
		t.Errorf("seed status = %d", seed.Status)
	}
	var seedBody struct {
		MCP struct {
			URLPath string            `json:"url_path"`
			Headers map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal(seed.Body, &seedBody); err != nil || seedBody.MCP.Headers["X-NeMo-Gym-Session-Token"] != "tok-1" {
		t.Errorf("seed body = %s (%v)", seed.Body, err)
	}
	var setCookie []string
	if err := json.Unmarshal(seed.Headers["set-cookie"], &setCookie); err != nil || len(setCookie) != 1 {
		t.Errorf("set-cookie = %s (%v)", seed.Headers["set-cookie"], err)
	}
	s.mu.Lock()
	if s.seedBody["task"] != "weather" {
		t.Errorf("server saw seed body %v", s.seedBody)
	}
	s.mu.Unlock()

	var verify HTTPResult
	out.Decode(t, 1, &verify)
	if verify.Status != 200 || !strings.Contains(string(verify.Body), `"session":"s-1"`) {
		t.Errorf("verify = %d %s; the cookie jar did not carry the session cookie", verify.Status, verify.Body)
	}

	// /mcp is not an MCP server: connecting fails with its HTTP status, and
	// the failure is recorded, not fatal.
	for _, i := range []int{2, 3} {
		e := out.Err(i)
		if e == nil {
			t.Fatalf("step %d: want an error, got %s", i, out.Results[i])
		}
		if string(e.Code) != "404" {
			t.Errorf("step %d: error code = %s (%s), want 404", i, e.Code, e.Message)
		}
	}
	s.mu.Lock()
	if len(s.mcpHeaders) == 0 || s.mcpHeaders[0] != "tok-1" {
		t.Errorf("MCP requests carried session tokens %q, want tok-1 from /seed_session", s.mcpHeaders)
	}
	s.mu.Unlock()
	if e := out.Err(4); e == nil || !strings.Contains(e.Message, "unknown op") {
		t.Errorf("step 4: want an unknown-op error, got %s", out.Results[4])
	}
	if e := out.Err(7); e == nil {
		t.Error("Err of a missing step is nil")
	}
}

func TestRunRawScenario(t *testing.T) {
	t.Parallel()
	s := newStub(t)
	// Any value that marshals to the scenario JSON works, and cookies are
	// kept only for steps that ask for the jar.
	out := Run(t, map[string]any{
		"url": s.URL + "/mcp",
		"steps": []map[string]any{
			{"op": "http", "method": "POST", "path": "/seed_session", "body": map[string]any{}},
			{"op": "http", "path": "/verify"},
			{"op": "http", "path": "/verify", "body": "plain", "method": "GET", "cookieJar": true},
			{"op": "http", "method": "POST", "path": "/seed_session", "body": map[string]any{}, "cookieJar": true},
			{"op": "http", "path": "/verify", "cookieJar": true},
			{"op": "http", "method": "POST", "path": "/logout", "cookieJar": true},
			{"op": "http", "path": "/verify", "cookieJar": true},
		},
	})
	var r HTTPResult
	out.Decode(t, 1, &r)
	if r.Status != http.StatusUnauthorized || !strings.Contains(string(r.Body), "no session cookie") {
		t.Errorf("verify without the jar = %d %s, want 401", r.Status, r.Body)
	}
	// A GET with a body is refused by fetch itself: recorded as an error.
	if e := out.Err(2); e == nil {
		t.Errorf("GET with a body: want an error, got %s", out.Results[2])
	}
	// The jar keeps the cookie, and forgets it when the server expires it.
	for i, want := range map[int]int{4: http.StatusOK, 5: http.StatusNoContent, 6: http.StatusUnauthorized} {
		var r HTTPResult
		out.Decode(t, i, &r)
		if r.Status != want {
			t.Errorf("step %d: status %d, want %d (%s)", i, r.Status, want, r.Body)
		}
	}
}

func TestRunClientRejectsBadScenario(t *testing.T) {
	t.Parallel()
	node := Node(t)
	dir, _ := Dir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, scenario := range []any{
		map[string]any{"url": "http://127.0.0.1:1/mcp"},                            // no steps
		map[string]any{"url": "http://x/mcp", "command": "true", "steps": []any{}}, // both url and command
		json.RawMessage(`[1, 2]`),                                                  // not an object
	} {
		if _, stderr, err := runClient(ctx, node, dir, scenario); err == nil {
			t.Errorf("scenario %v: want an error", scenario)
		} else if !strings.Contains(string(stderr), "mcp_client:") {
			t.Errorf("scenario %v: stderr %q has no message", scenario, stderr)
		}
	}
}

func TestConformanceReportsFailures(t *testing.T) {
	t.Parallel()
	// Without an MCP server every scenario fails; this checks the plumbing:
	// the run completes, the report decodes, and failing is not fatal here.
	s := newStub(t)
	rep := Conformance(t, s.URL+"/mcp", "ping")
	if rep.OK {
		t.Error("report OK against a server that is not an MCP server")
	}
	if got := rep.Failed(); !slices.Equal(got, []string{"ping"}) {
		t.Errorf("Failed() = %v", got)
	}
	p := rep.Scenario("ping")
	if p == nil || !p.Required || p.Counts["FAILURE"] == 0 || len(p.Checks) == 0 || len(p.Notes) == 0 {
		t.Errorf("ping summary = %+v", p)
	}
	if rep.Scenario("tools-list") != nil {
		t.Error("a scenario that was not asked for is in the report")
	}
}
