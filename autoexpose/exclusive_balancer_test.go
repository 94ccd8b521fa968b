package autoexpose

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
)

// seedAt posts {} to the server's /seed_session with cookies, and returns
// the response's status, its Retry-After, its body, its cookies and the
// token of its metadata ("" for none).
func seedAt(t *testing.T, base string, cookies []*http.Cookie) (status int, retry, body string, set []*http.Cookie, tok string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/seed_session", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var seeded struct {
		MCP rollout.Metadata `json:"mcp"`
	}
	json.Unmarshal(b, &seeded)
	return resp.StatusCode, resp.Header.Get("Retry-After"), string(b), resp.Cookies(), seeded.MCP.Headers[rollout.DefaultTokenHeader]
}

// busySeed is the 503's body of a seed on a busy exclusive server.
const busySeed = "mcpdoor: this server is exclusive (mcp.exclusive) and serves another rollout: " +
	"retry /seed_session on another replica, or here once that rollout ends\n"

// TestExclusiveSeedBusy: behind a balancer, a seed that lands on an
// exclusive replica serving another rollout gets 503 with Retry-After,
// which a proxy retries on another replica (a 409 it would not). The slot
// is the seeded rollout's from its seed on: a second seed before its client
// connects is refused too, and so is a second rollout's client. The same
// rollout (its cookie) may seed again. Its /verify ends the rollout and
// frees the slot.
func TestExclusiveSeedBusy(t *testing.T) {
	_, srv := exclusiveServer(t, false)
	status, _, body, cookiesA, tokA := seedAt(t, srv.URL, nil)
	if status != http.StatusOK || tokA == "" {
		t.Fatalf("the first seed: %d %s", status, body)
	}
	wantBusy := func(what string, status int, retry, body string) {
		t.Helper()
		if status != http.StatusServiceUnavailable || retry != "1" || body != busySeed {
			t.Errorf("%s: %d, Retry-After %q, %q\nwant 503, Retry-After 1, %q", what, status, retry, body, busySeed)
		}
	}
	s, retry, body, _, _ := seedAt(t, srv.URL, nil)
	wantBusy("a second rollout's seed before the first one's client connects", s, retry, body)

	agent, err := dialMCP(t, srv.URL+"/mcp", http.Header{rollout.DefaultTokenHeader: {tokA}})
	if err != nil {
		t.Fatalf("the seeded rollout's client: %v", err)
	}
	s, retry, body, _, _ = seedAt(t, srv.URL, nil)
	wantBusy("a second rollout's seed while the first one's session is live", s, retry, body)
	if s, _, body, _, _ := seedAt(t, srv.URL, cookiesA); s != http.StatusOK {
		t.Errorf("the same rollout seeding again: %d %s", s, body)
	}
	if _, err := agent.ListTools(context.Background(), nil); err != nil {
		t.Errorf("the rollout's session after its second seed: %v", err)
	}

	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/verify", strings.NewReader(`{}`))
	for _, c := range cookiesA {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if s, _, body, _, tok := seedAt(t, srv.URL, nil); s != http.StatusOK || tok == "" {
		t.Errorf("a seed after the first rollout's /verify: %d %s", s, body)
	}
}

// getReady returns the status, Retry-After and body of GET /mcp/ready.
func getReady(t *testing.T, base string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(base + "/mcp/ready")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), string(b)
}

// TestExclusiveReady: GET /mcp/ready tells a balancer's health check
// whether the replica takes a new rollout: 200 while the exclusive slot is
// free, 503 with Retry-After while a rollout holds it (from its seed to
// its /verify), 503 once the Door is closed.
func TestExclusiveReady(t *testing.T) {
	door, srv := exclusiveServer(t, false)
	const free, busy, closed = "ready: this server takes a new rollout\n",
		"busy: this server is exclusive (mcp.exclusive) and serves another rollout\n",
		"closed: this server is shutting down\n"
	check := func(when string, wantStatus int, wantBody string) {
		t.Helper()
		status, retry, body := getReady(t, srv.URL)
		wantRetry := ""
		if wantStatus != http.StatusOK {
			wantRetry = "1"
		}
		if status != wantStatus || retry != wantRetry || body != wantBody {
			t.Errorf("%s: %d, Retry-After %q, %q; want %d, %q, %q", when, status, retry, body, wantStatus, wantRetry, wantBody)
		}
	}
	check("before any seed", http.StatusOK, free)
	status, _, body, cookies, _ := seedAt(t, srv.URL, nil)
	if status != http.StatusOK {
		t.Fatalf("seed: %d %s", status, body)
	}
	check("after a seed", http.StatusServiceUnavailable, busy)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/verify", strings.NewReader(`{}`))
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	check("after its /verify", http.StatusOK, free)
	door.Close()
	check("after Close", http.StatusServiceUnavailable, closed)
}

// TestExclusiveFailedConnect: a slot taken by a connect that fails is
// freed at once, not held for mcp.idle_timeout (nor for
// mcp.unused_session_timeout): an initialize whose client hangs up before
// it confirms the session (notifications/initialized), and a session
// whose stream breaks before its first tool call. Both timeouts are set
// long, so that only the failed connect can free the slot.
func TestExclusiveFailedConnect(t *testing.T) {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	start := func(t *testing.T) (*Door, *httptest.Server) {
		r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
		m := MCPConfig{Exclusive: true, SessionSecret: []string{"a test secret of at least thirty-two bytes"},
			IdleTimeout: time.Hour, UnusedSessionTimeout: time.Hour}
		door, err := Install(r, enabled(m))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(r)
		t.Cleanup(func() {
			door.Close()
			srv.Close()
		})
		return door, srv
	}
	// freed waits, a bounded number of times, for a new rollout's client to
	// get the slot.
	freed := func(t *testing.T, door *Door, srv *httptest.Server, what string) {
		t.Helper()
		tok := mint(t, door, "rollout-next", nil)
		fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		for range 50 {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(initialize))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set(rollout.DefaultTokenHeader, tok)
			resp, err := fresh.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("%s: the slot is still held", what)
	}

	t.Run("initialize never confirmed", func(t *testing.T) {
		door, srv := start(t)
		// A client that sends initialize and hangs up once its answer
		// begins, without confirming the session.
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		tok := mint(t, door, "rollout-hangs-up", nil)
		io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: "+srv.Listener.Addr().String()+"\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\n"+rollout.DefaultTokenHeader+": "+tok+"\r\n"+
			"Content-Length: "+strconv.Itoa(len(initialize))+"\r\n\r\n"+initialize)
		// The answer's head: the session is open, and named in it.
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get(edge.SessionIDHeader) == "" {
			t.Fatalf("initialize: %v %v", resp, err)
		}
		conn.Close()
		freed(t, door, srv, "after an initialize whose client hung up")
	})
	t.Run("stream broken before the first call", func(t *testing.T) {
		door, srv := start(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		tok := mint(t, door, "rollout-crashes", nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp",
			HTTPClient: &http.Client{Transport: withHeader{http.Header{rollout.DefaultTokenHeader: {tok}}}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		// The client's process dies: its connections close, its stream
		// with them, and no DELETE is sent.
		srv.CloseClientConnections()
		freed(t, door, srv, "after a session whose stream broke before its first call")
		cancel()
		cs.Close()
	})
}

// TestExclusiveRefusedSeedHoldsNoSession: a seed refused because the
// replica is busy leaves nothing behind: no session cookie goes out with
// the 503, and the session a session middleware in front made for the
// request is not held (a balancer's retries would otherwise leave one
// session per refused seed in the store).
func TestExclusiveRefusedSeedHoldsNoSession(t *testing.T) {
	cfg := enabled(MCPConfig{Exclusive: true, SessionSecret: []string{"a test secret of at least thirty-two bytes"}})
	mw, err := cfg.UseSessions()
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(mw.Middleware)
	r.Post("/t", ok)
	r.Post("/seed_session", ok)
	r.Post("/verify", ok)
	door, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(door)
	t.Cleanup(func() {
		door.Close()
		srv.Close()
	})
	if status, _, body, _, _ := seedAt(t, srv.URL, nil); status != http.StatusOK {
		t.Fatalf("the first seed: %d %s", status, body)
	}
	status, _, _, set, _ := seedAt(t, srv.URL, nil)
	if status != http.StatusServiceUnavailable {
		t.Fatalf("the second seed: %d, want 503", status)
	}
	for _, c := range set {
		if c.Name != door.calls.sessions.CookieName() {
			continue
		}
		t.Errorf("the 503 sets the session cookie %q", c.Value)
		if sid, err := door.calls.sessions.Decode(c.Value); err == nil {
			if _, held, err := door.calls.sessions.Store().Open(context.Background(), sid, nil, 0, false); held || err != nil {
				t.Errorf("the refused seed's session %s is held", sid)
			}
		}
	}
}
