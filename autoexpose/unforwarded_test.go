package autoexpose

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// TestUnforwardedHeaders: when a route answers a call 401 or 403, the
// result's text names the headers the call carried that the door did not
// forward (not the transport's, the door's or the forwarded ones), and
// mcp.forward_headers; other answers, and calls that carried none, say
// nothing of it.
func TestUnforwardedHeaders(t *testing.T) {
	r := chi.NewRouter()
	r.Post("/whoami", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Jwt") == "" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"user":"ana"}`))
	})
	r.Post("/admin", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "Forbidden", http.StatusForbidden) })
	r.Post("/boom", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) })
	cfg, err := ParseConfig([]byte("name: keys\nexpose_tools_over_mcp: true\nmcp:\n  rollout: {disable: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	door, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	srv := httptest.NewServer(door)
	defer srv.Close()
	callWith := func(tool string, header map[string]string) string {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		req.Header.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var out struct {
			Result struct {
				Content []struct{ Text string }
			}
		}
		if err := json.Unmarshal(b, &out); err != nil || len(out.Result.Content) == 0 {
			t.Fatalf("%s: %s", tool, b)
		}
		return out.Result.Content[0].Text
	}
	for _, c := range []struct {
		tool   string
		header map[string]string
		want   string
	}{
		{"whoami", map[string]string{"X-Jwt": "j", "Authorization": "Bearer a", "User-Agent": "agent"},
			"HTTP 401 from POST /whoami: Unauthorized (the call carried the header X-Jwt, which the door does not forward to the route; to send it, list it in mcp.forward_headers)"},
		{"whoami", map[string]string{"X-Jwt": "j", "X-Tenant": "t"},
			"HTTP 401 from POST /whoami: Unauthorized (the call carried the headers X-Jwt and X-Tenant, which the door does not forward to the route; to send them, list them in mcp.forward_headers)"},
		{"whoami", map[string]string{"Authorization": "Bearer a"}, "HTTP 401 from POST /whoami: Unauthorized"},
		{"admin", map[string]string{"X-Role": "admin", "Cookie": "a=b", "X-Forwarded-For": "10.0.0.1"},
			"HTTP 403 from POST /admin: Forbidden (the call carried the header X-Role, which the door does not forward to the route; to send it, list it in mcp.forward_headers)"},
		{"boom", map[string]string{"X-Jwt": "j"}, "HTTP 500 from POST /boom: boom"},
	} {
		if got := callWith(c.tool, c.header); got != c.want {
			t.Errorf("%s with %v:\n  %s\nwant\n  %s", c.tool, c.header, got, c.want)
		}
	}
}
