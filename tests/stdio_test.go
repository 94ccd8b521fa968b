package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// strayLines are what the stdio fixture's echo handler prints to standard
// output, which must reach standard error instead.
var strayLines = []string{
	"stray fmt.Println from the echo handler: hi",
	"stray os.Stdout write from the echo handler",
	"stray write to file descriptor 1 from the echo handler",
}

// wantStray checks that every stray line reached standard error.
func wantStray(t *testing.T, stderr string) {
	t.Helper()
	for _, line := range strayLines {
		if !strings.Contains(stderr, line+"\n") {
			t.Errorf("standard error lacks %q:\n%s", line, stderr)
		}
	}
}

// TestStdioStream drives the stdio fixture over raw pipes: standard output
// carries the JSON-RPC messages and nothing else while it serves (what the
// handler prints goes to standard error), and is the process's own again
// once ServeStdio returns.
func TestStdioStream(t *testing.T) {
	t.Parallel()
	bin := goBuild(t, "./tests/testdata/stdioserver")
	cmd := exec.Command(bin)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	exchange := func(send, wantPrefix string) string {
		t.Helper()
		io.WriteString(stdin, send+"\n")
		if !lines.Scan() {
			t.Fatalf("no answer to %s (stderr: %s)", send, stderr.String())
		}
		got := lines.Text()
		if !strings.HasPrefix(got, wantPrefix) {
			t.Fatalf("answer to %s:\n%s\nwant a line starting with\n%s", send, got, wantPrefix)
		}
		return got
	}
	init := exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"logging":{},"tools":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"stdio_fixture","version":`)
	if !json.Valid([]byte(init)) {
		t.Errorf("initialize result is not JSON: %s", init)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	call := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"echo\":\"hi\",\"session\":true}"}],"structuredContent":{"echo":"hi","session":true}}}`
	if got := exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, call); got != call {
		t.Errorf("tools/call:\n%s\nwant\n%s", got, call)
	}
	quiet := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"shh"}]}}`
	if got := exchange(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"quiet"}}`, quiet); got != quiet {
		t.Errorf("tools/call:\n%s\nwant\n%s", got, quiet)
	}
	stdin.Close() // the client ends the session
	var rest []string
	for lines.Scan() {
		rest = append(rest, lines.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("stdioserver: %v\n%s", err, stderr.String())
	}
	if diff := cmp.Diff([]string{"stdioserver: done"}, rest); diff != "" {
		t.Errorf("standard output after ServeStdio returned, the process's own line only (-want +got):\n%s", diff)
	}
	wantStray(t, stderr.String())
}

// TestStdioGoClient drives the stdio fixture with the go-sdk's
// CommandTransport.
func TestStdioGoClient(t *testing.T) {
	t.Parallel()
	bin := goBuild(t, "./tests/testdata/stdioserver")
	cmd := exec.Command(bin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs := connectCommand(t, cmd)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if diff := cmp.Diff([]string{"echo", "quiet"}, names); diff != "" {
		t.Errorf("tools/list (-want +got):\n%s", diff)
	} else if tools.Tools[0].Description != "Echo the text, after printing to standard output." {
		t.Errorf("echo's description: %q", tools.Tools[0].Description)
	}
	for range 3 { // the stream survives every stray print
		if got := resultJSON(t, call(t, cs, "echo", map[string]any{"text": "hi"})); got != `{"content":[{"type":"text","text":"{\"echo\":\"hi\",\"session\":true}"}],"structuredContent":{"echo":"hi","session":true}}` {
			t.Errorf("echo: %s", got)
		}
	}
	if got := resultJSON(t, call(t, cs, "quiet", nil)); got != `{"content":[{"type":"text","text":"shh"}]}` {
		t.Errorf("quiet: %s", got)
	}
	if err := cs.Close(); err != nil { // closes stdin, waits for the process
		t.Errorf("close: %v\n%s", err, stderr.String())
	}
	wantStray(t, stderr.String())
}

// connectCommand starts cmd and connects a go-sdk client to it over stdio.
func connectCommand(t *testing.T, cmd *exec.Cmd) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpdoor-tests", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", cmd.Path, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestStdioTypeScript drives the stdio fixture with the official
// TypeScript SDK's stdio client.
func TestStdioTypeScript(t *testing.T) {
	t.Parallel()
	nodeclient.Node(t)
	bin := goBuild(t, "./tests/testdata/stdioserver")
	out := nodeclient.Run(t, nodeclient.Scenario{Command: bin, Steps: []nodeclient.Step{
		nodeclient.List(),
		nodeclient.Call("echo", map[string]any{"text": "hi"}),
		nodeclient.Call("quiet", nil),
	}})
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	out.Decode(t, 0, &list)
	want := []struct {
		Name string `json:"name"`
	}{{"echo"}, {"quiet"}}
	if diff := cmp.Diff(want, list.Tools); diff != "" {
		t.Errorf("tools/list (-want +got):\n%s", diff)
	}
	for i, want := range []string{
		`{"content":[{"type":"text","text":"{\"echo\":\"hi\",\"session\":true}"}],"structuredContent":{"echo":"hi","session":true}}`,
		`{"content":[{"type":"text","text":"shh"}]}`,
	} {
		if got := string(out.Results[i+1]); got != want {
			t.Errorf("call %d: %s\nwant %s", i, got, want)
		}
	}
	wantStray(t, string(out.Stderr))
}

// TestWeatherStdio: `weather -stdio`, what `claude mcp add weather -- go run
// ./examples/weather -stdio` starts, serves its tools over stdio.
func TestWeatherStdio(t *testing.T) {
	t.Parallel()
	bin := goBuild(t, "./examples/weather")
	cmd := exec.Command(bin, "-stdio")
	cmd.Env = append(cmd.Environ(), "WEATHER_MCP_SECRET=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs := connectCommand(t, cmd)
	if got := cs.InitializeResult().ServerInfo.Name; got != "example_mcp_weather" {
		t.Errorf("server name %q", got)
	}
	if got := resultJSON(t, call(t, cs, "get_weather", map[string]any{"city": "Paris"})); got != `{"content":[{"type":"text","text":"{\"weather\":\"The weather in Paris is sunny and 72 F.\"}"}],"structuredContent":{"weather":"The weather in Paris is sunny and 72 F."}}` {
		t.Errorf("get_weather: %s", got)
	}
	// The implicit local session keeps state between calls.
	call(t, cs, "get_weather", map[string]any{"city": "Lima"})
	if got := resultJSON(t, call(t, cs, "list_cities", nil)); got != `{"content":[{"type":"text","text":"{\"cities\":[\"Paris\",\"Lima\"]}"}],"structuredContent":{"cities":["Paris","Lima"]}}` {
		t.Errorf("list_cities: %s", got)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), `msg="mcpdoor: serving MCP over stdio" server=example_mcp_weather tools=3`) {
		t.Errorf("weather's log:\n%s", stderr.String())
	}
}
