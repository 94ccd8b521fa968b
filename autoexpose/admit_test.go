package autoexpose

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
	"github.com/mcpdoor/mcpdoor/token"
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
	cfg := enabled(MCPConfig{SessionSecret: []string{"a test secret of at least 32 bytes long"}})
	cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	d, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Name: "count", Arguments: json.RawMessage(`{}`)},
		Extra:  &mcp.RequestExtra{Header: http.Header{edge.RequestRefHeader: {"ended"}}},
	}
	res, err := d.calls.call(t.Context(), d.tools["count"], req, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
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
		m.SessionSecret = []string{"a test secret of at least 32 bytes long"}
		m.Rollout.AllowTokenless = true
		d, err := Install(rolloutRouter(func(r chi.Router) { r.Post("/ok", ok) }), enabled(m))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	request := func(d *Door, cookieSID string) *http.Request {
		r, _ := http.NewRequest(http.MethodPost, "/mcp", nil)
		if cookieSID != "" {
			c, _ := d.calls.sessions.Cookie(cookieSID)
			r.AddCookie(c)
		}
		return r
	}

	t.Run("stdio", func(t *testing.T) {
		d := door(MCPConfig{})
		if got := d.calls.tokenlessSession(nil, nil); got != d.calls.localSID {
			t.Errorf("got %q, want the local session", got)
		}
	})
	t.Run("stateless", func(t *testing.T) {
		d := door(MCPConfig{})
		if got := d.calls.tokenlessSession(nil, request(d, "")); got != d.calls.localSID {
			t.Errorf("no cookie: %q, want the local session", got)
		}
		if got := d.calls.tokenlessSession(nil, request(d, "y")); got != "y" {
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

// admitDoor is callDoor's door, without limits, with a valid token for the
// session s1 that lists the tool.
func admitDoor(tb testing.TB, tokenless bool) (*Door, *toolset.Tool, string) {
	tb.Helper()
	d, tl := callDoor(tb, tokenless, MCPConfig{})
	tok, err := token.NewCodec("test", d.calls.sessions.Keys(), 0).Mint(token.Payload{SID: "s1", Tools: []string{"get_weather"}})
	if err != nil {
		tb.Fatal(err)
	}
	return d, tl, tok
}

// callWith is a tools/call of get_weather for Paris sent over HTTP with
// header, or with no request Extra (as over stdio) if header is nil.
func callWith(header http.Header) *mcp.CallToolRequest {
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}
	if header != nil {
		req.Extra = &mcp.RequestExtra{Header: header}
	}
	return req
}

// TestAdmit: the rollout contract's token decides the session; a missing
// token is refused unless tokenless calls are allowed, and then the call
// runs in the local session.
func TestAdmit(t *testing.T) {
	d, tl, tok := admitDoor(t, false)
	withToken := http.Header{}
	withToken.Set(rollout.DefaultTokenHeader, tok)
	if who, refused := d.calls.admit(tl, callWith(withToken)); refused != nil || who.sid != "s1" {
		t.Errorf("valid token: %+v %v", who, refused)
	}
	b, _ := json.Marshal(func() any { _, r := d.calls.admit(tl, callWith(http.Header{})); return r }())
	// get_weather has an output schema: the envelope is in _meta.
	const missing = `{"_meta":{"mcpdoor/error":{"error":{"code":"missing_token","message":"no session token","status":401,"effect":"not_applied"}}},` +
		`"content":[{"type":"text","text":"Missing X-NeMo-Gym-Session-Token for Gym MCP tool call."}],"isError":true}`
	if string(b) != missing {
		t.Errorf("no token:\n  %s\nwant\n  %s", b, missing)
	}
	d2, tl2, _ := admitDoor(t, true)
	if who, refused := d2.calls.admit(tl2, callWith(http.Header{})); refused != nil || who.sid != d2.calls.localSID {
		t.Errorf("tokenless local call: %+v %v", who, refused)
	}
}

// BenchmarkAdmit measures what the token check adds to every tools/call: the
// token is verified each time (HMAC and JSON), with no cache. "none" is a
// tokenless call (allow_tokenless), the check's floor.
func BenchmarkAdmit(b *testing.B) {
	d, tl, tok := admitDoor(b, false)
	h := http.Header{}
	h.Set(rollout.DefaultTokenHeader, tok)
	withToken := callWith(h)
	b.Run("token", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, refused := d.calls.admit(tl, withToken); refused != nil {
				b.Fatal(refused)
			}
		}
	})
	d2, tl2, _ := admitDoor(b, true)
	none := callWith(http.Header{})
	b.Run("none", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, refused := d2.calls.admit(tl2, none); refused != nil {
				b.Fatal(refused)
			}
		}
	})
}

// TestRefused: a call the rollout contract refuses gets its Refusal's text
// and code, a wrapped one too; an error that is no Refusal gets a 500 whose
// details go to the log only, where it dereferenced a nil Refusal.
func TestRefused(t *testing.T) {
	var log bytes.Buffer
	c := &calls{log: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{ReplaceAttr: dropTime}))}
	tl := &toolset.Tool{}
	tl.Name = "count"
	refusal := &rollout.Refusal{Code: rollout.CodeToolNotAllowed, Text: "Tool 'count' is not allowed for this session.", Message: "the session token does not list this tool", Status: http.StatusForbidden}
	for _, c2 := range []struct {
		name string
		err  error
		want string
	}{
		{"a refusal", refusal, `{"content":[{"type":"text","text":"Tool 'count' is not allowed for this session."}],` +
			`"structuredContent":{"error":{"code":"tool_not_allowed","message":"the session token does not list this tool","status":403,"effect":"not_applied"}},"isError":true}`},
		{"a wrapped refusal", fmt.Errorf("admitting: %w", refusal), `{"content":[{"type":"text","text":"Tool 'count' is not allowed for this session."}],` +
			`"structuredContent":{"error":{"code":"tool_not_allowed","message":"the session token does not list this tool","status":403,"effect":"not_applied"}},"isError":true}`},
		{"another error", errors.New("the key ring is empty"), `{"content":[{"type":"text","text":"The tool call's session token could not be checked, so the call was not run."}],` +
			`"structuredContent":{"error":{"code":"internal_server_error","message":"checking the session token failed","status":500,"effect":"not_applied"}},"isError":true}`},
	} {
		t.Run(c2.name, func(t *testing.T) {
			b, _ := json.Marshal(c.refused(tl, c2.err))
			if string(b) != c2.want {
				t.Errorf("result\n  %s\nwant\n  %s", b, c2.want)
			}
		})
	}
	const logged = `level=ERROR msg="mcpdoor: tool call not run: checking its session token failed" tool=count err="the key ring is empty"`
	if !strings.Contains(log.String(), logged) {
		t.Errorf("log:\n%s\nwant a line with\n%s", log.String(), logged)
	}
}
