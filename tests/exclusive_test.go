package tests

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
	"github.com/mcpdoor/mcpdoor/token"
)

// busyMessage is the message of the 409 an exclusive server answers while
// its session is live, with the default idle_timeout.
const busyMessage = "this MCP server is exclusive and another session is live; retry once that session ends " +
	"(its client sends DELETE with its Mcp-Session-Id) or has been idle for 600s (mcp.idle_timeout). " +
	"The same rollout (the same X-NeMo-Gym-Session-Token, or the same session cookie) may reconnect at any time: " +
	"it takes the session over unless one of its calls is running"

// busyBody is the whole 409 body for a request with this id.
func busyBody(id, message string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32000,"message":"` + message + `"}}`
}

// policyServer serves the fixture with the given session policy and
// tokenless calls, plus a /wait tool that blocks until release is closed.
// The door closes when the test ends, before the listener does.
type policyServer struct {
	*server
	door      *autoexpose.Door
	mcpServer *mcp.Server // the door's go-sdk server (Config.ExtendServer)
	release   chan struct{}
	waiting   chan struct{} // gets a value when /wait starts
	ended     chan string   // then "released", or "cancelled" when its context ended
	noticed   chan struct{} // gets a value when /wait sees its context end
	// stubborn makes /wait ignore its context, as a handler may: set it
	// before the first request.
	stubborn bool

	calls atomic.Int64  // MCP requests the door is handling
	quiet chan struct{} // gets a value when calls falls to 0

	tokensMu sync.Mutex
	tokens   map[string]string // rolloutToken's, by rollout name
}

func newPolicyServer(t testing.TB, m autoexpose.MCPConfig) *policyServer {
	t.Helper()
	cfg := fixtureConfig(t)
	secret := cfg.MCP.SessionSecret
	cfg.MCP = m
	cfg.MCP.SessionSecret = secret
	cfg.MCP.Rollout.AllowTokenless = true
	sessions, err := cfg.UseSessions()
	if err != nil {
		t.Fatal(err)
	}
	p := &policyServer{release: make(chan struct{}), waiting: make(chan struct{}, 1), ended: make(chan string, 1), noticed: make(chan struct{}, 1), quiet: make(chan struct{}, 1)}
	f := &fixture{sessions: sessions, state: make(map[string][]string)}
	r := chi.NewRouter()
	f.routes(r)
	r.Post("/register", func(w http.ResponseWriter, r *http.Request) {
		if err := session.Save(r, "registered", true); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	r.Post("/wait", func(w http.ResponseWriter, r *http.Request) {
		p.waiting <- struct{}{}
		select {
		case <-p.release:
			p.ended <- "released"
			w.Write([]byte("released"))
		case <-r.Context().Done():
			select {
			case p.noticed <- struct{}{}:
			default:
			}
			if p.stubborn {
				<-p.release
			}
			p.ended <- "cancelled"
			http.Error(w, "cancelled", http.StatusServiceUnavailable)
		}
	})
	cfg.ExtendServer = func(s *mcp.Server) {
		p.mcpServer = s
		// Added after Install's, this middleware is the outermost: a
		// request it sees end has ended in the door too, its slot's count
		// included.
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				p.calls.Add(1)
				defer func() {
					if p.calls.Add(-1) == 0 {
						select {
						case p.quiet <- struct{}{}:
						default:
						}
					}
				}()
				return next(ctx, method, req)
			}
		})
	}
	p.door, err = autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	p.server = serve(t, r)
	t.Cleanup(func() { p.door.Close() })
	return p
}

// waitQuiet waits until the door handles no MCP request: every call it
// was sent has returned, in its session, whether or not its client still
// waits for it. Counting HTTP requests would not do: when a client hangs
// up, the go-sdk ends the call's POST at once and the call runs on.
func (p *policyServer) waitQuiet(t testing.TB) {
	t.Helper()
	for p.calls.Load() != 0 {
		select {
		case <-p.quiet:
		case <-time.After(30 * time.Second):
			t.Fatalf("%d MCP requests still being handled after 30s", p.calls.Load())
		}
	}
}

// wantBusy checks a raw response is the exclusive server's 409.
func wantBusy(t testing.TB, r httpResponse, id, message string) {
	t.Helper()
	if r.Status != http.StatusConflict || r.Header.Get("Content-Type") != "application/json" || string(r.Body) != busyBody(id, message) {
		t.Errorf("got %d %q %s\nwant 409 application/json %s", r.Status, r.Header.Get("Content-Type"), r.Body, busyBody(id, message))
	}
}

// TestExclusiveSecondClient: while one rollout's session is live, a client
// of another rollout cannot connect: its initialize gets the 409, whose
// JSON-RPC error the go-sdk client reports; so does any POST without a
// session from a client that is not the rollout's. The first client keeps
// working.
func TestExclusiveSecondClient(t *testing.T) {
	s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true})
	first := s.connect(mcpOptions{header: http.Header{tokenHeader: {s.rolloutToken(t, "rollout-a")}}})
	if got := resultJSON(t, call(t, first, "weather", map[string]any{"city": "Paris"})); !strings.Contains(got, "sunny") {
		t.Fatalf("first client's call: %s", got)
	}

	t.Run("raw initialize", func(t *testing.T) {
		wantBusy(t, s.newClient().rawMCP(t, initializeBody(7), raw{}), "7", busyMessage)
	})
	t.Run("raw ping without a session", func(t *testing.T) {
		wantBusy(t, s.newClient().rawMCP(t, `{"jsonrpc":"2.0","id":"p-1","method":"ping"}`, raw{}), `"p-1"`, busyMessage)
	})
	t.Run("notification without a session", func(t *testing.T) {
		wantBusy(t, s.newClient().rawMCP(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, raw{}), "null", busyMessage)
	})
	t.Run("go-sdk client", func(t *testing.T) {
		_, err := s.newClient().dial(mcpOptions{header: http.Header{tokenHeader: {s.rolloutToken(t, "rollout-b")}}})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != -32000 || rpcErr.Message != busyMessage {
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
// frees the slot at once, for any rollout.
func TestExclusiveDeleteReleases(t *testing.T) {
	s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true})
	init := s.rawMCP(t, initializeBody(1), raw{header: []string{tokenHeader, s.rolloutToken(t, "rollout-a")}})
	sid := init.Header.Get("Mcp-Session-Id")
	if init.Status != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", init.Status, init.Body)
	}
	wantBusy(t, s.newClient().rawMCP(t, initializeBody(2), raw{}), "2", busyMessage)
	if del := s.rawMCP(t, "", raw{method: "DELETE", sid: sid}); del.Status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", del.Status, del.Body)
	}
	second := s.newClient().connect(mcpOptions{header: http.Header{tokenHeader: {s.rolloutToken(t, "rollout-b")}}})
	if got := resultJSON(t, call(t, second, "text", nil)); got != `{"content":[{"type":"text","text":"hello, world"}]}` {
		t.Errorf("second client's call: %s", got)
	}
	// A go-sdk client's Close sends the DELETE.
	second.Close()
	third := s.newClient().connect(mcpOptions{header: http.Header{tokenHeader: {s.rolloutToken(t, "rollout-c")}}})
	if got := resultJSON(t, call(t, third, "text", nil)); got != `{"content":[{"type":"text","text":"hello, world"}]}` {
		t.Errorf("third client's call: %s", got)
	}
}

// TestExclusiveIdleReleases: a session that sends nothing for idle_timeout
// ends and frees the slot for another rollout, so a crashed client cannot
// hold the server; a call in flight is not idleness.
//
// The idle timer is the go-sdk's own, with no clock to inject: the test
// waits out the idle timeout once, with the call running. It starts at
// 250ms, and doubles it when the machine was too slow to start the call
// before the new session idled out.
func TestExclusiveIdleReleases(t *testing.T) {
	t.Parallel()
	for idle := 250 * time.Millisecond; !idleReleases(t, idle); idle *= 2 {
		if idle >= 8*time.Second {
			t.Fatalf("the session idled out within %v, before its first call started", idle)
		}
		t.Logf("the session idled out within %v, before its first call started; again with twice the idle timeout", idle)
	}
}

// idleReleases is TestExclusiveIdleReleases with this idle timeout. It
// returns false, having checked nothing, when the session ended before its
// call started.
func idleReleases(t *testing.T, idle time.Duration) (started bool) {
	s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true, IdleTimeout: idle})
	busy := strings.Replace(busyMessage, "600s", idle.String(), 1)
	other := s.rolloutToken(t, "rollout-b")
	first, err := s.dial(mcpOptions{header: http.Header{tokenHeader: {s.rolloutToken(t, "rollout-a")}}})
	if err != nil {
		t.Logf("connecting: %v", err)
		return false
	}
	var live *mcp.ServerSession
	for ss := range s.mcpServer.Sessions() {
		live = ss
	}
	if live == nil {
		return false
	}
	gone := make(chan struct{}) // closed when the session has ended
	go func() {
		live.Wait()
		close(gone)
	}()

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
		if errors.Is(o.err, mcp.ErrSessionMissing) {
			return false
		}
		t.Fatalf("the call ended before it started waiting: %v %v", o.res, o.err)
	}
	select {
	case <-gone:
		t.Fatalf("the session ended while its call was running")
	case <-time.After(idle * 3 / 2): // longer than the idle timeout
	}
	wantBusy(t, s.rawMCP(t, initializeBody(3), raw{header: []string{tokenHeader, other}}), "3", busy)
	close(s.release)
	if o := <-done; o.err != nil || resultJSON(t, o.res) != `{"content":[{"type":"text","text":"released"}]}` {
		t.Fatalf("the held call: %v %v", o.res, o.err)
	}

	// Then it goes idle and ends, and a new client gets in.
	select {
	case <-gone:
	case <-time.After(30 * time.Second):
		t.Fatalf("the session was still live 30s after its call, with an idle timeout of %v", idle)
	}
	if r := s.newClient().rawMCP(t, initializeBody(4), raw{header: []string{tokenHeader, other}}); r.Status != http.StatusOK || r.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize after the idle timeout: %d %s", r.Status, r.Body)
	}
	// The idle session is gone for its client too. The go-sdk answers a
	// request of an ended session with 404 (session not found), or, in the
	// moment between the session's end and its leaving the handler's table,
	// serves it to the closed session, whose stream ends with no response:
	// either way the call fails.
	_, err = first.CallTool(context.Background(), &mcp.CallToolParams{Name: "text", Arguments: map[string]any{}})
	if !errors.Is(err, mcp.ErrSessionMissing) && (err == nil || !strings.Contains(err.Error(), "request terminated without response")) {
		t.Errorf("the idle client's next call: %v, want %v (or the go-sdk's \"request terminated without response\")", err, mcp.ErrSessionMissing)
	}
	return true
}

// raceInitializes sends n initializes at the same instant, initialize i
// with the token header tokens(i) and in spelling i%4 of the go-sdk's
// initialize (plain, a key in other case, a batch, trailing bytes), and
// returns the responses.
func (s *server) raceInitializes(t *testing.T, n int, tokens func(i int) string) []httpResponse {
	start := make(chan struct{})
	results := make([]httpResponse, n)
	var wg sync.WaitGroup
	for i := range n {
		body := initializeBody(i)
		switch i % 4 {
		case 1:
			body = strings.Replace(body, `"method":"initialize"`, `"method":"initialize","METHOD":"ping"`, 1)
		case 2:
			body = "[" + body + "]"
		case 3:
			body += " x"
		}
		header := []string{tokenHeader, tokens(i)}
		wg.Go(func() {
			<-start
			var err error
			results[i] = s.rawMCP(t, body, raw{header: header, err: &err})
			if err != nil {
				t.Errorf("initialize %d: %v", i, err)
			}
		})
	}
	close(start)
	wg.Wait()
	return results
}

// raceID is the id the 409 gives back to initialize i of raceInitializes:
// its own, or null where encoding/json does not read the body as one
// request (the batch, the trailing bytes).
func raceID(i int) string {
	if i%4 >= 2 {
		return "null"
	}
	return fmt.Sprint(i)
}

// TestExclusiveRace: 50 rollouts' initializes at the same instant, however
// spelled; exactly one gets a session, and every other one the 409 for its
// own id.
func TestExclusiveRace(t *testing.T) {
	s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true})
	const n = 50
	results := s.raceInitializes(t, n, func(i int) string { return s.rolloutToken(t, fmt.Sprint("rollout-", i)) })
	var winners []int
	var winner string
	for i, r := range results {
		switch r.Status {
		case http.StatusOK:
			winners = append(winners, i)
			winner = r.Header.Get("Mcp-Session-Id")
		case http.StatusConflict:
			if want := busyBody(raceID(i), busyMessage); string(r.Body) != want {
				t.Errorf("initialize %d: %s\nwant %s", i, r.Body, want)
			}
		default:
			t.Errorf("initialize %d: %d %s", i, r.Status, r.Body)
		}
	}
	if len(winners) != 1 || winner == "" {
		t.Fatalf("%d initializes got a session (%v), want exactly 1", len(winners), winners)
	}
	if live := s.liveSessions(); len(live) != 1 || live[0] != winner {
		t.Errorf("live sessions %v, want the winner's %s", live, winner)
	}
	if del := s.rawMCP(t, "", raw{method: "DELETE", sid: winner}); del.Status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", del.Status, del.Body)
	}
	if r := s.rawMCP(t, initializeBody(n), raw{}); r.Status != http.StatusOK {
		t.Errorf("initialize after the winner's DELETE: %d %s", r.Status, r.Body)
	}
}

// TestExclusiveRaceSameRollout: 20 initializes of one rollout at the same
// instant. Each one may take the session over from the one before, but
// never are two sessions live: at the end one is, and it is the session of
// an initialize that succeeded.
func TestExclusiveRaceSameRollout(t *testing.T) {
	s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true})
	tok := s.rolloutToken(t, "one-rollout")
	results := s.raceInitializes(t, 20, func(int) string { return tok })
	won := map[string]bool{}
	for i, r := range results {
		switch r.Status {
		case http.StatusOK:
			won[r.Header.Get("Mcp-Session-Id")] = true
		case http.StatusConflict:
			if want := busyBody(raceID(i), busyMessage); string(r.Body) != want {
				t.Errorf("initialize %d: %s\nwant %s", i, r.Body, want)
			}
		default:
			t.Errorf("initialize %d: %d %s", i, r.Status, r.Body)
		}
	}
	if live := s.liveSessions(); len(live) != 1 || !won[live[0]] {
		t.Errorf("live sessions %v, want one of the winners' %v", live, won)
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
// client of another rollout is refused with the 409's message; a client of
// the same rollout reconnects and takes the session over; after a DELETE a
// third rollout's client connects, and its own DELETE (terminate) frees the
// server again.
func TestExclusiveTypeScript(t *testing.T) {
	t.Parallel()
	nodeclient.Node(t)
	s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true})
	url := s.url + "/mcp"
	rollout := func(sid string) map[string]string { return map[string]string{tokenHeader: s.rolloutToken(t, sid)} }
	var info struct {
		SessionID string `json:"sessionId"`
	}
	var res struct {
		StructuredContent map[string]string `json:"structuredContent"`
	}

	first := nodeclient.Run(t, nodeclient.Scenario{URL: url, Headers: rollout("rollout-a"), Steps: []nodeclient.Step{nodeclient.Info()}})
	first.Decode(t, 0, &info)
	if info.SessionID == "" {
		t.Fatalf("first client: %s", first.Results[0])
	}

	second := nodeclient.Run(t, nodeclient.Scenario{URL: url, Headers: rollout("rollout-b"), Steps: []nodeclient.Step{nodeclient.Info()}})
	err := second.Err(0)
	wantMsg := "Streamable HTTP error: Error POSTing to endpoint: " + busyBody("0", busyMessage)
	if err == nil || err.Message != wantMsg || string(err.Code) != "409" {
		t.Fatalf("second client: %s\nwant the message %s and code 409", second.Results[0], wantMsg)
	}

	again := nodeclient.Run(t, nodeclient.Scenario{URL: url, Headers: rollout("rollout-a"), Steps: []nodeclient.Step{
		nodeclient.Info(), nodeclient.Call("weather", map[string]any{"city": "Quito"}),
	}})
	again.Decode(t, 0, &info)
	again.Decode(t, 1, &res)
	if res.StructuredContent["weather"] != "The weather in Quito is sunny and 72 F." {
		t.Errorf("the reconnected client's call: %s", again.Results[1])
	}
	if live := s.liveSessions(); len(live) != 1 || live[0] != info.SessionID {
		t.Errorf("live sessions %v, want the reconnected client's %s", live, info.SessionID)
	}

	if del := s.rawMCP(t, "", raw{method: "DELETE", sid: info.SessionID}); del.Status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", del.Status, del.Body)
	}
	third := nodeclient.Run(t, nodeclient.Scenario{URL: url, Headers: rollout("rollout-c"), Steps: []nodeclient.Step{
		nodeclient.Call("weather", map[string]any{"city": "Lima"}), nodeclient.Terminate(),
	}})
	third.Decode(t, 0, &res)
	if res.StructuredContent["weather"] != "The weather in Lima is sunny and 72 F." {
		t.Errorf("third client's call: %s", third.Results[0])
	}
	if err := third.Err(1); err != nil {
		t.Errorf("third client's terminate: %v", err)
	}
	if r := s.rawMCP(t, initializeBody(1), raw{}); r.Status != http.StatusOK {
		t.Errorf("initialize after the third client's terminate: %d %s", r.Status, r.Body)
	}
}

// rolloutToken returns the session token of rollout name, for a session
// the door holds: a harness's own token for a session the fixture's
// session middleware made on an HTTP call, which registered it by saving
// in it. The same name gives the same session's token.
func (p *policyServer) rolloutToken(t testing.TB, name string) string {
	t.Helper()
	p.tokensMu.Lock()
	defer p.tokensMu.Unlock()
	if tok, ok := p.tokens[name]; ok {
		return tok
	}
	r := p.newClient().post("/register", `{}`)
	sid, err := cookieSID(t, r.Header.Get("Set-Cookie"))
	if err != nil {
		t.Fatalf("/register set no session cookie: %v (%d %s)", err, r.Status, r.Body)
	}
	tok, err := token.NewCodec("fixture", testKeys(t), 0).Mint(token.Payload{SID: sid})
	if err != nil {
		t.Fatal(err)
	}
	if p.tokens == nil {
		p.tokens = map[string]string{}
	}
	p.tokens[name] = tok
	return tok
}

// liveSessions returns the ids of the door's live sessions.
func (p *policyServer) liveSessions() []string {
	var ids []string
	for ss := range p.mcpServer.Sessions() {
		ids = append(ids, ss.ID())
	}
	return ids
}

// TestExclusiveBypass: every POST without a session that the go-sdk turns
// into a session holds the slot, however it is written: the go-sdk reads
// keys case-sensitively, takes batches for the older protocols and ignores
// what follows the message, where encoding/json does not. Another rollout's
// initialize then gets the 409, and one session is live. (Each POST carries
// its rollout's token: a session opened without one, a valid token takes
// over.)
func TestExclusiveBypass(t *testing.T) {
	const params = `"params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize",` + params + `}`
	for _, c := range []struct {
		name   string
		body   string
		header []string
		opens  bool
	}{
		{"initialize", initialize, nil, true},
		{"a key in other case", `{"jsonrpc":"2.0","id":1,"method":"initialize","METHOD":"ping",` + params + `}`, nil, true},
		{"duplicate key", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"initialize",` + params + `}`, nil, true},
		{"duplicate key, the last one a ping", `{"jsonrpc":"2.0","id":1,"method":"initialize","method":"ping",` + params + `}`, nil, false},
		{"batch", `[` + initialize + `]`, nil, true},
		{"batch with initialized", `[` + initialize + `,{"jsonrpc":"2.0","method":"notifications/initialized"}]`, nil, true},
		{"batch, 2025-03-26", `[` + initialize + `]`, []string{"Mcp-Protocol-Version", "2025-03-26"}, true},
		{"batch, 2025-11-25", `[` + initialize + `]`, []string{"Mcp-Protocol-Version", "2025-11-25"}, false},
		{"trailing bytes", initialize + ` x`, nil, true},
		{"trailing message", initialize + `{"jsonrpc":"2.0","id":2,"method":"ping"}`, nil, true},
		{"2026-07-28 header", initialize, []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "initialize"}, false},
		{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true})
			first := s.rawMCP(t, c.body, raw{header: append([]string{tokenHeader, s.rolloutToken(t, "first")}, c.header...)})
			sid := first.Header.Get("Mcp-Session-Id")
			if opened := sid != "" && slices.Contains(s.liveSessions(), sid); opened != c.opens {
				t.Fatalf("the POST opened a session: %v, want %v (%d %s)", opened, c.opens, first.Status, first.Body)
			}
			second := s.newClient().rawMCP(t, initializeBody(2), raw{header: []string{tokenHeader, s.rolloutToken(t, "other")}})
			if c.opens {
				wantBusy(t, second, "2", busyMessage)
			} else if second.Status != http.StatusOK {
				t.Errorf("initialize after the POST: %d %s", second.Status, second.Body)
			}
			if live := s.liveSessions(); len(live) != 1 {
				t.Errorf("%d live sessions %v, want 1", len(live), live)
			}
		})
	}
}

// abandonable connects a go-sdk client over its own HTTP transport, with
// header on every request and the cookies of jar (nil: none), and returns
// the session and a func that abandons it as a client that dies without
// DELETE would: every connection it has open closes, requests in flight
// included, and its session is left live.
func (s *server) abandonable(header http.Header, jar http.CookieJar) (*mcp.ClientSession, func()) {
	s.t.Helper()
	var mu sync.Mutex
	var conns []net.Conn
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
		return c, err
	}}
	abandon := func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
		conns = nil
		tr.CloseIdleConnections()
	}
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second, Transport: &headerTransport{base: tr, header: header}}
	client := mcp.NewClient(&mcp.Implementation{Name: "abandoned", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		s.t.Fatalf("connecting: %v", err)
	}
	s.t.Cleanup(func() {
		cs.Close()
		abandon()
	})
	return cs, abandon
}

// TestExclusiveReconnect: an agent whose client exits without DELETE does
// not lock its own rollout out for idle_timeout. A client with the same
// token takes the idle session over at once, and sees the rollout's state;
// the abandoned session is gone. Another rollout, or an invalid token,
// still gets the 409; and a session with a call running is not taken over.
func TestExclusiveReconnect(t *testing.T) {
	s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true})
	tok := s.rolloutToken(t, "rollout-a")
	header := http.Header{tokenHeader: {tok}}

	first, abandon := s.abandonable(header, nil)
	if got := resultJSON(t, call(t, first, "weather", map[string]any{"city": "Paris"})); !strings.Contains(got, "Paris") {
		t.Fatalf("first client's call: %s", got)
	}
	abandon()

	second := s.newClient().connect(mcpOptions{header: header})
	if got, want := resultJSON(t, call(t, second, "history", nil)),
		`{"content":[{"type":"text","text":"{\"history\":[\"Paris\"]}"}],"structuredContent":{"history":["Paris"]}}`; got != want {
		t.Errorf("the reconnected client's call:\n%s\nwant\n%s", got, want)
	}
	if live := s.liveSessions(); len(live) != 1 || live[0] != second.ID() {
		t.Errorf("live sessions %v, want the second client's %s", live, second.ID())
	}
	if _, err := first.CallTool(t.Context(), &mcp.CallToolParams{Name: "text", Arguments: map[string]any{}}); !errors.Is(err, mcp.ErrSessionMissing) {
		t.Errorf("the abandoned client's next call: %v, want %v", err, mcp.ErrSessionMissing)
	}

	t.Run("another rollout", func(t *testing.T) {
		wantBusy(t, s.newClient().rawMCP(t, initializeBody(5), raw{header: []string{tokenHeader, s.rolloutToken(t, "rollout-b")}}), "5", busyMessage)
	})
	t.Run("an invalid token", func(t *testing.T) {
		wantBusy(t, s.newClient().rawMCP(t, initializeBody(6), raw{header: []string{tokenHeader, "garbage"}}), "6", busyMessage)
	})
	t.Run("no token", func(t *testing.T) {
		wantBusy(t, s.newClient().rawMCP(t, initializeBody(7), raw{}), "7", busyMessage)
	})

	t.Run("a call running", func(t *testing.T) {
		done := make(chan error, 1)
		go func() {
			_, err := second.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
			done <- err
		}()
		select {
		case <-s.waiting:
		case err := <-done:
			t.Fatalf("the call ended before it started waiting: %v", err)
		}
		wantBusy(t, s.newClient().rawMCP(t, initializeBody(8), raw{header: []string{tokenHeader, tok}}), "8", busyMessage)
		close(s.release)
		if err := <-done; err != nil {
			t.Fatalf("the running call: %v", err)
		}
		// Once the call has returned, the same rollout takes over.
		third := s.newClient().connect(mcpOptions{header: header})
		if got := resultJSON(t, call(t, third, "text", nil)); got != `{"content":[{"type":"text","text":"hello, world"}]}` {
			t.Errorf("third client's call: %s", got)
		}
		if live := s.liveSessions(); len(live) != 1 || live[0] != third.ID() {
			t.Errorf("live sessions %v, want the third client's %s", live, third.ID())
		}
	})
}

// TestExclusiveReconnectTokenless: without a token, the session cookie is
// the rollout: a client with the same cookie takes the idle session over,
// one with another cookie or none gets the 409. Clients with neither are
// all the one local user, and take over from each other.
func TestExclusiveReconnectTokenless(t *testing.T) {
	t.Run("cookie", func(t *testing.T) {
		s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true})
		agent := s.newClient()
		if r := agent.post("/weather", `{"city":"Oslo"}`); r.Status != 200 {
			t.Fatalf("POST /weather: %d %s", r.Status, r.Body)
		}
		_, abandon := s.abandonable(nil, agent.client.Jar)
		abandon()

		other := s.newClient()
		other.post("/text", `{}`)
		wantBusy(t, other.rawMCP(t, initializeBody(2), raw{}), "2", busyMessage)
		wantBusy(t, s.newClient().rawMCP(t, initializeBody(3), raw{}), "3", busyMessage)

		again := agent.connect(mcpOptions{})
		if got, want := resultJSON(t, call(t, again, "history", nil)),
			`{"content":[{"type":"text","text":"{\"history\":[\"Oslo\"]}"}],"structuredContent":{"history":["Oslo"]}}`; got != want {
			t.Errorf("the reconnected client's call:\n%s\nwant\n%s", got, want)
		}
		if live := s.liveSessions(); len(live) != 1 || live[0] != again.ID() {
			t.Errorf("live sessions %v, want the reconnected client's %s", live, again.ID())
		}
	})
	t.Run("local", func(t *testing.T) {
		s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true})
		_, abandon := s.abandonable(nil, nil)
		abandon()
		again, _ := s.abandonable(nil, nil)
		if live := s.liveSessions(); len(live) != 1 || live[0] != again.ID() {
			t.Errorf("live sessions %v, want the new client's %s", live, again.ID())
		}
	})
}

// TestExclusiveReconnectCallRunning: a client that dies while its call runs
// in a handler that ignores its context leaves the call running in its
// session; its rollout's reconnect gets the 409 until the call has returned
// (ending the session would wait for it), and then takes the session over.
func TestExclusiveReconnectCallRunning(t *testing.T) {
	s := newPolicyServer(t, autoexpose.MCPConfig{Exclusive: true})
	s.stubborn = true
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(s.release) }) }) // a failed test does not leave the handler waiting
	tok := s.rolloutToken(t, "rollout-a")
	header := http.Header{tokenHeader: {tok}}
	first, abandon := s.abandonable(header, nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		first.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
	}()
	<-s.waiting
	abandon()
	<-done // the client has given up on the call; the server runs it still

	wantBusy(t, s.newClient().rawMCP(t, initializeBody(2), raw{header: []string{tokenHeader, tok}}), "2", busyMessage)
	select { // the handler has seen its connection end, and waits for release
	case <-s.noticed:
	case <-time.After(30 * time.Second):
		t.Fatal("the handler's context did not end with its connection")
	}
	release.Do(func() { close(s.release) })
	if how := <-s.ended; how != "cancelled" {
		t.Fatalf("the running call was %s, want cancelled (by its connection's end)", how)
	}
	// The call's last steps (the route's answer made a result, which goes
	// nowhere) end a moment after the handler returns: until they have, the
	// call runs, and the reconnect would rightly get the 409.
	s.waitQuiet(t)
	r := s.newClient().rawMCP(t, initializeBody(3), raw{header: []string{tokenHeader, tok}})
	sid := r.Header.Get("Mcp-Session-Id")
	if r.Status != http.StatusOK || sid == "" {
		t.Fatalf("the reconnect after the call returned: %d %s", r.Status, r.Body)
	}
	if live := s.liveSessions(); len(live) != 1 || live[0] != sid {
		t.Errorf("live sessions %v, want the reconnect's %s", live, sid)
	}
}
