package call

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/keyring"
	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/store"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
	"github.com/mcpdoor/mcpdoor/token"
)

// TestTokenlessSessionRules: which session a tokenless call runs in, by
// door, MCP session and cookie.
func TestTokenlessSessionRules(t *testing.T) {
	p := testPipeline(t, true, nil)
	request := func(cookieSID string) *http.Request {
		r, _ := http.NewRequest(http.MethodPost, "/mcp", nil)
		if cookieSID != "" {
			c, _ := p.Sessions.Cookie(cookieSID)
			r.AddCookie(c)
		}
		return r
	}

	t.Run("stdio", func(t *testing.T) {
		if got := p.tokenlessSession(nil, nil); got != p.localSID {
			t.Errorf("got %q, want the local session", got)
		}
	})
	t.Run("stateless", func(t *testing.T) {
		if got := p.tokenlessSession(nil, request("")); got != p.localSID {
			t.Errorf("no cookie: %q, want the local session", got)
		}
		if got := p.tokenlessSession(nil, request("y")); got != "y" {
			t.Errorf("cookie of y: %q", got)
		}
	})
	t.Run("stateful memory", func(t *testing.T) {
		for _, exclusive := range []bool{false, true} {
			s := newMCPSessionSIDs(true, exclusive)
			if s == nil || s.exclusive != exclusive {
				t.Fatalf("exclusive %v: %+v", exclusive, s)
			}
		}
		if s := newMCPSessionSIDs(false, false); s != nil {
			t.Errorf("a stateless door remembers MCP sessions: %+v", s)
		}
	})
}

// TestMCPSessionSIDs: each MCP session keeps the session of its first
// call, and the entries of ended MCP sessions go, so the memory stays
// within about twice the live sessions.
func TestMCPSessionSIDs(t *testing.T) {
	s := newMCPSessionSIDs(true, false)
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

// testSecret is the session secret of testPipeline's door.
const testSecret = "a test secret of at least 32 bytes long"

// testPipeline is the pipeline of a stateless door of the server "test"
// with the rollout contract on (tokenless calls allowed if tokenless),
// which logs to log (nil: nowhere).
func testPipeline(tb testing.TB, tokenless bool, log *slog.Logger) *Pipeline {
	tb.Helper()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	keys, err := keyring.New([]byte(testSecret))
	if err != nil {
		tb.Fatal(err)
	}
	mgr := sessions.New(keys, &sessions.Options{Store: store.NewMemory(0, nil), Logger: log})
	contract := rollout.New(rollout.Config{AllowTokenless: tokenless}, rollout.Params{Server: "test", Path: "/mcp", Sessions: mgr, Logger: log})
	return New(Settings{Log: log, Contract: contract, Sessions: mgr, Inflight: &edge.Inflight{}, MaxBody: 4 << 20, States: mcpcall.NewStates(keys)})
}

// admitPipeline is testPipeline's, with a valid token for the session s1
// that lists get_weather, a tool with an output schema.
func admitPipeline(tb testing.TB, tokenless bool) (*Pipeline, *toolset.Tool, string) {
	tb.Helper()
	p := testPipeline(tb, tokenless, nil)
	tok, err := token.NewCodec("test", p.Sessions.Keys(), 0).Mint(token.Payload{SID: "s1", Tools: []string{"get_weather"}})
	if err != nil {
		tb.Fatal(err)
	}
	tl := &toolset.Tool{}
	tl.Name, tl.OutputSchema = "get_weather", &jsonschema.Schema{Type: "object"}
	return p, tl, tok
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
	p, tl, tok := admitPipeline(t, false)
	withToken := http.Header{}
	withToken.Set(rollout.DefaultTokenHeader, tok)
	if who, refused := p.admit(tl, callWith(withToken)); refused != nil || who.sid != "s1" {
		t.Errorf("valid token: %+v %v", who, refused)
	}
	b, _ := json.Marshal(func() any { _, r := p.admit(tl, callWith(http.Header{})); return r }())
	// get_weather has an output schema: the envelope is in _meta.
	const missing = `{"_meta":{"mcpdoor/error":{"error":{"code":"missing_token","message":"no session token","status":401,"effect":"not_applied"}}},` +
		`"content":[{"type":"text","text":"Missing X-NeMo-Gym-Session-Token for Gym MCP tool call."}],"isError":true}`
	if string(b) != missing {
		t.Errorf("no token:\n  %s\nwant\n  %s", b, missing)
	}
	p2, tl2, _ := admitPipeline(t, true)
	if who, refused := p2.admit(tl2, callWith(http.Header{})); refused != nil || who.sid != p2.localSID {
		t.Errorf("tokenless local call: %+v %v", who, refused)
	}
}

// BenchmarkAdmit measures what the token check adds to every tools/call: the
// token is verified each time (HMAC and JSON), with no cache. "none" is a
// tokenless call (allow_tokenless), the check's floor.
func BenchmarkAdmit(b *testing.B) {
	p, tl, tok := admitPipeline(b, false)
	h := http.Header{}
	h.Set(rollout.DefaultTokenHeader, tok)
	withToken := callWith(h)
	b.Run("token", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, refused := p.admit(tl, withToken); refused != nil {
				b.Fatal(refused)
			}
		}
	})
	p2, tl2, _ := admitPipeline(b, true)
	none := callWith(http.Header{})
	b.Run("none", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, refused := p2.admit(tl2, none); refused != nil {
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
	c := &Pipeline{Settings: Settings{Log: slog.New(slog.NewTextHandler(&log, nil))}}
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
