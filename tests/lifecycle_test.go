package tests

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

const closedBody = "mcpdoor: this MCP endpoint is closed (the server is shutting down)\n"

// TestDoorClose: Close ends the live sessions (with their open streams and
// calls in flight), after which the endpoint answers 503, the HTTP door
// still serves, and no goroutine of the door remains.
func TestDoorClose(t *testing.T) {
	before := goleak.IgnoreCurrent()
	for _, m := range []autoexpose.MCPConfig{{Stateful: true}, {Exclusive: true}, {}} {
		name := "stateless"
		switch {
		case m.Exclusive:
			name = "exclusive"
		case m.Stateful:
			name = "stateful"
		}
		t.Run(name, func(t *testing.T) {
			s := newPolicyServer(t, m)
			// A client with the standalone SSE stream open.
			client := mcp.NewClient(&mcp.Implementation{Name: "listener", Version: "1"}, nil)
			cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp", HTTPClient: s.client}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()

			// A call in flight, in a handler that honours its context.
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
				done <- err
			}()
			select {
			case <-s.waiting:
			case err := <-done:
				t.Fatalf("the call ended before it started waiting: %v", err)
			}

			if err := s.door.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the call in flight did not end with Close")
			}
			if how := <-s.ended; how != "cancelled" {
				t.Errorf("the handler in flight was %s, want cancelled", how)
			}
			live := 0
			for range s.mcpServer.Sessions() {
				live++
			}
			if live != 0 {
				t.Errorf("%d sessions live after Close", live)
			}
			for _, sid := range []string{"", cs.ID()} {
				if r := s.rawMCP(t, initializeBody(1), raw{sid: sid}); r.Status != http.StatusServiceUnavailable || string(r.Body) != closedBody {
					t.Errorf("POST /mcp (session %q) after Close: %d %q", sid, r.Status, r.Body)
				}
			}
			if r := s.post("/text", `{}`); r.Status != 200 || string(r.Body) != "hello, world" {
				t.Errorf("POST /text after Close: %d %q", r.Status, r.Body)
			}
			if err := s.door.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			cs.Close()
			s.client.CloseIdleConnections()
			s.srv.Close()
			if err := goleak.Find(before); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestCloseDisabled: Close on the Door of a disabled or degraded config
// does nothing, however often.
func TestCloseDisabled(t *testing.T) {
	off, err := autoexpose.Install(chi.NewRouter(), autoexpose.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.Post("/a/b", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) })
	cfg := fixtureConfig(t)
	cfg.MCP.Degrade = autoexpose.DegradeHTTPOnly
	degraded, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*autoexpose.Door{off, degraded} {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestDegradeServesHTTP: with degrade: http-only, a config the MCP side
// cannot serve leaves the server running over HTTP, with no /mcp, and the
// log says why. The Door serves the router as it is, prefix and all.
func TestDegradeServesHTTP(t *testing.T) {
	var logs bytes.Buffer
	cfg := fixtureConfig(t)
	cfg.MCP.Degrade = autoexpose.DegradeHTTPOnly
	cfg.Logger = newLogger(&logs)
	sessions, _ := cfg.UseSessions()
	f := &fixture{sessions: sessions, state: make(map[string][]string)}
	r := chi.NewRouter()
	f.routes(r)
	r.Post("/reports/daily", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("daily")) })
	door, err := autoexpose.Install(r, cfg)
	if err != nil || len(door.Report()) != 0 || door.Degraded() == nil {
		t.Fatalf("Install: door reports %d routes, degraded %v, err %v", len(door.Report()), door.Degraded(), err)
	}
	s := serve(t, door)
	if got := s.post("/weather", `{"city":"Paris"}`); got.Status != 200 || compactJSON(t, got.Body) != `{"weather":"The weather in Paris is sunny and 72 F."}` {
		t.Errorf("POST /weather: %d %s", got.Status, got.Body)
	}
	if got := s.post("/reports/daily", `{}`); got.Status != 200 || string(got.Body) != "daily" {
		t.Errorf("POST /reports/daily: %d %s", got.Status, got.Body)
	}
	if got := s.rawMCP(t, initializeBody(1), raw{}); got.Status != http.StatusNotFound {
		t.Errorf("POST /mcp: %d %s", got.Status, got.Body)
	}
	if got := s.post("/ng-rollout/r1/weather", `{"city":"Paris"}`); got.Status != http.StatusNotFound || string(got.Body) != "404 page not found\n" {
		t.Errorf("POST /ng-rollout/r1/weather: %d %q; want the router's 404", got.Status, got.Body)
	}
	want := `level=ERROR msg="mcpdoor: serving HTTP only (mcp.degrade: http-only), no MCP endpoint" err="mcpdoor: POST /reports/daily: tool name \"reports/daily\" does not match ^[A-Za-z0-9_-]+$ (a nested route); fix: set mcp.rest to read routes of any depth (an empty block, rest: {}, will do), where this one would be the tool daily_reports; or serve the tool at a top-level path such as /reports_daily; or keep the route off MCP with mcp.exclude: [\"reports/daily\"]"`
	if !strings.Contains(logs.String(), want) {
		t.Errorf("log:\n%s\nwant a line with\n%s", logs.String(), want)
	}
}

// TestWeatherShutdown: SIGINT stops examples/weather cleanly while a
// stateful client holds its stream open: the door, closed as Shutdown
// starts, ends the stream, so Shutdown finishes before its 5s deadline
// and the process exits 0.
func TestWeatherShutdown(t *testing.T) {
	t.Parallel()
	bin := goBuild(t, "./examples/weather")
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-config", filepath.Join(nodeclient.RepoRoot(t), "examples", "weather", "stateful.yaml"))
	cmd.Env = append(cmd.Environ(), "WEATHER_MCP_SECRET=")
	logs, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var log strings.Builder
	addr := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(logs)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if _, a, ok := strings.Cut(sc.Text(), `msg="weather: serving HTTP" addr=`); ok {
				addr <- a
			}
		}
	}()
	var url string
	select {
	case a := <-addr:
		url = "http://" + a + "/mcp"
	case <-done:
		t.Fatalf("weather exited:\n%s", log.String())
	}

	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	client := mcp.NewClient(&mcp.Implementation{Name: "listener", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Rome"}}); err != nil {
		t.Fatal(err)
	}

	cmd.Process.Signal(os.Interrupt)
	<-done
	if err := cmd.Wait(); err != nil {
		t.Errorf("weather exited with %v:\n%s", err, log.String())
	}
}
