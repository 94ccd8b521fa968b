package autoexpose

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
)

// TestExclusiveBody: the 409's body for each kind of request id, and the
// idle timeout as the config writes it.
func TestExclusiveBody(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
	door, err := Install(r, enabled(MCPConfig{Exclusive: true, IdleTimeout: 1500 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	post := func(body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w
	}
	if w := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); w.Code != 200 {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	const msg = "this MCP server is exclusive and another session is live; retry once that session ends " +
		"(its client sends DELETE with its Mcp-Session-Id) or has been idle for 1.5s (mcp.idle_timeout)"
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
			w := post(c.body)
			want := `{"jsonrpc":"2.0","id":` + c.id + `,"error":{"code":-32000,"message":"` + msg + `"}}`
			if w.Code != http.StatusConflict || w.Header().Get("Content-Type") != "application/json" || w.Body.String() != want {
				t.Errorf("got %d %q %s\nwant 409 application/json %s", w.Code, w.Header().Get("Content-Type"), w.Body, want)
			}
		})
	}
}

func TestSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{
		600 * time.Second:       "600s",
		1500 * time.Millisecond: "1.5s",
		300 * time.Millisecond:  "300ms",
		time.Hour:               "3600s",
	} {
		if got := seconds(d); got != want {
			t.Errorf("seconds(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestClosedEndpoint: after Close the endpoint answers 503, at both paths;
// the HTTP door's routes answer as before.
func TestClosedEndpoint(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
	door, err := Install(r, enabled(MCPConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := door.Close(); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/mcp", "/mcp/"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("POST", path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
		if w.Code != http.StatusServiceUnavailable || w.Body.String() != closedBody+"\n" || w.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("POST %s: %d %q %q", path, w.Code, w.Header().Get("Content-Type"), w.Body)
		}
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("POST", "/t", nil))
	if w.Code != 200 || w.Body.String() != "{}" {
		t.Errorf("POST /t: %d %q", w.Code, w.Body)
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
	post := func(accept, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w
	}
	const both = "application/json, text/event-stream"
	for _, c := range []struct {
		name, accept, body string
		status             int
		want               string
	}{
		{"bad params", both, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":"x"}`, 200,
			"event: message\ndata: " + `{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"handling 'initialize': unmarshaling \"\\\"x\\\"\" into a *mcp.initializeParamsV2: json: cannot unmarshal \"\\\"x\\\"\" into Go value of type mcp.initializeParamsV2"}}` + "\n\n"},
		{"bad Accept", "application/json", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, 400,
			"Accept must contain both 'application/json' and 'text/event-stream'\n"},
		{"no params", both, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, 400,
			"invalid request: missing required \"params\"\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := post(c.accept, c.body)
			if w.Code != c.status || w.Body.String() != c.want {
				t.Errorf("got %d %q\nwant %d %q", w.Code, w.Body, c.status, c.want)
			}
			if sid := w.Header().Get(sessionIDHeader); sid != "" && door.live(sid) {
				t.Errorf("the failed initialize's session %s is live", sid)
			}
		})
	}
	w := post(both, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
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
		`{"id":-0.5e-3}`, `{"id":"\u2028\"<"}`, `{"id":[1]}`, `[{"id":1}]`, `{"id":1,"id":2}`, `nul`, ``,
	} {
		f.Add([]byte(seed))
	}
	s := &slot{alive: func(string) bool { return true }, holder: "live"}
	h := s.wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("a request without a session reached the go-sdk while the slot was taken")
	}), DefaultMaxBodyBytes, "busy")
	f.Fuzz(func(t *testing.T, body []byte) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", "/mcp", bytes.NewReader(body)))
		var got struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   rpcError        `json:"error"`
		}
		if w.Code != http.StatusConflict || json.Unmarshal(w.Body.Bytes(), &got) != nil || got.JSONRPC != "2.0" ||
			got.Error != (rpcError{ExclusiveErrorCode, "busy"}) {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		var sent struct {
			ID json.RawMessage `json:"id"`
		}
		if string(got.ID) != "null" {
			if json.Unmarshal(body, &sent) != nil || !bytes.Equal(sent.ID, got.ID) {
				t.Fatalf("id %s is not the request's (%q)", got.ID, body)
			}
			var v any
			json.Unmarshal(got.ID, &v)
			switch v.(type) {
			case string, float64:
			default:
				t.Fatalf("id %s is not a string or number", got.ID)
			}
		}
	})
}
