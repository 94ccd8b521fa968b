package tests

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// busyMessage is the message of the 409 an exclusive server answers while
// its session is live, with the default idle_timeout.
const busyMessage = "this MCP server is exclusive and another session is live; retry once that session ends " +
	"(its client sends DELETE with its Mcp-Session-Id) or has been idle for 600s (mcp.idle_timeout)"

// busyBody is the whole 409 body for a request with this id.
func busyBody(id, message string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32000,"message":"` + message + `"}}`
}

// policyServer serves the fixture with the given session policy and
// tokenless calls, plus a /wait tool that blocks until release is closed.
// The door closes when the test ends, before the listener does.
type policyServer struct {
	*server
	door    *autoexpose.Door
	release chan struct{}
	waiting chan struct{} // gets a value when /wait starts
	ended   chan string   // then "released", or "cancelled" when its context ended
}

func newPolicyServer(t testing.TB, m autoexpose.MCPConfig) *policyServer {
	t.Helper()
	cfg := fixtureConfig(t)
	secret := cfg.MCP.SessionSecret
	cfg.MCP = m
	cfg.MCP.SessionSecret = secret
	cfg.MCP.RequireToken = autoexpose.Bool(false)
	sessions, err := cfg.UseSessions()
	if err != nil {
		t.Fatal(err)
	}
	p := &policyServer{release: make(chan struct{}), waiting: make(chan struct{}, 1), ended: make(chan string, 1)}
	f := &fixture{sessions: sessions, state: make(map[string][]string)}
	r := chi.NewRouter()
	f.routes(r)
	r.Post("/wait", func(w http.ResponseWriter, r *http.Request) {
		p.waiting <- struct{}{}
		select {
		case <-p.release:
			p.ended <- "released"
			w.Write([]byte("released"))
		case <-r.Context().Done():
			p.ended <- "cancelled"
			http.Error(w, "cancelled", http.StatusServiceUnavailable)
		}
	})
	p.door, err = autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	p.server = serve(t, r)
	t.Cleanup(func() { p.door.Close() })
	return p
}

// initializeBody is an initialize request with this id.
func initializeBody(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, id)
}

// mcpRequest sends a raw request to the MCP endpoint, as a Streamable HTTP
// client would, with a session id when sid is set, and the header's
// name-value pairs.
func (s *server) mcpRequest(method, sid, body string, header ...string) httpResponse {
	s.t.Helper()
	req, err := http.NewRequest(method, s.srv.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatalf("%s /mcp: %v", method, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatalf("%s /mcp: reading body: %v", method, err)
	}
	return httpResponse{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// wantBusy checks a raw response is the exclusive server's 409.
func wantBusy(t testing.TB, r httpResponse, id, message string) {
	t.Helper()
	if r.Status != http.StatusConflict || r.Header.Get("Content-Type") != "application/json" || string(r.Body) != busyBody(id, message) {
		t.Errorf("got %d %q %s\nwant 409 application/json %s", r.Status, r.Header.Get("Content-Type"), r.Body, busyBody(id, message))
	}
}

// connectErr connects a go-sdk client and returns its error.
func (s *server) connectErr() (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "second", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.srv.URL + "/mcp", HTTPClient: s.client, DisableStandaloneSSE: true}, nil)
	if err == nil {
		s.t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// TestExclusiveSecondClient: while one client's session is live, a second
// go-sdk client cannot connect: its initialize gets the 409, whose JSON-RPC
// error the client reports; the first client keeps working.
func TestExclusiveSecondClient(t *testing.T) {
	s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true})
	first := s.connect(mcpOptions{})
	if got := resultJSON(t, call(t, first, "weather", map[string]any{"city": "Paris"})); !strings.Contains(got, "sunny") {
		t.Fatalf("first client's call: %s", got)
	}

	t.Run("raw initialize", func(t *testing.T) {
		wantBusy(t, s.mcpRequest("POST", "", initializeBody(7)), "7", busyMessage)
	})
	t.Run("raw ping without a session", func(t *testing.T) {
		wantBusy(t, s.mcpRequest("POST", "", `{"jsonrpc":"2.0","id":"p-1","method":"ping"}`), `"p-1"`, busyMessage)
	})
	t.Run("notification without a session", func(t *testing.T) {
		wantBusy(t, s.mcpRequest("POST", "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`), "null", busyMessage)
	})
	t.Run("go-sdk client", func(t *testing.T) {
		_, err := s.newClient().connectErr()
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != autoexpose.ExclusiveErrorCode || rpcErr.Message != busyMessage {
			t.Fatalf("second client: %v", err)
		}
		if want := `calling "initialize": sending "initialize": ` + busyMessage + ": rejected by transport: Conflict"; err.Error() != want {
			t.Errorf("the client's error:\n%v\nwant\n%s", err, want)
		}
	})
	if got := resultJSON(t, call(t, first, "weather", map[string]any{"city": "Oslo"})); !strings.Contains(got, "Oslo") {
		t.Errorf("first client after the refusals: %s", got)
	}
}

// TestExclusiveDeleteReleases: the client's DELETE ends its session and
// frees the slot at once.
func TestExclusiveDeleteReleases(t *testing.T) {
	s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true})
	init := s.mcpRequest("POST", "", initializeBody(1))
	sid := init.Header.Get("Mcp-Session-Id")
	if init.Status != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", init.Status, init.Body)
	}
	wantBusy(t, s.mcpRequest("POST", "", initializeBody(2)), "2", busyMessage)
	if del := s.mcpRequest("DELETE", sid, ""); del.Status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", del.Status, del.Body)
	}
	second := s.newClient().connect(mcpOptions{})
	if got := resultJSON(t, call(t, second, "text", nil)); got != `{"content":[{"type":"text","text":"hello, world"}]}` {
		t.Errorf("second client's call: %s", got)
	}
	// A go-sdk client's Close sends the DELETE.
	second.Close()
	third := s.newClient().connect(mcpOptions{})
	if got := resultJSON(t, call(t, third, "text", nil)); got != `{"content":[{"type":"text","text":"hello, world"}]}` {
		t.Errorf("third client's call: %s", got)
	}
}

// TestExclusiveIdleReleases: a session that sends nothing for idle_timeout
// ends and frees the slot, so a crashed client cannot hold the server; a
// call in flight is not idleness.
func TestExclusiveIdleReleases(t *testing.T) {
	// Long enough for the first client to make its call before its session
	// idles out, on a busy machine.
	const idle = time.Second
	s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true, IdleTimeout: idle})
	busy := strings.Replace(busyMessage, "600s", "1s", 1)
	first := s.connect(mcpOptions{})

	// While the first client's call runs, however long, the slot is held.
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := first.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
		done <- outcome{res, err}
	}()
	select {
	case <-s.waiting:
	case o := <-done:
		t.Fatalf("the call ended before it started waiting: %v %v", o.res, o.err)
	}
	time.Sleep(idle * 3 / 2) // longer than the idle timeout, with the call running
	wantBusy(t, s.mcpRequest("POST", "", initializeBody(3)), "3", busy)
	close(s.release)
	if o := <-done; o.err != nil || resultJSON(t, o.res) != `{"content":[{"type":"text","text":"released"}]}` {
		t.Fatalf("the held call: %v %v", o.res, o.err)
	}

	// Then it goes idle, and a new client gets in.
	deadline := time.Now().Add(30 * time.Second)
	var r httpResponse
	for {
		r = s.newClient().mcpRequest("POST", "", initializeBody(4))
		if r.Status != http.StatusConflict || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r.Status != http.StatusOK || r.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize after the idle timeout: %d %s", r.Status, r.Body)
	}
	// The idle session is gone for its client too.
	_, err := first.CallTool(context.Background(), &mcp.CallToolParams{Name: "text", Arguments: map[string]any{}})
	if !errors.Is(err, mcp.ErrSessionMissing) {
		t.Errorf("the idle client's next call: %v, want %v", err, mcp.ErrSessionMissing)
	}
}

// TestExclusiveRace: 50 initializes at the same instant; exactly one gets a
// session, and every other one the 409 for its own id.
func TestExclusiveRace(t *testing.T) {
	s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true})
	const n = 50
	start := make(chan struct{})
	results := make([]httpResponse, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", s.srv.URL+"/mcp", strings.NewReader(initializeBody(i)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			<-start
			resp, err := s.client.Do(req)
			if err != nil {
				t.Errorf("initialize %d: %v", i, err)
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			results[i] = httpResponse{Status: resp.StatusCode, Header: resp.Header, Body: b}
		}()
	}
	close(start)
	wg.Wait()
	var winners []int
	var winner string
	for i, r := range results {
		switch r.Status {
		case http.StatusOK:
			winners = append(winners, i)
			winner = r.Header.Get("Mcp-Session-Id")
		case http.StatusConflict:
			if want := busyBody(fmt.Sprint(i), busyMessage); string(r.Body) != want {
				t.Errorf("initialize %d: %s\nwant %s", i, r.Body, want)
			}
		default:
			t.Errorf("initialize %d: %d %s", i, r.Status, r.Body)
		}
	}
	if len(winners) != 1 || winner == "" {
		t.Fatalf("%d initializes got a session (%v), want exactly 1", len(winners), winners)
	}
	live := 0
	for range s.door.Server().Sessions() {
		live++
	}
	if live != 1 {
		t.Errorf("%d live sessions, want 1", live)
	}
	if del := s.mcpRequest("DELETE", winner, ""); del.Status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", del.Status, del.Body)
	}
	if r := s.mcpRequest("POST", "", initializeBody(n)); r.Status != http.StatusOK {
		t.Errorf("initialize after the winner's DELETE: %d %s", r.Status, r.Body)
	}
}

// TestStatefulSessions: stateful without exclusive serves concurrent
// sessions.
func TestStatefulSessions(t *testing.T) {
	s := newPolicyServer(t, autoexpose.MCPConfig{Stateful: true})
	a, b := s.connect(mcpOptions{}), s.newClient().connect(mcpOptions{})
	if a.ID() == "" || b.ID() == "" || a.ID() == b.ID() {
		t.Fatalf("session ids %q and %q", a.ID(), b.ID())
	}
	for _, cs := range []*mcp.ClientSession{a, b} {
		if got := resultJSON(t, call(t, cs, "text", nil)); got != `{"content":[{"type":"text","text":"hello, world"}]}` {
			t.Errorf("call: %s", got)
		}
	}
}

// TestExclusiveTypeScript: the official TypeScript SDK client sees the
// same: a client that exits without ending its session holds the server; a
// second one is refused with the 409's message; after a DELETE a third one
// connects, and its own DELETE (terminate) frees the server again.
func TestExclusiveTypeScript(t *testing.T) {
	nodeclient.Node(t)
	s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true})
	url := s.srv.URL + "/mcp"

	first := nodeclient.Run(t, nodeclient.Scenario{URL: url, Steps: []nodeclient.Step{nodeclient.Info()}})
	var info struct {
		SessionID string `json:"sessionId"`
	}
	first.Decode(t, 0, &info)
	if info.SessionID == "" {
		t.Fatalf("first client: %s", first.Results[0])
	}

	second := nodeclient.Run(t, nodeclient.Scenario{URL: url, Steps: []nodeclient.Step{nodeclient.Info()}})
	err := second.Err(0)
	wantMsg := "Streamable HTTP error: Error POSTing to endpoint: " + busyBody("0", busyMessage)
	if err == nil || err.Message != wantMsg || string(err.Code) != "409" {
		t.Fatalf("second client: %s\nwant the message %s and code 409", second.Results[0], wantMsg)
	}

	if del := s.mcpRequest("DELETE", info.SessionID, ""); del.Status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", del.Status, del.Body)
	}
	third := nodeclient.Run(t, nodeclient.Scenario{URL: url, Steps: []nodeclient.Step{
		nodeclient.Call("weather", map[string]any{"city": "Lima"}), nodeclient.Terminate(),
	}})
	var res struct {
		StructuredContent map[string]string `json:"structuredContent"`
	}
	third.Decode(t, 0, &res)
	if res.StructuredContent["weather"] != "The weather in Lima is sunny and 72 F." {
		t.Errorf("third client's call: %s", third.Results[0])
	}
	if err := third.Err(1); err != nil {
		t.Errorf("third client's terminate: %v", err)
	}
	if r := s.mcpRequest("POST", "", initializeBody(1)); r.Status != http.StatusOK {
		t.Errorf("initialize after the third client's terminate: %d %s", r.Status, r.Body)
	}
}
