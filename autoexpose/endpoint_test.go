package autoexpose

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/token"
)

// rpcError is the body of a JSON-RPC error response, as the door writes it.
func rpcError(id string, code int, message string) string {
	m, _ := json.Marshal(message)
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":` + strconv.Itoa(code) + `,"message":` + string(m) + `}}`
}

// TestEndpointStepOrder: a request that fails two of the endpoint's steps
// at once gets the refusal of the step that comes first in the chain
// (endpoint.go): the guard (403) before the session check (421) before the
// lifecycle (503) before the body (413) before the session limits (403 for
// a token, 503 for the cap) and the batch limit (413). Through the Door, its
// own read of the session (421) comes before everything the router serves,
// the endpoint's guard included, and after the rollout prefix is stripped.
// Each case gets the exact status and body a client sees.
func TestEndpointStepOrder(t *testing.T) {
	const limit = 256
	big := `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2*limit) + `"}}`
	const ping = `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	tooLarge := rpcError("7", -32600, "request body exceeds the 256-byte limit (mcp.max_body_bytes)")
	foreign := "forbidden: Origin \"https://evil.example\" is not this server's origin (see mcp.allowed_origins)\n"
	misrouted := rpcError("7", -32003, (&sessions.Misrouted{SID: "elsewhere"}).Error())

	type request struct {
		path, body, origin, token string
	}
	serve := func(h http.Handler, q request) (int, string) {
		t.Helper()
		path := q.path
		if path == "" {
			path = "/mcp"
		}
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(q.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if q.origin != "" {
			req.Header.Set("Origin", q.origin)
		}
		if q.token != "" {
			req.Header.Set(rollout.DefaultTokenHeader, q.token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Code, w.Body.String()
	}
	check := func(t *testing.T, h http.Handler, q request, status int, body string) {
		t.Helper()
		if got, b := serve(h, q); got != status || b != body {
			t.Errorf("got %d %q\nwant %d %q", got, b, status, body)
		}
	}

	// A rollout server; its store holds no session "elsewhere".
	rolloutDoor := func(t *testing.T, m MCPConfig) (*Door, chi.Router, string) {
		t.Helper()
		m.MaxBodyBytes = limit
		r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
		door, err := Install(r, enabled(m))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { door.Close() })
		tok, err := token.NewCodec(door.name, door.calls.sessions.Keys(), 0).Mint(token.Payload{SID: "elsewhere"})
		if err != nil {
			t.Fatal(err)
		}
		return door, r, tok
	}

	t.Run("open", func(t *testing.T) {
		door, r, stale := rolloutDoor(t, MCPConfig{MaxBatch: 2})
		// Through the router: the endpoint's own chain.
		t.Run("guard before the body", func(t *testing.T) {
			check(t, r, request{body: big, origin: "https://evil.example"}, 403, foreign)
		})
		t.Run("guard before the session check", func(t *testing.T) {
			check(t, r, request{body: ping, origin: "https://evil.example", token: stale}, 403, foreign)
		})
		t.Run("session check before the body", func(t *testing.T) {
			check(t, r, request{body: big, token: stale}, 421, misrouted)
		})
		t.Run("body before the batch limit", func(t *testing.T) {
			batch := "[" + strings.Repeat(ping+",", 2) + ping + `,{"pad":"` + strings.Repeat("x", limit) + `"}]`
			check(t, r, request{body: batch}, 413, rpcError("null", -32600, "request body exceeds the 256-byte limit (mcp.max_body_bytes)"))
		})
		// Through the Door: its read of the session, after the prefix,
		// before the router.
		t.Run("the Door's session read before the guard", func(t *testing.T) {
			check(t, door, request{body: ping, origin: "https://evil.example", token: stale}, 421, misrouted)
		})
		t.Run("the prefix before the Door's session read", func(t *testing.T) {
			check(t, door, request{path: "/ng-rollout/r1/mcp", body: big, token: stale}, 421, misrouted)
		})
	})

	t.Run("closed", func(t *testing.T) {
		door, r, stale := rolloutDoor(t, MCPConfig{})
		if err := door.Close(); err != nil {
			t.Fatal(err)
		}
		t.Run("guard before the lifecycle", func(t *testing.T) {
			check(t, r, request{body: ping, origin: "https://evil.example"}, 403, foreign)
		})
		t.Run("session check before the lifecycle", func(t *testing.T) {
			check(t, r, request{body: ping, token: stale}, 421, misrouted)
		})
		t.Run("lifecycle before the body", func(t *testing.T) {
			check(t, r, request{body: big}, 503, "mcpdoor: this MCP endpoint is closed (the server is shutting down)\n")
		})
	})

	t.Run("exclusive", func(t *testing.T) {
		_, r, _ := rolloutDoor(t, MCPConfig{Exclusive: true, SessionSecret: []string{"a test secret of at least thirty-two bytes"}})
		t.Run("body before the slot's token", func(t *testing.T) {
			check(t, r, request{body: big}, 413, tooLarge)
		})
		t.Run("the slot's token", func(t *testing.T) {
			check(t, r, request{body: ping}, 403, rpcError("7", -32000, "mcpdoor: this MCP server is exclusive and serves one rollout at a time; opening a session needs "+
				"the rollout's session token: send it in the X-NeMo-Gym-Session-Token header, as the mcp.headers of the /seed_session response give it"))
		})
	})

	t.Run("stateful", func(t *testing.T) {
		_, srv := statefulServer(t, "  max_sessions: 1\n  max_body_bytes: 256\n")
		if resp, body := rawInitialize(t, srv.Client(), srv.URL+"/mcp", 1); resp.StatusCode != 200 {
			t.Fatalf("initialize: %d %s", resp.StatusCode, body)
		}
		post := func(q request) (int, string) {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(q.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			return do(t, req)
		}
		t.Run("body before the session cap", func(t *testing.T) {
			if status, body := post(request{body: big}); status != 413 || body != tooLarge {
				t.Errorf("got %d %q, want 413 %q", status, body, tooLarge)
			}
		})
		t.Run("the session cap", func(t *testing.T) {
			if status, body := post(request{body: ping}); status != 503 || !strings.Contains(body, `"code":-32000`) ||
				!strings.Contains(body, "live sessions, its limit (mcp.max_sessions)") {
				t.Errorf("got %d %q, want the cap's 503", status, body)
			}
		})
	})
}
