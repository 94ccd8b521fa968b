//go:build !race

package autoexpose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/mcpdoor/mcpdoor/internal/longtest"
)

// Normalizing 80 MiB under the race detector takes minutes: this test runs
// without it, and with MCPDOOR_LONG=1 (scripts/test.sh).

// TestVerifyOverOldLimit: an 80 MiB trajectory — over the 64 MiB that was
// mcp.rollout.max_verify_bytes's default — goes through a rollout server's
// real /verify route: its verifier, which reads the body as a stream, sees
// every name bare, and the client gets the emitted name back.
func TestVerifyOverOldLimit(t *testing.T) {
	longtest.Skip(t, "80 MiB through /verify")
	r := chi.NewRouter()
	r.Post("/weather", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"weather":"sunny"}`) })
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
	var bare, others int
	r.Post("/verify", func(w http.ResponseWriter, r *http.Request) {
		dec := json.NewDecoder(r.Body)
		// {"response":{"output":[ items ]}}: walk to the array, then
		// decode one item at a time.
		for range 5 {
			if _, err := dec.Token(); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		}
		for dec.More() {
			var item struct{ Type, Name string }
			if err := dec.Decode(&item); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			switch {
			case item.Type != "function_call":
			case item.Name == "weather":
				bare++
			default:
				others++
			}
		}
		io.WriteString(w, `{"reward":1.0,"response":{"output":[{"type":"function_call","call_id":"call_0","name":"weather"}]}}`)
	})
	door, err := Install(r, Config{Name: "fixture", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler),
		// Claims off: the trajectory's calls were never made.
		MCP: MCPConfig{SessionSecret: []string{"a secret of at least thirty-two bytes"}, Rollout: Rollout{Claims: "off"}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(door)
	defer srv.Close()

	var body bytes.Buffer
	text := strings.Repeat("a line of a file the agent read, with some code in it; ", 40)
	body.WriteString(`{"response":{"output":[`)
	calls := 0
	for ; body.Len() < 80<<20; calls++ {
		fmt.Fprintf(&body, `{"type":"function_call","call_id":"call_%d","name":"mcp__fixture__weather","arguments":"{\"city\":\"Paris\"}"},`+
			`{"type":"function_call_output","call_id":"call_%d","output":%q},`, calls, calls, text)
	}
	body.WriteString(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Sunny."}]}]}}`)

	resp, err := srv.Client().Post(srv.URL+"/verify", "application/json", &body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	const want = `{"reward":1.0,"response":{"output":[{"type":"function_call","call_id":"call_0","name":"mcp__fixture__weather"}]}}`
	if resp.StatusCode != http.StatusOK || string(got) != want {
		t.Fatalf("POST /verify with an 80 MiB trajectory: %d %.200s, want 200 %s", resp.StatusCode, got, want)
	}
	if bare != calls || others != 0 {
		t.Errorf("the verifier saw %d bare names and %d others, want %d bare", bare, others, calls)
	}
}
