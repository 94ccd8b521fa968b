package autoexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/wire"
)

// TestExclusiveBody: the 409's body for each kind of request id, and the
// idle timeout as the config writes it, for a client of another rollout
// (here: another rollout's token, while the holder has its own).
func TestExclusiveBody(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
	door, err := Install(r, enabled(MCPConfig{Exclusive: true, IdleTimeout: 1500 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	tok, other := mint(t, door, "rollout-a", nil), mint(t, door, "rollout-b", nil)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if w := serveReq(r, "POST", "/mcp", initialize, rollout.DefaultTokenHeader, tok); w.Code != 200 {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	const msg = "this MCP server is exclusive and another session is live; retry once that session ends " +
		"(its client sends DELETE with its Mcp-Session-Id) or has been idle for 1.5s (mcp.idle_timeout). " +
		"The same rollout (the same X-NeMo-Gym-Session-Token, or the same session cookie) may reconnect at any time: " +
		"it takes the session over unless one of its calls is running"
	for _, c := range []struct{ body, id string }{
		{`{"jsonrpc":"2.0","id":42,"method":"initialize"}`, "42"},
		{`{"jsonrpc":"2.0","id":-1.5e3,"method":"initialize"}`, "-1.5e3"},
		{`{"jsonrpc":"2.0","id":"a\"b","method":"ping"}`, `"a\"b"`},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, "null"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, "null"},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`, "null"},
		{`not json`, "null"},
	} {
		t.Run(c.body, func(t *testing.T) {
			w := serveReq(r, "POST", "/mcp", c.body, rollout.DefaultTokenHeader, other)
			want := `{"jsonrpc":"2.0","id":` + c.id + `,"error":{"code":-32000,"message":"` + msg + `"}}`
			if w.Code != http.StatusConflict || w.Header().Get("Content-Type") != "application/json" || w.Body.String() != want {
				t.Errorf("got %d %q %s\nwant 409 application/json %s", w.Code, w.Header().Get("Content-Type"), w.Body, want)
			}
		})
	}
}

// TestIdentity: who a POST that may open a session comes from.
func TestIdentity(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
	door, err := Install(r, enabled(MCPConfig{Exclusive: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	tok := mint(t, door, "rollout-a", nil)
	cookie, _ := door.calls.sessions.Cookie("cookie-session")
	for _, c := range []struct {
		name      string
		token     string
		cookie    *http.Cookie
		want      string
		wantToken bool
	}{
		{"token", tok, nil, "rollout-a", true},
		{"token and cookie", tok, cookie, "rollout-a", true},
		{"cookie", "", cookie, "cookie-session", false},
		{"neither", "", nil, door.calls.localSID, false},
		{"invalid token", "garbage", nil, "", false},
		{"invalid token and cookie", "garbage", cookie, "", false},
		{"forged cookie", "", &http.Cookie{Name: cookie.Name, Value: "forged"}, door.calls.localSID, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/mcp", nil)
			if c.token != "" {
				req.Header.Set(rollout.DefaultTokenHeader, c.token)
			}
			if c.cookie != nil {
				req.AddCookie(c.cookie)
			}
			if got, token := door.calls.identity(req); got != c.want || token != c.wantToken {
				t.Errorf("identity %q (a valid token: %v), want %q (%v)", got, token, c.want, c.wantToken)
			}
		})
	}
}

// TestSlotWaits: a POST without a session that arrives while another one is
// being served waits for it to end, then is judged: served if that one
// opened no session, 409 if it did (for another identity), taken over for
// the same identity or by a valid token from a session opened without one;
// and 409 if it waited its whole bound. An identity ending in +token comes
// with a valid token.
func TestSlotWaits(t *testing.T) {
	for _, c := range []struct {
		name      string
		opens     bool   // the first POST opens a session
		first     string // the first POST's identity
		who       string // the second POST's identity
		wait      time.Duration
		want      int
		takenOver bool
	}{
		{"the first opened nothing", false, "a", "b", time.Minute, http.StatusOK, false},
		{"the first opened a session", true, "a", "b", time.Minute, http.StatusConflict, false},
		{"the first opened a session, same identity", true, "a", "a", time.Minute, http.StatusOK, true},
		{"the wait ran out", false, "a", "b", time.Millisecond, http.StatusConflict, false},
		{"a token over a session opened without one", true, "a", "b+token", time.Minute, http.StatusOK, true},
		{"a token over another rollout's token", true, "a+token", "b+token", time.Minute, http.StatusConflict, false},
		{"no token over a token", true, "a+token", "b", time.Minute, http.StatusConflict, false},
		{"the same token", true, "a+token", "a+token", time.Minute, http.StatusOK, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ended []string
			entered, release := make(chan struct{}), make(chan struct{})
			s := &slot{
				alive:    func(id string) bool { return id == "s1" && len(ended) == 0 },
				end:      func(id string) { ended = append(ended, id) },
				identify: func(r *http.Request) (string, bool) { return strings.CutSuffix(r.Header.Get("Who"), "+token") },
				message:  "busy", wait: c.wait,
			}
			h := s.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("First") != "" {
					close(entered)
					<-release
					if c.opens {
						w.Header().Set(sessionIDHeader, "s1")
					}
				}
			}))
			post := func(who string, first bool) *httptest.ResponseRecorder {
				req := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				req.Header.Set("Who", who)
				if first {
					req.Header.Set("First", "1")
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				return w
			}
			firstDone := make(chan *httptest.ResponseRecorder, 1)
			go func() { firstDone <- post(c.first, true) }()
			<-entered
			second := make(chan *httptest.ResponseRecorder, 1)
			go func() { second <- post(c.who, false) }()
			if c.wait < time.Second {
				// The second POST gives up while the first is still served.
				if w := <-second; w.Code != c.want {
					t.Errorf("second POST: %d %s, want %d", w.Code, w.Body, c.want)
				}
				close(release)
				<-firstDone
				return
			}
			close(release)
			if w := <-firstDone; w.Code != http.StatusOK {
				t.Errorf("first POST: %d %s", w.Code, w.Body)
			}
			if w := <-second; w.Code != c.want {
				t.Errorf("second POST: %d %s, want %d", w.Code, w.Body, c.want)
			}
			if got := len(ended) == 1 && ended[0] == "s1"; got != c.takenOver {
				t.Errorf("sessions ended: %v, want the first's taken over: %v", ended, c.takenOver)
			}
		})
	}
}

// TestExclusiveFailedInitialize: an initialize that fails does not keep the
// slot.
func TestExclusiveFailedInitialize(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
	door, err := Install(r, enabled(MCPConfig{Exclusive: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	tok := mint(t, door, "rollout-a", nil)
	const both = "application/json, text/event-stream"
	for _, c := range []struct {
		name, accept, body string
		status             int
		want               string
	}{
		{"bad params", both, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":"x"}`, 200,
			`{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"handling 'initialize': unmarshaling \"\\\"x\\\"\" into a *mcp.initializeParamsV2: json: cannot unmarshal \"\\\"x\\\"\" into Go value of type mcp.initializeParamsV2"}}`},
		{"bad Accept", "application/json", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, 400,
			"Accept must contain both 'application/json' and 'text/event-stream'\n"},
		{"no params", both, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, 400,
			"invalid request: missing required \"params\"\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := serveReq(r, "POST", "/mcp", c.body, "Accept", c.accept, rollout.DefaultTokenHeader, tok)
			if w.Code != c.status || w.Body.String() != c.want {
				t.Errorf("got %d %q\nwant %d %q", w.Code, w.Body, c.status, c.want)
			}
			if sid := w.Header().Get(sessionIDHeader); sid != "" && door.live(sid) {
				t.Errorf("the failed initialize's session %s is live", sid)
			}
		})
	}
	w := serveReq(r, "POST", "/mcp", `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, rollout.DefaultTokenHeader, tok)
	if w.Code != http.StatusOK || w.Header().Get(sessionIDHeader) == "" {
		t.Errorf("initialize after the failed ones: %d %s", w.Code, w.Body)
	}
}

// FuzzExclusiveBody: whatever a client posts without a session while the
// slot is taken, the answer is the 409 with a well-formed JSON-RPC error
// whose id is the request's (a string or a number) or null.
func FuzzExclusiveBody(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":"x","method":"ping"}`,
		`{"id":-0.5e-3}`, `{"id":"\u2028\"<"}`, `{"id":[1]}`, `[{"id":1}]`, `{"id":1,"id":2}`, `nul`, ``, `{"id":1e700}`,
	} {
		f.Add([]byte(seed))
	}
	s := &slot{alive: func(string) bool { return true }, identify: func(*http.Request) (string, bool) { return "someone else", false },
		message: "busy", holder: "live", owner: "its rollout", confirmed: true}
	h := s.wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("a request without a session reached the go-sdk while the slot was taken")
	}))
	f.Fuzz(func(t *testing.T, body []byte) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", "/mcp", bytes.NewReader(body)))
		var got struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   wire.Error      `json:"error"`
		}
		if w.Code != http.StatusConflict || json.Unmarshal(w.Body.Bytes(), &got) != nil || got.JSONRPC != "2.0" ||
			got.Error != (wire.Error{Code: exclusiveErrorCode, Message: "busy"}) {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		var sent struct {
			ID json.RawMessage `json:"id"`
		}
		if string(got.ID) != "null" {
			if json.Unmarshal(body, &sent) != nil || !bytes.Equal(sent.ID, got.ID) {
				t.Fatalf("id %s is not the request's (%q)", got.ID, body)
			}
			// A number past float64's range (1e700) is a number all the
			// same: read it as the JSON text it is.
			var v any
			dec := json.NewDecoder(bytes.NewReader(got.ID))
			dec.UseNumber()
			dec.Decode(&v)
			switch v.(type) {
			case string, json.Number:
			default:
				t.Fatalf("id %s is not a string or number", got.ID)
			}
		}
	})
}

// TestExclusiveNotificationIsNoCall: the holder's session is taken over
// while it handles a notification, but not while it handles a request.
// A notification's POST is answered 202 before the notification is handled,
// so its client cannot wait for that to end, and nothing it waits for is
// cut off; a request is a call its client waits for.
func TestExclusiveNotificationIsNoCall(t *testing.T) {
	for _, c := range []struct {
		method string
		req    mcp.Request
		want   int
	}{
		{"notifications/initialized", &mcp.InitializedRequest{Params: &mcp.InitializedParams{}}, http.StatusOK},
		{"ping", &mcp.ServerRequest[*mcp.PingParams]{Params: &mcp.PingParams{}}, http.StatusConflict},
	} {
		t.Run(c.method, func(t *testing.T) {
			r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
			door, err := Install(r, enabled(MCPConfig{Exclusive: true}))
			if err != nil {
				t.Fatal(err)
			}
			defer door.Close()
			tok := mint(t, door, "rollout-a", nil)
			const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
			w := serveReq(r, "POST", "/mcp", initialize, rollout.DefaultTokenHeader, tok)
			sid := w.Header().Get(sessionIDHeader)
			if w.Code != http.StatusOK || sid == "" {
				t.Fatalf("initialize: %d %s", w.Code, w.Body)
			}
			for ss := range door.server.Sessions() {
				if ss.ID() == sid {
					switch req := c.req.(type) {
					case *mcp.InitializedRequest:
						req.Session = ss
					case *mcp.ServerRequest[*mcp.PingParams]:
						req.Session = ss
					}
				}
			}
			// The holder's session handles c.method until release.
			entered, release, handled := make(chan struct{}), make(chan struct{}), make(chan struct{})
			go func() {
				defer close(handled)
				door.middleware(func(context.Context, string, mcp.Request) (mcp.Result, error) {
					close(entered)
					<-release
					return nil, nil
				})(context.Background(), c.method, c.req)
			}()
			<-entered
			w = serveReq(r, "POST", "/mcp", strings.Replace(initialize, `"id":1`, `"id":2`, 1), rollout.DefaultTokenHeader, tok)
			close(release)
			<-handled
			if w.Code != c.want {
				t.Errorf("the same rollout's initialize while the session handles %s: %d %s, want %d", c.method, w.Code, w.Body, c.want)
			}
		})
	}
}

// TestSlotEarlyHints: a seed or /verify handler that sends 103 Early Hints
// before its 2xx answers 2xx: the seed keeps the slot for its session, and
// the /verify frees it and ends the rollout's MCP session, as without the
// hints. An informational status is no answer.
func TestSlotEarlyHints(t *testing.T) {
	hinted := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("Link")
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s1"})
		w.WriteHeader(http.StatusOK)
	}
	var ended []string
	s := &slot{
		end:        func(id string) { ended = append(ended, id) },
		reserve:    time.Minute,
		cookieSID:  func(h http.Header) string { return strings.TrimPrefix(h.Get("Set-Cookie"), "sid=") },
		requestSID: func(*http.Request) string { return "s1" },
		forget:     func(http.ResponseWriter, *http.Request) {},
	}
	body := func(w http.ResponseWriter, r *http.Request) (*http.Request, []byte, func(), http.HandlerFunc) {
		return r, nil, func() {}, nil
	}
	s.wrapSeed(body, http.HandlerFunc(hinted)).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/seed_session", nil))
	if s.reserved != "s1" {
		t.Errorf("after a seed answered 103 then 200, the slot is reserved for %q, want s1", s.reserved)
	}
	s.holder, s.owner = "mcp-1", "s1"
	s.wrapVerify(http.HandlerFunc(hinted)).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/verify", nil))
	if s.holder != "" || len(ended) != 1 || ended[0] != "mcp-1" {
		t.Errorf("after a /verify answered 103 then 200, the slot is held by %q and the sessions ended are %v, want free and [mcp-1]", s.holder, ended)
	}
}
