package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// rateLimitServer is a rollout server with one tool, ping, under
// mcp.rate_limit: {per_session: 0.1, burst: 1} and the by given ("" for
// none).
func rateLimitServer(t *testing.T, by string) *server {
	t.Helper()
	yaml := "name: limited\nexpose_tools_over_mcp: true\nmcp:\n  session_secret: \"" + testSecret + "\"\n  rate_limit: {per_session: 0.1, burst: 1"
	if by != "" {
		yaml += ", by: " + by
	}
	cfg, err := autoexpose.ParseConfig([]byte(yaml + "}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	sessions, err := cfg.UseSessions()
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Post("/ping", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "pong") })
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	r.Post("/verify", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	if _, err := autoexpose.Install(r, cfg); err != nil {
		t.Fatal(err)
	}
	return serve(t, r)
}

// from returns a client of s (its own cookie jar) that connects from the
// loopback address ip.
func (s *server) from(ip string) *server {
	c := s.newClient()
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	c.client.Transport = &http.Transport{DialContext: dialer.DialContext}
	s.t.Cleanup(c.client.CloseIdleConnections)
	return c
}

// freshPing seeds a new rollout with a new client at ip (a fresh cookie,
// a fresh token) and calls ping once with its token. It returns what the
// call did: "ran", or the isError code.
func (s *server) freshPing(t *testing.T, ip string) string {
	t.Helper()
	c := s.from(ip)
	r, meta := c.seedSession(`{}`)
	tok := meta.Headers[tokenHeader]
	if tok == "" {
		t.Fatalf("seed: %d %s", r.Status, r.Body)
	}
	hr := c.rawMCP(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping","arguments":{}}}`,
		raw{protocol: "2025-11-25", header: []string{tokenHeader, tok}})
	var rpc struct {
		Result struct {
			Content           []struct{ Text string }
			StructuredContent struct {
				Error struct{ Code string }
			}
			IsError bool
		}
	}
	body := hr.Body
	if _, data, ok := bytes.Cut(body, []byte("\ndata: ")); ok { // an SSE answer
		body = data
	}
	if err := json.Unmarshal(body, &rpc); err != nil {
		t.Fatalf("tools/call: %d %s", hr.Status, hr.Body)
	}
	switch res := rpc.Result; {
	case !res.IsError && len(res.Content) == 1 && res.Content[0].Text == "pong":
		return "ran"
	case res.IsError:
		return res.StructuredContent.Error.Code
	}
	t.Fatalf("tools/call: %s", hr.Body)
	return ""
}

// TestRateLimitBy: 30 calls, each from a new rollout (a fresh cookie and
// a fresh token from /seed_session), against mcp.rate_limit 0.1/s, burst
// 1. Keyed by session (the default), every call runs: each session has a
// bucket of its own. Keyed by client address, all but the burst are
// refused, and another address has its own bucket; keyed by server, all
// but the burst are refused, whatever the address.
func TestRateLimitBy(t *testing.T) {
	for _, tc := range []struct {
		by           string
		ran, limited int // of the 30 calls from 127.0.0.1
		otherAddress string
	}{
		{"", 30, 0, "ran"},
		{"session", 30, 0, "ran"},
		{"client", 1, 29, "ran"},
		{"server", 1, 29, "rate_limited"},
	} {
		t.Run("by="+tc.by, func(t *testing.T) {
			s := rateLimitServer(t, tc.by)
			ran, limited := 0, 0
			for range 30 {
				switch got := s.freshPing(t, "127.0.0.1"); got {
				case "ran":
					ran++
				case "rate_limited":
					limited++
				default:
					t.Fatalf("a call failed with %s", got)
				}
			}
			if ran != tc.ran || limited != tc.limited {
				t.Errorf("of 30 calls, %d ran and %d were rate_limited; want %d and %d", ran, limited, tc.ran, tc.limited)
			}
			if got := s.freshPing(t, "127.0.0.2"); got != tc.otherAddress {
				t.Errorf("a call from 127.0.0.2: %s, want %s", got, tc.otherAddress)
			}
		})
	}
}
