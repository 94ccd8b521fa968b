package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// longTrajectory is a /verify body the size of a long coding agent's
// rollout: size bytes or a little more of Responses API output — tool
// calls with their arguments, tool outputs, assistant messages — whose
// calls carry this server's mcp__fixture__ names.
func longTrajectory(t *testing.T, size int) (body []byte, calls int) {
	t.Helper()
	var output []map[string]any
	chunk := strings.Repeat("line of a file the agent read, with some code in it;\n", 80) // ~4 KiB
	for n, total := 0, 0; total < size; n++ {
		id := fmt.Sprintf("call_%d", n)
		args, _ := json.Marshal(map[string]string{"city": "Paris", "notes": chunk[:1024]})
		items := []map[string]any{
			{"type": "function_call", "call_id": id, "name": "mcp__fixture__weather", "arguments": string(args)},
			{"type": "function_call_output", "call_id": id, "output": chunk},
			{"type": "message", "role": "assistant", "content": []map[string]string{{"type": "output_text", "text": chunk[:2048]}}},
		}
		b, _ := json.Marshal(items)
		total += len(b)
		output = append(output, items...)
		calls++
	}
	body, err := json.Marshal(map[string]any{"response": map[string]any{"output": output}})
	if err != nil {
		t.Fatal(err)
	}
	return body, calls
}

// TestVerifyLongTrajectory: a /verify body over 10 MiB — NeMo Gym sets no
// cap, and long rollouts pass 4 MiB — reaches the handler, names
// normalized, and its answer comes back with the emitted names.
func TestVerifyLongTrajectory(t *testing.T) {
	h, door, _ := newFixture(t, uncheckedConfig(t))
	s := inProcess(t, h, door)
	// Rewriting 10 MiB of JSON both ways takes seconds under the race
	// detector on a busy machine; the default 30 s has run out there.
	s.client.Timeout = 3 * time.Minute
	body, calls := longTrajectory(t, 10<<20+64<<10)
	if len(body) <= 10<<20 {
		t.Fatalf("trajectory of %d bytes", len(body))
	}
	r := s.post("/verify", string(body))
	if r.Status != http.StatusOK {
		t.Fatalf("POST /verify with %d bytes: %d %.200s", len(body), r.Status, r.Body)
	}
	var got struct {
		Seen     []string `json:"seen_names"`
		Reward   float64  `json:"reward"`
		Response struct {
			Output []map[string]any `json:"output"`
		} `json:"response"`
	}
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Seen) != calls || got.Seen[0] != "weather" || got.Seen[calls-1] != "weather" || got.Reward != 1.0 {
		t.Errorf("verify saw %d names (%q ... %q), reward %v; want %d times weather, 1.0", len(got.Seen), got.Seen[0], got.Seen[len(got.Seen)-1], got.Reward, calls)
	}
	if name := got.Response.Output[0]["name"]; name != "mcp__fixture__weather" {
		t.Errorf("echoed name %v", name)
	}
}

// TestVerifyLimit: /verify has its own body limit, mcp.rollout.max_verify_bytes,
// apart from the MCP endpoint's; a body over it gets 413 naming the key,
// and the handler never sees it.
func TestVerifyLimit(t *testing.T) {
	t.Parallel() // a refused body costs the server net/http's half-second wait before it closes the connection
	cfg := uncheckedConfig(t)
	cfg.MCP.Rollout.MaxVerifyBytes = 1 << 20
	cfg.MCP.MaxBodyBytes = 64 << 10
	h, door, _ := newFixture(t, cfg)
	s := inProcess(t, h, door)
	body, _ := longTrajectory(t, 1<<20+1)
	r := s.post("/verify", string(body))
	if want := "request body exceeds the 1048576-byte limit (mcp.rollout.max_verify_bytes)\n"; r.Status != http.StatusRequestEntityTooLarge || string(r.Body) != want {
		t.Errorf("over mcp.rollout.max_verify_bytes: %d %q, want 413 %q", r.Status, r.Body, want)
	}
	// Under it, and over max_body_bytes: the handler answers.
	body, _ = longTrajectory(t, 512<<10)
	if r := s.post("/verify", string(body)); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"reward":1`) {
		t.Errorf("under mcp.rollout.max_verify_bytes: %d %.200s", r.Status, r.Body)
	}
}
