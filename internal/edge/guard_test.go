package edge

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// FuzzGuard: whatever Host and Origin a client sends to a loopback
// listener, the guard decides without panicking, a refusal is one line,
// loopback names without an Origin pass, and so does an allowed origin.
func FuzzGuard(f *testing.F) {
	for _, seed := range [][2]string{
		{"127.0.0.1:8080", "http://127.0.0.1:8080"}, {"evil.example", "http://evil.example"},
		{"[::1]:80", ""}, {"localhost", "null"}, {"weather.internal:1", "https://app.example.com"},
		{"LOCALHOST", "HTTP://LOCALHOST"}, {"[::ffff:127.0.0.1]:1", "http://[::ffff:127.0.0.1]:1/"}, {"a\nb", "c\rd"},
	} {
		f.Add(seed[0], seed[1])
	}
	g := newGuard([]string{"https://app.example.com"}, []string{"weather.internal"})
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	f.Fuzz(func(t *testing.T, host, origin string) {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(local)))
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		reason := g.refuse(r)
		if strings.ContainsAny(reason, "\r\n") {
			t.Fatalf("reason is not one line: %q", reason)
		}
		hostOK := isLoopback(host) || g.hostAllowed(host) || g.machineName(r.Context(), host, local)
		if hostOK && origin == "" && reason != "" {
			t.Fatalf("Host %q without Origin refused: %s", host, reason)
		}
		if hostOK && normalizeOrigin(origin) == "https://app.example.com" && reason != "" {
			t.Fatalf("allowed origin %q refused: %s", origin, reason)
		}
		if !hostOK && reason == "" {
			t.Fatalf("Host %q accepted on a loopback listener", host)
		}
	})
}

// BenchmarkGuardHost: the guard's decision on a loopback listener for a
// loopback name, the machine's hostname, and a foreign name, which is
// looked up in the hosts file (never DNS) before it is refused.
func BenchmarkGuardHost(b *testing.B) {
	g := newGuard(nil, nil)
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	hostname, _ := os.Hostname()
	for _, c := range []struct{ name, host string }{
		{"localhost", "localhost:8080"},
		{"hostname", hostname + ":8080"},
		{"foreign", "rebind.attacker.example:8080"},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := httptest.NewRequest("POST", "/mcp", nil)
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(local)))
			r.Host = c.host
			b.ReportAllocs()
			for b.Loop() {
				g.refuse(r)
			}
		})
	}
}
