package autoexpose

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
)

// sentHeader tells stallingServer how many bytes of its body a stalling
// client has sent.
const sentHeader = "X-Test-Sent"

// A stalling server serves a handler on a real listener, for clients
// that send part of a body and stall.
type stalling struct {
	*httptest.Server
	tb testing.TB

	mu      sync.Mutex
	waiting map[string]chan struct{} // by the request's sentHeader's id
	next    int
	read    int64 // stalled bodies the server read all that was sent of
	conns   []net.Conn
	closers []func() // of what it serves, once the clients are gone
}

// stallingServer serves h on a real listener until the test ends, or
// Close.
// discardLog is a logger that logs nothing.
var discardLog = slog.New(slog.DiscardHandler)

func stallingServer(tb testing.TB, h http.Handler) *stalling {
	tb.Helper()
	s := &stalling{tb: tb, waiting: make(map[string]chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get(sentHeader); v != "" {
			sent, id, _ := strings.Cut(v, " ")
			n, _ := strconv.Atoi(sent)
			s.mu.Lock()
			ch := s.waiting[id]
			s.mu.Unlock()
			var once sync.Once
			r = r.WithContext(r.Context()) // net/http looks at its own request's body once the handler returns
			r.Body = &stalledBody{ReadCloser: r.Body, sent: n, waiting: func() {
				once.Do(func() {
					s.mu.Lock()
					s.read++
					s.mu.Unlock()
					close(ch)
				})
			}}
			defer once.Do(func() { close(ch) })
		}
		h.ServeHTTP(w, r)
	}))
	tb.Cleanup(s.Close)
	return s
}

// Close closes the clients' connections, the server, and what it serves.
func (s *stalling) Close() {
	s.mu.Lock()
	conns, closers := s.conns, s.closers
	s.conns, s.closers = nil, nil
	s.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	s.Server.Close()
	for _, c := range closers {
		c()
	}
}

// admitted returns how many stalled bodies the server has read all that
// was sent of (the others it refused first).
func (s *stalling) admitted() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read
}

// stall sends a POST to path that declares a body of declared bytes and
// sends only part of it, and returns once the server has read all of part
// and waits for more (or has answered without reading it all): the moment
// a server that reads into a buffer has made it. The connection stays open
// until Close.
func (s *stalling) stall(path string, declared int, part string) net.Conn {
	s.tb.Helper()
	s.mu.Lock()
	s.next++
	id := strconv.Itoa(s.next)
	ch := make(chan struct{})
	s.waiting[id] = ch
	s.mu.Unlock()
	conn, err := net.Dial("tcp", s.Listener.Addr().String())
	if err != nil {
		s.tb.Fatal(err)
	}
	s.mu.Lock()
	s.conns = append(s.conns, conn)
	s.mu.Unlock()
	conn.SetDeadline(time.Now().Add(2 * time.Minute))
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-11-25\r\n%s: %d %s\r\nContent-Length: %d\r\n\r\n",
		path, s.Listener.Addr(), sentHeader, len(part), id, declared)
	// A write the server cut short (it refused the body) still waits for
	// the answer.
	io.WriteString(conn, head+part)
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		s.tb.Fatalf("the server did not read the %d bytes sent to %s within 30s", len(part), path)
	}
	return conn
}

// readAnswer reads the response on conn, within wait: its status line and
// body, or the error that ended the wait.
func readAnswer(conn net.Conn, wait time.Duration) (status int, body string, err error) {
	conn.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// TestExclusiveStalledSeed: a /seed_session that declares a megabyte,
// sends 6 bytes and stalls holds nothing of an exclusive server: while it
// stalls, /mcp/ready says the server takes a rollout, and another seed is
// answered 200 with a token. It made /mcp/ready and every seed answer 503
// for as long as its connection stayed open.
func TestExclusiveStalledSeed(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
	door, err := Install(r, enabled(MCPConfig{Exclusive: true, SessionSecret: []string{"a test secret of at least thirty-two bytes"}}))
	if err != nil {
		t.Fatal(err)
	}
	srv := stallingServer(t, r)
	srv.closers = append(srv.closers, func() { door.Close() })
	srv.stall("/seed_session", 1<<20, `{"row"`)

	const free = "ready: this server takes a new rollout\n"
	if status, retry, body := getReady(t, srv.URL); status != http.StatusOK || body != free {
		t.Errorf("/mcp/ready while a seed's body stalls: %d, Retry-After %q, %q; want 200 %q", status, retry, body, free)
	}
	if status, retry, body, _, tok := seedAt(t, srv.URL, nil); status != http.StatusOK || tok == "" {
		t.Errorf("a seed while another seed's body stalls: %d, Retry-After %q, %q; want 200 and a token", status, retry, body)
	}
	// The seed that came whole holds the slot, as it did.
	if status, _, _ := getReady(t, srv.URL); status != http.StatusServiceUnavailable {
		t.Errorf("/mcp/ready after a seed: %d, want 503", status)
	}
}

// rolloutDoor installs a rollout door with the mcp block yaml (after its
// secret) on rolloutRouter, with the echo tool, and serves it with
// stallingServer.
func rolloutDoor(tb testing.TB, yaml string) *stalling {
	tb.Helper()
	cfg, err := ParseConfig([]byte("name: test\nexpose_tools_over_mcp: true\nmcp:\n  session_secret: \"a test secret of at least thirty-two bytes\"\n" + yaml))
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Logger = discardLog
	r := rolloutRouter(func(r chi.Router) {
		r.Method(http.MethodPost, "/echo", Handler(func(_ context.Context, _ *http.Request, in echoText) (echoText, error) { return in, nil }))
	})
	door, err := Install(r, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	s := stallingServer(tb, r)
	s.closers = append(s.closers, func() { door.Close() })
	return s
}

// rowPart is the first n bytes of a dataset row, as a stalled upload sends
// them.
func rowPart(n int) string {
	const head = `{"responses_create_params":{"input":"`
	return head + strings.Repeat("x", n-len(head))
}

// TestStalledRolloutBodiesMemory: 4 clients each declare a 16 MiB body to
// /seed_session or /verify, send a quarter of it and stall. While they
// stall, the server holds at most twice what they sent, net/http's buffers
// included (and a few KiB a connection). A /verify held the whole declared
// length once a quarter had come: four times what was sent.
func TestStalledRolloutBodiesMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("heap figures under the race detector mean little")
	}
	const (
		conns    = 4
		declared = 16 << 20
		sent     = declared / 4
	)
	for _, path := range []string{"/seed_session", "/verify"} {
		t.Run(path, func(t *testing.T) {
			srv := rolloutDoor(t, "")
			part := rowPart(sent)
			before := heapInUse()
			for range conns {
				srv.stall(path, declared, part)
			}
			grown := heapInUse() - before
			perConn := grown / conns
			t.Logf("%d stalled uploads to %s, %d MiB sent and %d MiB declared each: heap +%.1f MiB, %.2f times what was sent",
				conns, path, sent>>20, declared>>20, float64(grown)/(1<<20), float64(perConn)/sent)
			if limit := int64(2*sent + 64<<10); perConn > limit {
				t.Errorf("the server holds %.1f MiB per stalled upload to %s, %.2f times the %d MiB sent (and %d MiB declared); want at most twice, and 64 KiB",
					float64(perConn)/(1<<20), path, float64(perConn)/sent, sent>>20, declared>>20)
			}
		})
	}
}

// budgetBlock is a door whose request bodies may hold 32 MiB at once, with
// seed and verify bodies of up to 8 MiB each.
const budgetBlock = "  max_body_memory: 33554432\n  rollout:\n    max_seed_bytes: 8388608\n    max_verify_bytes: 8388608\n"

// TestBodyBudget: the request bodies a server holds at once are bounded
// by mcp.max_body_memory, 32 MiB here. While three /verify uploads of 8 MiB
// stall past half their length (24 MiB held), a fourth one, which may need
// 12 MiB to be read, and a seed of 8 MiB, are answered 503 with
// Retry-After before any of their body is read; a small MCP request is
// still served. Once the stalled uploads go away, an 8 MiB seed is served.
func TestBodyBudget(t *testing.T) {
	srv := rolloutDoor(t, budgetBlock)
	const declared = 8 << 20
	before := heapInUse()
	var stalled []net.Conn
	for range 3 {
		stalled = append(stalled, srv.stall("/verify", declared, rowPart(declared*5/8)))
	}
	if !raceEnabled {
		grown := heapInUse() - before
		t.Logf("3 stalled uploads of 5 MiB of 8 MiB: heap +%.1f MiB", float64(grown)/(1<<20))
		if grown > 32<<20 {
			t.Errorf("3 stalled uploads hold %.1f MiB, over the 32 MiB budget", float64(grown)/(1<<20))
		}
	}
	const busy = "mcpdoor: the server holds as much of request bodies as mcp.max_body_memory (33554432 bytes) allows; retry shortly\n"
	for _, path := range []string{"/verify", "/seed_session"} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, srv.Listener.Addr(), declared)
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("a %s of %d bytes, its body unsent, while the budget is spent: no answer: %v", path, declared, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" || string(b) != busy {
			t.Errorf("a %s of %d bytes while the budget is spent: %d, Retry-After %q, %q; want 503, Retry-After 1, %q",
				path, declared, resp.StatusCode, resp.Header.Get("Retry-After"), b, busy)
		}
	}
	status, _, body := postMCP(t, srv.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "")
	if status != http.StatusOK || !strings.Contains(body, `"name":"echo"`) {
		t.Errorf("a small MCP request while the budget is spent: %d %s; want 200 and the tools", status, body)
	}
	for _, conn := range stalled {
		conn.Close()
	}
	// The stalled uploads' memory comes back as their handlers return.
	row := rowPart(declared)[:declared-3] + `"}}`
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := http.Post(srv.URL+"/seed_session", "application/json", strings.NewReader(row))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a seed of %d bytes 30s after the stalled uploads went away: %d %s", len(row), resp.StatusCode, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSlowBody: a body that does not come whole within mcp.body_timeout is
// cut, with 408 and a text naming the key, whichever route reads it: the
// MCP endpoint (a JSON-RPC error), /seed_session and /verify. Nothing cut
// it: a client that sent part of a body held its memory for as long as its
// connection stayed open.
func TestSlowBody(t *testing.T) {
	srv := rolloutDoor(t, "  body_timeout: 1s\n")
	const text = "mcpdoor: the request body did not come whole within 1s (mcp.body_timeout)"
	var stalled []net.Conn
	var paths, wants []string
	for _, c := range []struct{ path, want string }{
		{"/mcp", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"` + text + `"}}`},
		{"/seed_session", text + "\n"},
		{"/verify", text + "\n"},
	} {
		// The three stall at once: one body_timeout for all.
		stalled = append(stalled, srv.stall(c.path, 1<<20, rowPart(1000)))
		paths, wants = append(paths, c.path), append(wants, c.want)
	}
	for i, conn := range stalled {
		status, body, err := readAnswer(conn, 30*time.Second)
		if err != nil || status != http.StatusRequestTimeout || body != wants[i] {
			t.Errorf("%s, a body that stalls: %d %q (%v); want 408 %q", paths[i], status, body, err, wants[i])
		}
	}
}
