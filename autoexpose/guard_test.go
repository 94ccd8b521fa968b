package autoexpose

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// TestGuard: Origin and Host checks on a loopback listener, each case with
// the exact status and body a client gets. The HTTP door's routes are never
// guarded.
func TestGuard(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
	door, err := Install(r, enabled(MCPConfig{
		AllowedOrigins: []string{"https://App.example.com/"},
		AllowedHosts:   []string{"weather.internal", "proxy.internal:8443"},
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	srv := httptest.NewServer(r)
	defer srv.Close()
	self := strings.TrimPrefix(srv.URL, "http://") // 127.0.0.1:port
	_, port, _ := strings.Cut(self, ":")
	hostname, err := os.Hostname()
	if err != nil || hostname == "" {
		hostname = "localhost" // no name of its own: the case checks localhost again
	}

	const pong = `{"jsonrpc":"2.0","id":1,"result":{}}`
	cases := []struct {
		name, host, origin string
		status             int
		body               string
		site               string // Sec-Fetch-Site
	}{
		{"no Origin", "", "", 200, pong, ""},
		{"same origin", "", "http://" + self, 200, pong, ""},
		{"same origin over a TLS proxy", "", "https://" + self, 200, pong, ""},
		{"same origin, other case", "LOCALHOST:" + port, "http://localhost:" + port, 200, pong, ""},
		{"allowed origin", "", "https://app.example.com", 200, pong, ""},
		{"foreign origin", "", "https://evil.example",
			403, "forbidden: Origin \"https://evil.example\" is not this server's origin (see mcp.allowed_origins)\n", ""},
		{"foreign origin on our port", "", "http://evil.example:" + port,
			403, "forbidden: Origin \"http://evil.example:" + port + "\" is not this server's origin (see mcp.allowed_origins)\n", ""},
		{"null origin", "", "null",
			403, "forbidden: Origin \"null\" is not this server's origin (see mcp.allowed_origins)\n", ""},
		// net/http's CrossOriginProtection compares the Origin's host alone.
		{"origin with a path", "", "http://" + self + "/x", 200, pong, ""},
		{"a browser's same-origin request", "", "", 200, pong, "same-origin"},
		{"a browser's cross-site request", "", "https://evil.example",
			403, "forbidden: Origin \"https://evil.example\" is not this server's origin (see mcp.allowed_origins)\n", "cross-site"},
		{"a browser's cross-site request without Origin", "", "",
			403, "forbidden: a cross-site request (Sec-Fetch-Site: cross-site) from a browser page (see mcp.allowed_origins)\n", "cross-site"},
		{"a browser's request from an allowed origin", "", "https://app.example.com", 200, pong, "cross-site"},
		{"localhost", "localhost:" + port, "", 200, pong, ""},
		{"localhost without a port", "localhost", "", 200, pong, ""},
		{"127.0.0.2", "127.0.0.2:" + port, "", 200, pong, ""},
		{"::1", "[::1]:" + port, "", 200, pong, ""},
		{"foreign Host", "evil.example.com:" + port, "",
			403, "forbidden: Host \"evil.example.com:" + port + "\" is not allowed on a loopback listener (DNS rebinding protection; see mcp.allowed_hosts)\n", ""},
		{"rebound Host and its own Origin", "evil.example.com", "http://evil.example.com",
			403, "forbidden: Host \"evil.example.com\" is not allowed on a loopback listener (DNS rebinding protection; see mcp.allowed_hosts)\n", ""},
		{"private IP Host", "192.168.1.10:" + port, "",
			403, "forbidden: Host \"192.168.1.10:" + port + "\" is not allowed on a loopback listener (DNS rebinding protection; see mcp.allowed_hosts)\n", ""},
		{"the machine's hostname", hostname + ":" + port, "", 200, pong, ""},
		{"a name under the hostname", hostname + ".evil.example:" + port, "",
			403, "forbidden: Host \"" + hostname + ".evil.example:" + port + "\" is not allowed on a loopback listener (DNS rebinding protection; see mcp.allowed_hosts)\n", ""},
		{"allowed host, any port", "Weather.Internal:" + port, "", 200, pong, ""},
		{"allowed host and its origin", "weather.internal", "http://weather.internal", 200, pong, ""},
		{"allowed host:port", "proxy.internal:8443", "", 200, pong, ""},
		{"allowed host, other port", "proxy.internal:9000", "",
			403, "forbidden: Host \"proxy.internal:9000\" is not allowed on a loopback listener (DNS rebinding protection; see mcp.allowed_hosts)\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if c.host != "" {
				req.Host = c.host
			}
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			if c.site != "" {
				req.Header.Set("Sec-Fetch-Site", c.site)
			}
			status, body := do(t, req)
			if status != c.status || body != c.body {
				t.Errorf("got %d %q\nwant %d %q", status, body, c.status, c.body)
			}
		})
	}
	t.Run("a GET's Origin", func(t *testing.T) {
		for origin, want := range map[string]int{"https://evil.example": 403, "http://" + self: 405} {
			req, _ := http.NewRequest("GET", srv.URL+"/mcp", nil)
			req.Header.Set("Origin", origin)
			if status, body := do(t, req); status != want {
				t.Errorf("GET with Origin %s: %d %q, want %d", origin, status, body, want)
			}
		}
	})
	t.Run("the HTTP door is not guarded", func(t *testing.T) {
		req, _ := http.NewRequest("POST", srv.URL+"/t", strings.NewReader(`{}`))
		req.Host = "evil.example.com"
		req.Header.Set("Origin", "https://evil.example")
		if status, body := do(t, req); status != 200 || body != "{}" {
			t.Errorf("POST /t: %d %q", status, body)
		}
	})
}

func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestGuardConfig: allowed_origins and allowed_hosts entries are checked.
func TestGuardConfig(t *testing.T) {
	on := "name: x\nexpose_tools_over_mcp: true\n"
	for _, c := range []struct{ doc, want string }{
		{on + "mcp: {allowed_origins: [app.example.com]}", `mcp.allowed_origins: "app.example.com" is not an origin; write scheme://host[:port], such as https://app.example.com`},
		{on + "mcp: {allowed_origins: [\"https://app.example.com/path\"]}", `mcp.allowed_origins: "https://app.example.com/path" is not an origin`},
		{on + "mcp: {allowed_hosts: [\"http://weather.internal\"]}", `mcp.allowed_hosts: "http://weather.internal" is not a host name; write a name such as weather.internal, or name:port`},
		{on + "mcp: {allowed_hosts: [\"\"]}", `mcp.allowed_hosts: "" is not a host name`},
	} {
		t.Run(c.doc, func(t *testing.T) {
			_, err := ParseConfig([]byte(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	if _, err := ParseConfig([]byte(on + "mcp: {allowed_origins: [null, \"https://app.example.com/\", \"http://127.0.0.1:8080\"], allowed_hosts: [weather.internal, \"proxy:8443\"]}")); err != nil {
		t.Errorf("valid entries refused: %v", err)
	}
}
