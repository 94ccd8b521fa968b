package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
)

// The session a tool call runs in, with the README's setup: the session
// middleware at the root of the router, so the MCP endpoint's own requests
// get a session too. A valid token decides the session of a call, direct or
// replayed, whatever cookie the MCP request carries; a tokenless call runs in
// its MCP session's session (stateful), its cookie's, or the one local
// session.

// tagged is a middleware the detector does not know, so the routes behind it
// are replayed through the router.
func tagged(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Tagged", "yes")
		next.ServeHTTP(w, r)
	})
}

// seen is what /whereami's handler saw of its request.
type seen struct {
	Host, RemoteAddr, Session string
}

// sessionServer is the fixture with the session middleware at its root and
// two more routes: weather_replayed, the weather handler behind tagged, and
// whereami, which records the Host, RemoteAddr and session it runs with.
type sessionServer struct {
	*server
	door *autoexpose.Door

	mu       sync.Mutex
	whereami []seen
}

// newSessionServer serves it with the fixture's config, changed by
// configure.
func newSessionServer(t *testing.T, configure func(*autoexpose.MCPConfig)) *sessionServer {
	t.Helper()
	cfg := fixtureConfig(t)
	if configure != nil {
		configure(&cfg.MCP)
	}
	sessions, err := cfg.UseSessions()
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{sessions: sessions, state: make(map[string][]string)}
	s := &sessionServer{}
	r := chi.NewRouter()
	f.routes(r)
	r.With(tagged).Method(http.MethodPost, "/weather_replayed", autoexpose.Handler(func(_ context.Context, r *http.Request, in cityIn) (cityOut, error) {
		f.record(r, in.City)
		return cityOut{Weather: "The weather in " + in.City + " is sunny and 72 F."}, nil
	}))
	r.Post("/whereami", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.whereami = append(s.whereami, seen{r.Host, r.RemoteAddr, session.ID(r)})
		s.mu.Unlock()
		w.Write([]byte("here"))
	})
	if s.door, err = autoexpose.Install(r, cfg); err != nil {
		t.Fatal(err)
	}
	for _, row := range s.door.Report() {
		if want := map[string]string{"weather": "direct", "weather_replayed": "replay"}[row.Tool]; want != "" && row.Verdict != want {
			t.Fatalf("tool %s: verdict %s, want %s", row.Tool, row.Verdict, want)
		}
	}
	s.server = serve(t, r)
	t.Cleanup(func() { s.door.Close() })
	return s
}

// cookieless returns a client of the same server that keeps no cookies, as
// most MCP clients do.
func (s *server) cookieless() *server {
	c := &server{t: s.t, url: s.url, srv: s.srv, client: &http.Client{Timeout: 30 * time.Second}}
	s.t.Cleanup(c.client.CloseIdleConnections)
	return c
}

// history is the session's record as the HTTP door shows it, with the
// client's cookie.
func (s *server) history() string {
	s.t.Helper()
	return compactJSON(s.t, s.post("/history", `{}`).Body)
}

// weatherTools are a direct and a replayed route with the same handler.
var weatherTools = []string{"weather", "weather_replayed"}

// callCities calls a weather tool once per city, in order, and fails the
// test on an error result.
func callCities(t *testing.T, cs *mcp.ClientSession, tool string, cities ...string) {
	t.Helper()
	for _, city := range cities {
		if res := call(t, cs, tool, map[string]any{"city": city}); res.IsError {
			t.Fatalf("%s %s: %s", tool, city, resultJSON(t, res))
		}
	}
}

// historyOver is the session's record as a tools/call of history shows it.
func historyOver(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	res := call(t, cs, "history", nil)
	b, _ := json.Marshal(res.StructuredContent)
	return string(b)
}

// TestTokenDecidesSession: a call with a valid token runs in the token's
// session, direct or replayed, with no cookie or with another session's.
func TestTokenDecidesSession(t *testing.T) {
	for _, policy := range []struct {
		name     string
		stateful bool
	}{{"stateless", false}, {"stateful", true}} {
		for _, tool := range weatherTools {
			t.Run(policy.name+"/"+tool, func(t *testing.T) {
				s := newSessionServer(t, func(m *autoexpose.MCPConfig) { m.Stateful = policy.stateful })

				t.Run("token and no cookie", func(t *testing.T) {
					x := s.newClient()
					_, meta := x.seedSession(`{}`)
					cs := x.cookieless().connect(mcpOptions{header: http.Header{tokenHeader: {meta.Headers[tokenHeader]}}})
					callCities(t, cs, tool, "T1", "T2", "T3")
					if got := x.history(); got != `{"history":["T1","T2","T3"]}` {
						t.Errorf("the HTTP door of the token's session sees %s", got)
					}
				})

				t.Run("token of X and cookie of Y", func(t *testing.T) {
					x, y := s.newClient(), s.newClient()
					_, meta := x.seedSession(`{}`)
					y.post("/weather", `{"city":"Y0"}`)
					cs := y.connect(mcpOptions{header: http.Header{tokenHeader: {meta.Headers[tokenHeader]}}})
					callCities(t, cs, tool, "X1", "X2")
					if got := x.history(); got != `{"history":["X1","X2"]}` {
						t.Errorf("session X (the token's) sees %s", got)
					}
					if got := y.history(); got != `{"history":["Y0"]}` {
						t.Errorf("session Y (the cookie's) sees %s", got)
					}
				})
			})
		}
	}
}

// tokenless lets tokenless clients call, under a session policy.
func tokenless(stateful, exclusive bool) func(*autoexpose.MCPConfig) {
	return func(m *autoexpose.MCPConfig) {
		m.Rollout.AllowTokenless = true
		m.Stateful, m.Exclusive = stateful, exclusive
	}
}

// TestTokenlessSession: with allow_tokenless, a tokenless call runs in
// one well-defined session, the same for direct and replayed calls.
func TestTokenlessSession(t *testing.T) {
	t.Run("stateless, no cookie: the one local session", func(t *testing.T) {
		s := newSessionServer(t, tokenless(false, false))
		callCities(t, s.cookieless().connect(mcpOptions{}), "weather", "L1")
		callCities(t, s.cookieless().connect(mcpOptions{}), "weather_replayed", "L2")
		// A client with a cookie jar but no session cookie is in the same
		// session, and the endpoint gives it no cookie of a session it
		// did not use.
		c := s.newClient()
		cs := c.connect(mcpOptions{})
		callCities(t, cs, "weather", "L3")
		callCities(t, cs, "weather_replayed", "L4")
		if got := historyOver(t, cs); got != `{"history":["L1","L2","L3","L4"]}` {
			t.Errorf("the local session holds %s", got)
		}
		if got := c.cookies(); len(got) != 0 {
			t.Errorf("the MCP endpoint set cookies %v", got)
		}
	})
	t.Run("stateless, cookie of Y: Y", func(t *testing.T) {
		s := newSessionServer(t, tokenless(false, false))
		y := s.newClient()
		y.post("/weather", `{"city":"Y0"}`)
		cs := y.connect(mcpOptions{})
		callCities(t, cs, "weather", "Y1")
		callCities(t, cs, "weather_replayed", "Y2")
		if got := y.history(); got != `{"history":["Y0","Y1","Y2"]}` {
			t.Errorf("session Y sees %s", got)
		}
		if got := historyOver(t, s.cookieless().connect(mcpOptions{})); got != `{"history":[]}` {
			t.Errorf("the local session holds %s", got)
		}
	})
	t.Run("stateful, no cookie: one session per MCP session", func(t *testing.T) {
		s := newSessionServer(t, tokenless(true, false))
		jar := s.newClient()
		m1, m2 := s.cookieless().connect(mcpOptions{}), jar.connect(mcpOptions{})
		callCities(t, m1, "weather", "A1")
		callCities(t, m2, "weather_replayed", "B1")
		callCities(t, m1, "weather_replayed", "A2")
		callCities(t, m2, "weather", "B2")
		callCities(t, m1, "weather", "A3")
		if got := historyOver(t, m1); got != `{"history":["A1","A2","A3"]}` {
			t.Errorf("MCP session 1 sees %s", got)
		}
		if got := historyOver(t, m2); got != `{"history":["B1","B2"]}` {
			t.Errorf("MCP session 2 sees %s", got)
		}
		if got := historyOver(t, s.cookieless().connect(mcpOptions{})); got != `{"history":[]}` {
			t.Errorf("a new MCP session sees %s", got)
		}
		if got := jar.cookies(); len(got) != 0 {
			t.Errorf("the MCP endpoint set cookies %v", got)
		}
	})
	t.Run("stateful, cookie of Y: Y", func(t *testing.T) {
		s := newSessionServer(t, tokenless(true, false))
		y := s.newClient()
		y.post("/weather", `{"city":"Y0"}`)
		cs := y.connect(mcpOptions{})
		callCities(t, cs, "weather_replayed", "Y1")
		callCities(t, cs, "weather", "Y2")
		if got := y.history(); got != `{"history":["Y0","Y1","Y2"]}` {
			t.Errorf("session Y sees %s", got)
		}
	})
	t.Run("exclusive, no cookie: the local session, across reconnects", func(t *testing.T) {
		s := newSessionServer(t, tokenless(true, true))
		first := s.cookieless().connect(mcpOptions{})
		callCities(t, first, "weather", "E1")
		callCities(t, first, "weather_replayed", "E2")
		if err := first.Close(); err != nil {
			t.Fatal(err)
		}
		again := s.cookieless().connect(mcpOptions{})
		callCities(t, again, "weather", "E3")
		if got := historyOver(t, again); got != `{"history":["E1","E2","E3"]}` {
			t.Errorf("the reconnected agent sees %s", got)
		}
	})
}

// cookies returns the cookies the client's jar holds for the server.
func (s *server) cookies() []*http.Cookie {
	u, _ := url.Parse(s.url)
	return s.client.Jar.Cookies(u)
}

// TestRateLimitTokenless: cookieless tokenless calls share one session, and
// so one bucket, even though the session middleware in front of the
// endpoint makes a new session for each of their requests.
func TestRateLimitTokenless(t *testing.T) {
	s := newSessionServer(t, func(m *autoexpose.MCPConfig) {
		m.Rollout.AllowTokenless = true
		m.RateLimit = autoexpose.RateLimit{PerSession: 0.01, Burst: 2} // one call per 100s after the burst
	})
	const (
		hello   = `{"content":[{"type":"text","text":"hello, world"}]}`
		limited = `{"content":[{"type":"text","text":"Rate limit exceeded for this session; retry in 1m40s."}],` +
			`"structuredContent":{"error":{"code":"rate_limited","effect":"not_applied","message":"the session has made more calls than mcp.rate_limit allows","retry_after_ms":100000,"status":429}},"isError":true}`
	)
	cs := s.cookieless().connect(mcpOptions{})
	for i, want := range []string{hello, hello, limited} {
		if got := resultJSON(t, call(t, cs, "text", nil)); got != want {
			t.Errorf("call %d:\n got %s\nwant %s", i+1, got, want)
		}
	}
	if got := resultJSON(t, call(t, s.cookieless().connect(mcpOptions{}), "text", nil)); got != limited {
		t.Errorf("another cookieless client:\n got %s\nwant %s", got, limited)
	}
}

// TestDetachedCall: a client that resets its connection right after sending
// a tools/call. The call runs with its request (its Host, RemoteAddr and
// cookie session) or not at all: never with a made-up Host, no address, or
// the local session. (A stateless request's calls end before the request
// does, in the go-sdk; a stateful session's may start after it.)
func TestDetachedCall(t *testing.T) {
	for _, stateful := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateless", true: "stateful"}[stateful], func(t *testing.T) {
			s := newSessionServer(t, tokenless(stateful, false))
			y := s.newClient()
			y.post("/weather", `{"city":"Y0"}`)
			cookie := y.cookies()[0]
			sid, err := cookieSID(t, cookie.Name+"="+cookie.Value)
			if err != nil {
				t.Fatal(err)
			}
			var mcpSession string // when stateful
			if stateful {
				init := y.rawMCP(t, initializeBody(0), raw{protocol: "2025-11-25"})
				mcpSession = init.Header.Get("Mcp-Session-Id")
				if r := y.rawMCP(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, raw{protocol: "2025-11-25", sid: mcpSession}); r.Status != http.StatusAccepted {
					t.Fatalf("initialized: %d %s", r.Status, r.Body)
				}
			}
			addr := s.srv.Listener.Addr().String()
			callBody := func(id int) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"whereami","arguments":{}}}`, id)
			}
			head := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\n" +
				"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n" +
				"Cookie: " + cookie.Name + "=" + cookie.Value + "\r\n"
			if stateful {
				head += "Mcp-Session-Id: " + mcpSession + "\r\n"
			}
			const tries = 200
			for i := range tries {
				conn, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				body := callBody(i + 1)
				if _, err := fmt.Fprintf(conn, "%sContent-Length: %d\r\n\r\n%s", head, len(body), body); err != nil {
					t.Fatal(err)
				}
				conn.(*net.TCPConn).SetLinger(0) // close with a reset
				conn.Close()
			}
			// The same call from a client that waits for the answer.
			if r := y.rawMCP(t, callBody(tries+1), raw{protocol: "2025-11-25", sid: mcpSession}); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"text":"here"`) {
				t.Fatalf("a call that waits: %d %s", r.Status, r.Body)
			}
			// Closing the door waits for the calls running in its sessions,
			// closing the listener for the requests.
			s.door.Close()
			s.srv.Close()

			s.mu.Lock()
			defer s.mu.Unlock()
			bad := 0
			for _, w := range s.whereami {
				if w.Host != addr || w.RemoteAddr == "" || w.Session != sid {
					if bad == 0 {
						t.Errorf("the handler saw Host %q, RemoteAddr %q, session %q; want Host %q, the client's address and session %q",
							w.Host, w.RemoteAddr, w.Session, addr, sid)
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d runs of the handler did not see their request", bad, len(s.whereami))
			}
			t.Logf("the handler ran %d times for %d reset requests and 1 whole one", len(s.whereami), tries)
		})
	}
}

// TestGymAgents: NeMo Gym's agents keep one session through a rollout, over
// both doors, with the session middleware at the router's root (Install) or
// inside a wrapped handler (Wrap, where /seed_session's wrap makes the
// session).
func TestGymAgents(t *testing.T) {
	for _, shape := range []struct {
		name  string
		serve func(t *testing.T) *server
		tools []string
	}{
		{"Install", func(t *testing.T) *server { return newSessionServer(t, nil).server }, weatherTools},
		{"Wrap", wrappedFixture, []string{"weather"}},
	} {
		t.Run(shape.name, func(t *testing.T) {
			s := shape.serve(t)
			t.Run("simple_agent over HTTP", func(t *testing.T) {
				g := newGymAgent(t, s, "")
				if status, body := g.post("/seed_session", json.RawMessage(`{}`)); status != http.StatusOK {
					t.Fatalf("seed: %d %s", status, body)
				}
				for i := range 5 {
					if status, body := g.post("/weather", json.RawMessage(fmt.Sprintf(`{"city":"C%d"}`, i+1))); status != http.StatusOK {
						t.Fatalf("call %d: %d %s", i+1, status, body)
					}
				}
				if diff := cmp.Diff([]string{"C1", "C2", "C3", "C4", "C5"}, g.verified()); diff != "" {
					t.Errorf("the calls verify sees (-want +got):\n%s", diff)
				}
			})
			t.Run("claude_code_agent over MCP, seeded with a cookie", func(t *testing.T) {
				g := newGymAgent(t, s, "")
				g.post("/seed_session", json.RawMessage(`{}`)) // an earlier request of the same client
				status, body := g.post("/seed_session", json.RawMessage(`{}`))
				var seed struct {
					MCP seedMetadata `json:"mcp"`
				}
				if err := json.Unmarshal(body, &seed); err != nil || status != http.StatusOK {
					t.Fatalf("seed: %d %s", status, body)
				}
				cs := s.cookieless().connect(mcpOptions{header: http.Header{tokenHeader: {seed.MCP.Headers[tokenHeader]}}})
				var want []string
				for i, tool := range shape.tools {
					city := fmt.Sprintf("M%d", i+1)
					callCities(t, cs, tool, city)
					want = append(want, city)
				}
				if diff := cmp.Diff(want, g.verified()); diff != "" {
					t.Errorf("the calls verify sees (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// wrappedFixture serves the fixture's router through Wrap, so /seed_session
// is wrapped outside the router's session middleware.
func wrappedFixture(t *testing.T) *server {
	t.Helper()
	cfg := fixtureConfig(t)
	sessions, err := cfg.UseSessions()
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{sessions: sessions, state: make(map[string][]string)}
	r := chi.NewRouter()
	f.routes(r)
	cfg.CatchAll = map[string]autoexpose.Declaration{
		"weather": {Description: "The weather in a city.", Input: autoexpose.SchemaFor[cityIn]()},
		"history": {Description: "The session's calls.", Input: autoexpose.SchemaFor[struct{}]()},
	}
	h, err := autoexpose.Wrap(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, h)
}

// TestSeedSessionCookie: /seed_session's response sets the session cookie,
// also when the request carries it and when the seed handler sets cookies
// of its own, with the session middleware at the router's root (Install)
// or inside a wrapped handler (Wrap).
func TestSeedSessionCookie(t *testing.T) {
	seedRouter := func(sessions *session.Manager) chi.Router {
		r := chi.NewRouter()
		r.Use(sessions.Middleware)
		r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) {
			http.SetCookie(w, &http.Cookie{Name: "theme", Value: "dark", Path: "/"})
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"sid":%q}`, session.ID(r))
		})
		r.Post("/verify", func(w http.ResponseWriter, r *http.Request) {})
		r.Post("/noop", func(w http.ResponseWriter, r *http.Request) {})
		return r
	}
	for _, shape := range []string{"Install", "Wrap"} {
		t.Run(shape, func(t *testing.T) {
			cfg := fixtureConfig(t)
			sessions, err := cfg.UseSessions()
			if err != nil {
				t.Fatal(err)
			}
			r := seedRouter(sessions)
			var h http.Handler = r
			if shape == "Install" {
				_, err = autoexpose.Install(r, cfg)
			} else {
				h, err = autoexpose.Wrap(r, cfg)
			}
			if err != nil {
				t.Fatal(err)
			}
			g := newGymAgent(t, serve(t, h), "")
			var sids []string
			for i := range 3 {
				status, out := g.post("/seed_session", json.RawMessage(`{}`))
				var body struct {
					SID string `json:"sid"`
				}
				if err := json.Unmarshal(out, &body); err != nil {
					t.Fatalf("seed %d: %d %s", i+1, status, out)
				}
				sids = append(sids, body.SID)
				var names []string
				for _, c := range g.cookies {
					names = append(names, c.Name)
					if c.Name == "mcpdoor_session" {
						if sid, err := cookieSID(t, c.Name+"="+c.Value); sid != body.SID || err != nil {
							t.Errorf("seed %d: the cookie names session %q (%v), the handler ran in %q", i+1, sid, err, body.SID)
						}
					}
				}
				slices.Sort(names)
				if diff := cmp.Diff([]string{"mcpdoor_session", "theme"}, names); diff != "" {
					t.Errorf("seed %d: the cookies set, the session's and the handler's (-want +got):\n%s", i+1, diff)
				}
			}
			if sids[0] == "" || sids[1] != sids[0] || sids[2] != sids[0] {
				t.Errorf("the seeds ran in sessions %q, want one", sids)
			}
		})
	}
}
