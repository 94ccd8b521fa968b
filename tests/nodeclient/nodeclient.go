// Package nodeclient lets Go tests drive an MCP server with a peer written by
// someone else: the official TypeScript SDK's clients (v1 and v2), the
// Vercel AI SDK's (@ai-sdk/mcp) and the OpenAI Agents SDK's, all driven by
// tests/node/mcp_client.mjs, and the official MCP conformance suite
// (tests/node/conformance.mjs, 0.1.16 and 0.2.0-alpha.12), all run on the
// Node 22 that tests/node installs as an npm dependency.
//
// The Node side is installed with
//
//	npm ci --prefix tests/node
//
// (scripts/test.sh does it). Without it, the helpers skip the calling test, or
// fail it when MCPDOOR_REQUIRE_NODE=1 is set, as it is in scripts/test.sh and CI.
package nodeclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// RequireEnv names the environment variable that, set to 1, turns a missing
// Node installation into a test failure instead of a skip.
const RequireEnv = "MCPDOOR_REQUIRE_NODE"

// InstallCommand is the command, run from the repository root, that installs
// the Node dependencies the helpers need.
const InstallCommand = "npm ci --prefix tests/node"

// modulePath is the module this package lives in; it identifies the
// repository's go.mod when searching from the working directory.
const modulePath = "github.com/mcpdoor/mcpdoor"

var (
	dirOnce sync.Once
	dirPath string
	dirErr  error
)

// Dir returns the repository's tests/node directory. It is found next to this
// source file, or else by walking up from the working directory to the
// repository's go.mod.
func Dir() (string, error) {
	dirOnce.Do(func() { dirPath, dirErr = findDir() })
	return dirPath, dirErr
}

func findDir() (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		dir := filepath.Join(filepath.Dir(file), "..", "node")
		if isFile(filepath.Join(dir, "package.json")) {
			return filepath.Clean(dir), nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return findDirFrom(wd)
}

// findDirFrom walks up from wd to the repository's go.mod and returns its
// tests/node.
func findDirFrom(wd string) (string, error) {
	for d := wd; ; d = filepath.Dir(d) {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && declaresModule(data) {
			dir := filepath.Join(d, "tests", "node")
			if isFile(filepath.Join(dir, "package.json")) {
				return dir, nil
			}
			return "", fmt.Errorf("nodeclient: %s has no package.json", dir)
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("nodeclient: no go.mod of %s above %s", modulePath, wd)
		}
	}
}

func declaresModule(gomod []byte) bool {
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == modulePath {
			return true
		}
	}
	return false
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// RepoRoot returns the repository root (the parent of tests/). Scenarios that
// start a server over stdio, such as "go run ./examples/weather -stdio", can
// use it as their "cwd".
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(dir))
}

// nodeBinary returns the Node 22 binary inside tests/node/node_modules, or an
// error saying what is missing.
func nodeBinary() (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	node := filepath.Join(dir, "node_modules", "node", "bin", "node")
	for _, need := range []string{
		node,
		filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"),
		filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "package.json"),
		filepath.Join(dir, "node_modules", "conformance-0.2", "package.json"),
		filepath.Join(dir, "node_modules", "@modelcontextprotocol", "client", "package.json"),
		filepath.Join(dir, "node_modules", "@openai", "agents", "package.json"),
		filepath.Join(dir, "node_modules", "@google", "gemini-cli", "package.json"),
		filepath.Join(dir, "node_modules", "@ai-sdk", "mcp", "package.json"),
	} {
		if !isFile(need) {
			return "", fmt.Errorf("%s is missing", need)
		}
	}
	return node, nil
}

// required reports whether RequireEnv asks for a failure instead of a skip.
func required() bool {
	v := strings.TrimSpace(os.Getenv(RequireEnv))
	return v == "1" || strings.EqualFold(v, "true")
}

// Node returns the path of the Node 22 binary installed under
// tests/node/node_modules. When the Node dependencies are not installed it
// skips the test, or fails it if MCPDOOR_REQUIRE_NODE=1; either way the message
// gives the command that installs them. Call it from the test's goroutine.
func Node(t testing.TB) string {
	t.Helper()
	node, err := nodeBinary()
	if err != nil {
		unavailable(t, err)
	}
	return node
}

// unavailable skips t, or fails it when RequireEnv is set, saying how to
// install the Node dependencies.
func unavailable(t testing.TB, err error) {
	t.Helper()
	msg := fmt.Sprintf("Node test dependencies not installed (%v); from the repository root run: %s", err, InstallCommand)
	if required() {
		t.Fatalf("%s (%s=1 is set)", msg, RequireEnv)
		return
	}
	t.Skip(msg)
}

// The clients a Scenario can run besides the official TypeScript SDK's v1
// client (Scenario.Client "").
const (
	// AISDK is @ai-sdk/mcp, the Vercel AI SDK's MCP client, which
	// negotiates the protocol by itself (server/discover first, then
	// initialize where discover is not served) and has no ping or
	// terminate.
	AISDK = "ai-sdk"
	// TSv2 is the official TypeScript SDK's v2 client
	// (@modelcontextprotocol/client), which negotiates as
	// Scenario.VersionNegotiation says.
	TSv2 = "ts-v2"
	// OpenAIAgents is the OpenAI Agents SDK's MCP client (@openai/agents'
	// MCPServerStreamableHttp), built on TSv2's with "auto" negotiation; it
	// has no ping or terminate.
	OpenAIAgents = "openai-agents"
)

// Scenario is what mcp_client.mjs runs; Run also accepts any other value that
// marshals to the same JSON (a map, or raw json.RawMessage). Exactly one of URL
// (Streamable HTTP) and Command (stdio) is set.
type Scenario struct {
	// URL is the MCP endpoint, e.g. "http://127.0.0.1:PORT/mcp". "http" steps
	// go to its origin.
	URL string `json:"url,omitempty"`
	// Client is the peer that runs the MCP steps: "" for the official
	// TypeScript SDK's v1 client; AISDK, TSv2 or OpenAIAgents (HTTP only).
	Client string `json:"client,omitempty"`
	// VersionNegotiation is how the TSv2 client picks the protocol: "auto"
	// (the default: server/discover, then initialize where it is not
	// served), "legacy" (initialize only), or a version to pin
	// ("2026-07-28": discover, and no fallback).
	VersionNegotiation string `json:"versionNegotiation,omitempty"`
	// Headers are sent on every MCP request.
	Headers map[string]string `json:"headers,omitempty"`
	// ProtocolVersion, if set, is the version the client asks for in
	// initialize (the SDK otherwise offers its latest).
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// TimeoutMs is the hard limit for the whole run (default 30000).
	TimeoutMs int `json:"timeoutMs,omitempty"`
	// StepTimeoutMs limits one request (default TimeoutMs).
	StepTimeoutMs int `json:"stepTimeoutMs,omitempty"`

	// Command and Args start a server that speaks MCP on stdio.
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Env is added to the environment the stdio server inherits.
	Env map[string]string `json:"env,omitempty"`
	// Cwd is the stdio server's working directory (default: the test's).
	Cwd string `json:"cwd,omitempty"`

	// Steps run in order; MCP steps connect on first use.
	Steps []Step `json:"steps"`
}

// Step is one step of a Scenario; build it with List, Call, HTTP, and the
// other constructors, or fill in the fields for Op.
type Step struct {
	// Op is one of list, call, ping, resources, read, info, http,
	// connectHeadersFrom, terminate, close.
	Op string `json:"op"`

	// Name and Arguments are the tool and arguments of a "call".
	Name      string `json:"name,omitempty"`
	Arguments any    `json:"arguments,omitempty"`
	// Cursor pages a "list" or a "resources".
	Cursor string `json:"cursor,omitempty"`
	// URI is the resource a "read" reads.
	URI string `json:"uri,omitempty"`

	// Method, Path, Headers and Body make up an "http" request to the
	// origin of Scenario.URL; a Body that is not a string is sent as JSON.
	// For a "connectHeadersFrom", Path is where the headers are in the
	// source step's JSON body (default "mcp.headers").
	Method  string            `json:"method,omitempty"`
	Path    string            `json:"path,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    any               `json:"body,omitempty"`
	// CookieJar keeps cookies between the "http" steps that set it.
	CookieJar bool `json:"cookieJar,omitempty"`

	// StepIndex names the earlier "http" step whose JSON body a
	// "connectHeadersFrom" reads, and URLPath, if set, where the MCP URL path
	// is in it (e.g. "mcp.url_path").
	StepIndex *int   `json:"step,omitempty"`
	URLPath   string `json:"urlPath,omitempty"`
}

// List is a tools/list step; its result is the SDK's listTools() result.
func List() Step { return Step{Op: "list"} }

// Call is a tools/call step; its result is the SDK's callTool() result.
func Call(name string, arguments any) Step {
	if arguments == nil {
		arguments = map[string]any{}
	}
	return Step{Op: "call", Name: name, Arguments: arguments}
}

// Ping is a ping step; its result is {} on success.
func Ping() Step { return Step{Op: "ping"} }

// Resources is a resources/list step; its result is the SDK's
// listResources() result.
func Resources() Step { return Step{Op: "resources"} }

// Read is a resources/read step; its result is the SDK's readResource()
// result.
func Read(uri string) Step { return Step{Op: "read", URI: uri} }

// Info records what the client learned while connecting: serverInfo,
// capabilities, instructions, protocolVersion and sessionId.
func Info() Step { return Step{Op: "info"} }

// HTTP is a plain HTTP request to the MCP URL's origin, with cookies kept
// between such steps; its result is HTTPResult.
func HTTP(method, path string, body any) Step {
	return Step{Op: "http", Method: method, Path: path, Body: body, CookieJar: true}
}

// ConnectHeadersFrom (re)connects the MCP client with the headers found at
// headersPath (e.g. "mcp.headers") in the JSON body of the result of the
// earlier http step with index step, as an agent reading /seed_session would.
func ConnectHeadersFrom(step int, headersPath string) Step {
	return Step{Op: "connectHeadersFrom", StepIndex: &step, Path: headersPath}
}

// Terminate ends the HTTP session (DELETE with the session id) and closes the client.
func Terminate() Step { return Step{Op: "terminate"} }

// Output is what mcp_client.mjs prints: one raw result per step.
type Output struct {
	OK      bool              `json:"ok"`
	Results []json.RawMessage `json:"results"`
	// Stderr is what the script wrote to its standard error, which a stdio
	// server it starts inherits.
	Stderr []byte `json:"-"`
}

// StepError is what a step that threw records instead of its result.
type StepError struct {
	Message string          `json:"message"`
	Code    json.RawMessage `json:"code,omitempty"` // a JSON-RPC code, an HTTP status, or a string
	Data    json.RawMessage `json:"data,omitempty"`
	Name    string          `json:"name,omitempty"`
	Cause   string          `json:"cause,omitempty"`
}

// Error implements error.
func (e *StepError) Error() string { return e.Message }

// HTTPResult is the result of an "http" step. Header names are lower case;
// "set-cookie", when present, is a list.
type HTTPResult struct {
	Status  int                        `json:"status"`
	Headers map[string]json.RawMessage `json:"headers"`
	Body    json.RawMessage            `json:"body"`
}

// Err returns the error that step i recorded, or nil if it has a result.
func (o Output) Err(i int) *StepError {
	if i < 0 || i >= len(o.Results) {
		return &StepError{Message: fmt.Sprintf("no result %d (have %d)", i, len(o.Results))}
	}
	var r struct {
		Error *StepError `json:"error"`
	}
	if json.Unmarshal(o.Results[i], &r) == nil && r.Error != nil {
		return r.Error
	}
	return nil
}

// Decode decodes the result of step i into v, failing the test if step i
// recorded an error or does not decode.
func (o Output) Decode(t testing.TB, i int, v any) {
	t.Helper()
	if err := o.Err(i); err != nil {
		t.Fatalf("step %d: %s", i, o.describe(i, err))
	}
	if err := json.Unmarshal(o.Results[i], v); err != nil {
		t.Fatalf("step %d: decoding %s: %v", i, o.Results[i], err)
	}
}

func (o Output) describe(i int, err *StepError) string {
	if i >= 0 && i < len(o.Results) {
		return string(o.Results[i])
	}
	return err.Message
}

// defaultTimeout bounds one run of a Node script when the test has no
// earlier deadline.
const defaultTimeout = 2 * time.Minute

func timeout(t testing.TB, limit time.Duration) time.Duration {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := d.Deadline(); ok {
			if left := time.Until(dl) - 5*time.Second; left < limit {
				limit = max(left, time.Second)
			}
		}
	}
	return limit
}

// runNode runs node script args with stdin, returning stdout and stderr.
func runNode(ctx context.Context, node, script string, stdin []byte, args ...string) (stdout, stderr []byte, err error) {
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout = &out
	cmd.Stderr = &errb
	// A stdio server started by the script may hold the pipes open a little
	// after the script exits.
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return out.Bytes(), errb.Bytes(), err
}

// runClient runs mcp_client.mjs on scenario and decodes its output.
func runClient(ctx context.Context, node, dir string, scenario any) (Output, []byte, error) {
	data, err := json.Marshal(scenario)
	if err != nil {
		return Output{}, nil, fmt.Errorf("marshaling scenario: %w", err)
	}
	stdout, stderr, err := runNode(ctx, node, filepath.Join(dir, "mcp_client.mjs"), data, "-")
	if err != nil {
		return Output{}, stderr, fmt.Errorf("mcp_client.mjs: %w\nstderr:\n%s\nstdout:\n%s", err, stderr, stdout)
	}
	var out Output
	if err := json.Unmarshal(stdout, &out); err != nil {
		return Output{}, stderr, fmt.Errorf("mcp_client.mjs printed no JSON document (%v):\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if !out.OK {
		return out, stderr, errors.New("mcp_client.mjs did not report ok")
	}
	return out, stderr, nil
}

// Run runs scenario (a Scenario, or anything that marshals to its JSON) with
// mcp_client.mjs on Node 22 and returns the decoded output. Steps that threw
// are recorded in the output (see Output.Err); the test fails only when the
// script itself fails, with its stderr. Call it from the test's goroutine.
func Run(t testing.TB, scenario any) Output {
	t.Helper()
	node := Node(t)
	dir, _ := Dir()
	ctx, cancel := context.WithTimeout(context.Background(), timeout(t, defaultTimeout))
	defer cancel()
	out, stderr, err := runClient(ctx, node, dir, scenario)
	if err != nil {
		t.Fatal(err)
	}
	if len(bytes.TrimSpace(stderr)) > 0 {
		t.Logf("mcp_client.mjs stderr:\n%s", stderr)
	}
	out.Stderr = stderr
	return out
}

// ConformanceReport is the result of one run of conformance.mjs: one or
// more runs of the conformance suite (see Suites).
type ConformanceReport struct {
	URL string `json:"url"`
	// OK is true when every required scenario passed.
	OK     bool `json:"ok"`
	Strict bool `json:"strict"`
	// Suites are the suite runs, by the suite's version and the spec
	// revision of a requirement set: "0.1.16", "0.2.0-alpha.12@2026-07-28".
	Suites    []string              `json:"suites"`
	Required  []string              `json:"required"`
	Scenarios []ConformanceScenario `json:"scenarios"`
}

// The suite runs conformance.mjs knows (its --suite): the suites of
// tests/node, and for 0.2 the spec revision whose requirement set to run.
const (
	// Suite01 is @modelcontextprotocol/conformance 0.1.16, every server
	// scenario: the default.
	Suite01 = "0.1"
	// Suite02At20251125 is 0.2.0-alpha.12, the scenarios spec revision
	// 2025-11-25 requires and those it runs unscored, at that revision's
	// wire.
	Suite02At20251125 = "0.2@2025-11-25"
	// Suite02At20260728 is 0.2.0-alpha.12 at spec revision 2026-07-28,
	// whose wire has no initialize and no sessions: a stateful door does
	// not serve it.
	Suite02At20260728 = "0.2@2026-07-28"
)

// ConformanceScenario sums up one scenario of one suite run.
type ConformanceScenario struct {
	// Run is the suite run as conformance.mjs's --suite names it (Suite01,
	// Suite02At20260728, ...); Suite, its label ("0.2.0-alpha.12@2026-07-28").
	Run   string `json:"run"`
	Suite string `json:"suite"`
	// Requirements is the spec revision of a requirement set, "" for a
	// whole suite.
	Requirements string `json:"requirements,omitempty"`
	// Scored is false for a scenario a requirement set runs and reports
	// without scoring it (an extension, a pending or later scenario).
	Scored   bool   `json:"scored"`
	Scenario string `json:"scenario"`
	Required bool   `json:"required"`
	// Result is PASS, WARN (warnings, no failure), FAIL (a check failed),
	// ERROR (the suite recorded no checks) or NONE (informational checks only).
	Result string             `json:"result"`
	Counts map[string]int     `json:"counts"` // by check status: SUCCESS, FAILURE, WARNING, INFO
	Notes  []string           `json:"notes"`  // the failures and warnings, one line each
	Checks []ConformanceCheck `json:"checks"`
}

// ConformanceCheck is one check as the suite records it in checks.json.
type ConformanceCheck struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Status       string          `json:"status"`
	ErrorMessage string          `json:"errorMessage,omitempty"`
	Details      json.RawMessage `json:"details,omitempty"`
}

// Failed returns the scenarios whose result is FAIL or ERROR.
func (r ConformanceReport) Failed() []string {
	var names []string
	for _, s := range r.Scenarios {
		if s.Result == "FAIL" || s.Result == "ERROR" {
			names = append(names, s.Scenario)
		}
	}
	return names
}

// Scenario returns the summary of the named scenario in the first suite run
// that has it, or nil.
func (r ConformanceReport) Scenario(name string) *ConformanceScenario {
	for i := range r.Scenarios {
		if r.Scenarios[i].Scenario == name {
			return &r.Scenarios[i]
		}
	}
	return nil
}

// Find returns the summary of the named scenario in the suite run run
// (Suite01, Suite02At20260728, ...), or nil.
func (r ConformanceReport) Find(run, name string) *ConformanceScenario {
	for i := range r.Scenarios {
		if s := &r.Scenarios[i]; s.Run == run && s.Scenario == name {
			return s
		}
	}
	return nil
}

// runConformance runs conformance.mjs with the suite runs suites (none: its
// default) and decodes its JSON report. The script's exit status 1 (a
// required scenario failed) is not an error here.
func runConformance(ctx context.Context, node, dir, url string, suites, scenarios []string) (ConformanceReport, []byte, error) {
	args := []string{"--json", "-"}
	if len(suites) > 0 {
		args = append(args, "--suite", strings.Join(suites, ","))
	}
	args = append(append(args, url), scenarios...)
	stdout, stderr, err := runNode(ctx, node, filepath.Join(dir, "conformance.mjs"), nil, args...)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1 && ctx.Err() == nil) {
		return ConformanceReport{}, stderr, fmt.Errorf("conformance.mjs: %w\n%s", err, stderr)
	}
	var rep ConformanceReport
	if err := json.Unmarshal(stdout, &rep); err != nil {
		return ConformanceReport{}, stderr, fmt.Errorf("conformance.mjs printed no JSON report (%v):\n%s\n%s", err, stdout, stderr)
	}
	return rep, stderr, nil
}

// Conformance runs the official MCP conformance suite against the MCP
// endpoint url (e.g. "http://127.0.0.1:PORT/mcp"): the named scenarios, or
// every server scenario when none is named. It logs the suite's table and
// returns the report without judging it; the test fails only when the suite
// cannot be run. See RequireConformance. Call it from the test's goroutine.
func Conformance(t testing.TB, url string, scenarios ...string) ConformanceReport {
	t.Helper()
	return ConformanceSuites(t, url, nil, scenarios...)
}

// ConformanceSuites is Conformance with the suite runs suites (Suite01,
// Suite02At20251125, Suite02At20260728; nil for Suite01 alone), run at once
// by one conformance.mjs. Each row of the report says which run it is of.
func ConformanceSuites(t testing.TB, url string, suites []string, scenarios ...string) ConformanceReport {
	t.Helper()
	node := Node(t)
	dir, _ := Dir()
	ctx, cancel := context.WithTimeout(context.Background(), timeout(t, 5*time.Minute))
	defer cancel()
	rep, table, err := runConformance(ctx, node, dir, url, suites, scenarios)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MCP conformance:\n%s", table)
	return rep
}

// CoreScenarios are the conformance scenarios an mcpdoor server (tools only,
// over Streamable HTTP) must pass. The suite's other scenarios call fixture
// tools (test_simple_text, ...), which examples/conformance serves, and
// prompts and resources, which a route door does not serve.
var CoreScenarios = []string{
	"server-initialize",
	"ping",
	"tools-list",
	"logging-set-level",
	"dns-rebinding-protection",
	"server-sse-multiple-streams",
}

// RequireConformance runs Conformance with the named scenarios, or
// CoreScenarios when none is named, and fails the test, without stopping it,
// for each one that does not pass (FAIL or ERROR; warnings are allowed). It
// returns the report.
func RequireConformance(t testing.TB, url string, scenarios ...string) ConformanceReport {
	t.Helper()
	if len(scenarios) == 0 {
		scenarios = CoreScenarios
	}
	rep := Conformance(t, url, scenarios...)
	for _, s := range rep.Scenarios {
		if s.Result == "FAIL" || s.Result == "ERROR" {
			t.Errorf("conformance scenario %s: %s: %s", s.Scenario, s.Result, strings.Join(s.Notes, "; "))
		}
	}
	return rep
}

// GeminiRun is one headless run of Gemini CLI (@google/gemini-cli, the
// version tests/node pins): a prompt, answered by the model API at
// ModelURL with the MCP servers of Servers as the model's tools, every
// tool call approved (--yolo). The CLI runs with a home and a workspace of
// its own, each an empty temporary directory, and its telemetry, usage
// statistics and update checks off, so that it talks to ModelURL and the
// servers alone.
type GeminiRun struct {
	// ModelURL is the Gemini API's base URL (GOOGLE_GEMINI_BASE_URL):
	// "http://127.0.0.1:PORT", a fake the test serves.
	ModelURL string
	// APIKey is the key the CLI sends the model API (GEMINI_API_KEY);
	// default "fake-gemini-key".
	APIKey string
	// Model is the model the CLI asks for (-m), which skips its routing
	// of each turn to a model; default "gemini-2.5-flash".
	Model string
	// Servers are the MCP servers of its settings.json, by name: the CLI
	// offers the model each tool as mcp_<name>_<tool>.
	Servers map[string]GeminiServer
	// Prompt is the user's prompt (-p).
	Prompt string
}

// GeminiServer is an MCP server of Gemini CLI's settings.json, over
// Streamable HTTP.
type GeminiServer struct {
	HTTPURL string            `json:"httpUrl"`
	Headers map[string]string `json:"headers,omitempty"`
	// Trust skips the CLI's confirmation of the server's tool calls.
	Trust bool `json:"trust"`
	// Timeout is a request's limit, in milliseconds.
	Timeout int `json:"timeout,omitempty"`
}

// GeminiOutput is what a headless run printed with --output-format json,
// and its exit status.
type GeminiOutput struct {
	// Response is the model's final text.
	Response string          `json:"response"`
	Stats    json.RawMessage `json:"stats"`
	Error    json.RawMessage `json:"error,omitempty"`
	// ExitCode is the CLI's exit status; Stderr, what it wrote there.
	ExitCode int    `json:"-"`
	Stderr   []byte `json:"-"`
}

// geminiBundle returns the path of Gemini CLI's entry point under
// tests/node/node_modules.
func geminiBundle(dir string) string {
	return filepath.Join(dir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js")
}

// Gemini runs Gemini CLI headless as run says, on the Node 22 of
// tests/node, and returns what it printed. It fails the test when the CLI
// cannot be run or prints no JSON document; a run that fails (a model or
// tool error) is the output's, for the test to judge. Call it from the
// test's goroutine.
func Gemini(t testing.TB, run GeminiRun) GeminiOutput {
	t.Helper()
	node := Node(t)
	dir, _ := Dir()
	home, work := t.TempDir(), t.TempDir()
	if run.APIKey == "" {
		run.APIKey = "fake-gemini-key"
	}
	if run.Model == "" {
		run.Model = "gemini-2.5-flash"
	}
	settings := map[string]any{
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"security": map[string]any{
			"auth":        map[string]any{"selectedType": "gemini-api-key"},
			"folderTrust": map[string]any{"enabled": false},
		},
		"mcpServers": run.Servers,
	}
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout(t, defaultTimeout))
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, node, geminiBundle(dir), "-p", run.Prompt, "-m", run.Model, "--yolo", "--output-format", "json")
	cmd.Dir = work
	// Its own environment, not the test's: no proxy, no IDE, no
	// credentials of the machine's.
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + home,
		"GEMINI_API_KEY=" + run.APIKey,
		"GOOGLE_GEMINI_BASE_URL=" + run.ModelURL,
		"GEMINI_CLI_NO_RELAUNCH=1",
		"NO_COLOR=1",
	}
	cmd.Stdin = strings.NewReader("")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	out := GeminiOutput{Stderr: stderr.Bytes()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("gemini: %v (%v)\nstderr:\n%s", ctx.Err(), err, stderr.Bytes())
	case errors.As(err, &exit):
		out.ExitCode = exit.ExitCode()
	case err != nil:
		t.Fatalf("gemini: %v\nstderr:\n%s", err, stderr.Bytes())
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("gemini printed no JSON document (exit %d, %v):\n%s\nstderr:\n%s", out.ExitCode, err, stdout.Bytes(), stderr.Bytes())
	}
	return out
}
