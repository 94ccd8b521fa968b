package autoexpose

import (
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
