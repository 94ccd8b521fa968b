package autoexpose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRequestEnded: a call that came over HTTP (it carries the request
// reference) after its request ended is refused, and logged, before any
// token check or handler; the client, if still there, reads why.
func TestRequestEnded(t *testing.T) {
	ran := 0
	r := rolloutRouter(func(r chi.Router) {
		r.Post("/count", func(w http.ResponseWriter, r *http.Request) { ran++ })
	})
	var log bytes.Buffer
	cfg := enabled(MCPConfig{SessionSecret: Secrets{"a test secret of at least 32 bytes long"}})
	cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	d, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Name: "count", Arguments: json.RawMessage(`{}`)},
		Extra:  &mcp.RequestExtra{Header: http.Header{requestRefHeader: {"ended"}}},
	}
	b, _ := json.Marshal(d.call(t.Context(), d.tools["count"], req))
	const want = `{"content":[{"type":"text","text":"The HTTP request that carried this tool call ended before the call started, so it was not run. Call the tool again."}],` +
		`"structuredContent":{"error":{"code":"request_ended","message":"the client's HTTP request ended before the call started","status":499,"effect":"not_applied"}},"isError":true}`
	if string(b) != want {
		t.Errorf("result\n  %s\nwant\n  %s", b, want)
	}
	if ran != 0 {
		t.Errorf("the handler ran %d times", ran)
	}
	if !strings.Contains(log.String(), `level=WARN msg="mcpdoor: tool call not run: its HTTP request ended before the call could start (the client closed the connection)" tool=count`) {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestTokenlessSessionRules: which session a tokenless call runs in, by
// door, MCP session and cookie.
func TestTokenlessSessionRules(t *testing.T) {
	door := func(m MCPConfig) *Door {
		m.SessionSecret = Secrets{"a test secret of at least 32 bytes long"}
		m.RequireToken = Bool(false)
		d, err := Install(rolloutRouter(func(r chi.Router) { r.Post("/ok", ok) }), enabled(m))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	request := func(d *Door, cookieSID string) *http.Request {
		r, _ := http.NewRequest(http.MethodPost, "/mcp", nil)
		if cookieSID != "" {
			c, _ := d.sessions.Cookie(cookieSID)
			r.AddCookie(c)
		}
		return r
	}

	t.Run("stdio", func(t *testing.T) {
		d := door(MCPConfig{})
		if got := d.tokenlessSession(nil, nil); got != d.localSID {
			t.Errorf("got %q, want the local session", got)
		}
	})
	t.Run("stateless", func(t *testing.T) {
		d := door(MCPConfig{})
		if got := d.tokenlessSession(nil, request(d, "")); got != d.localSID {
			t.Errorf("no cookie: %q, want the local session", got)
		}
		if got := d.tokenlessSession(nil, request(d, "y")); got != "y" {
			t.Errorf("cookie of y: %q", got)
		}
	})
	t.Run("stateful memory", func(t *testing.T) {
		for _, exclusive := range []bool{false, true} {
			s := newMCPSessionSIDs(&MCPConfig{Stateful: true, Exclusive: exclusive})
			if s == nil || s.exclusive != exclusive {
				t.Fatalf("exclusive %v: %+v", exclusive, s)
			}
		}
		if s := newMCPSessionSIDs(&MCPConfig{}); s != nil {
			t.Errorf("a stateless door remembers MCP sessions: %+v", s)
		}
	})
}

// TestMCPSessionSIDs: each MCP session keeps the session of its first
// call, and the entries of ended MCP sessions go, so the memory stays
// within about twice the live sessions.
func TestMCPSessionSIDs(t *testing.T) {
	s := newMCPSessionSIDs(&MCPConfig{Stateful: true})
	live := map[string]bool{}
	liveIDs := func() map[string]bool { return live }
	firsts := 0
	first := func(sid string) func() string { return func() string { firsts++; return sid } }

	if got := s.sid("m1", first("a"), liveIDs); got != "a" {
		t.Fatalf("first call: %q", got)
	}
	if got := s.sid("m1", first("b"), liveIDs); got != "a" || firsts != 1 {
		t.Fatalf("second call: %q (first() called %d times), want a, once", got, firsts)
	}
	// 1000 MCP sessions, each live for one call only: the memory stays
	// bounded.
	for i := range 1000 {
		id := fmt.Sprint("gone-", i)
		live[id] = true
		s.sid(id, first(id), liveIDs)
		delete(live, id)
		if n := s.size(); n > 2*minPrune {
			t.Fatalf("after %d sessions, %d entries remembered", i+1, n)
		}
	}
	// Live sessions are never forgotten.
	for i := range 3 * minPrune {
		id := fmt.Sprint("live-", i)
		live[id] = true
		s.sid(id, first(id), liveIDs)
	}
	for id := range live {
		if got := s.sid(id, first("other"), liveIDs); got != id {
			t.Fatalf("live session %s: %q", id, got)
		}
	}
}

func TestDropCookie(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want []string
	}{
		{"none", nil, nil},
		{"only the session's", []string{"mcpdoor_session=v; Path=/"}, nil},
		{"others kept, in order", []string{"a=1", "mcpdoor_session=v; Path=/", "b=2"}, []string{"a=1", "b=2"}},
		{"a prefix is another name", []string{"mcpdoor_session2=v"}, []string{"mcpdoor_session2=v"}},
		{"unparsable kept", []string{"garbage"}, []string{"garbage"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tc.in {
				h.Add("Set-Cookie", v)
			}
			dropCookie(h, "mcpdoor_session")
			if got := h.Values("Set-Cookie"); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if _, ok := h["Set-Cookie"]; ok && len(tc.want) == 0 {
				t.Error("an empty Set-Cookie entry is left")
			}
		})
	}
}
