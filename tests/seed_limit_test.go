package tests

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// datasetRow is a /seed_session body as NeMo Gym's agents post it: the
// whole dataset row, whose responses_create_params carry the prompt with
// an inline base64 image of imageBytes bytes (before encoding), and the
// verifier's metadata beside it.
func datasetRow(t *testing.T, imageBytes int) string {
	t.Helper()
	img := make([]byte, imageBytes)
	copy(img, pngBytes())
	row := map[string]any{
		"responses_create_params": map[string]any{
			"input": []any{map[string]any{
				"role": "user",
				"content": []any{
					map[string]any{"type": "input_text", "text": "What is the weather in the city on this picture?"},
					map[string]any{"type": "input_image", "image_url": "data:image/png;base64," + base64.StdEncoding.EncodeToString(img)},
				},
			}},
			"tools": []any{map[string]any{"type": "function", "name": "weather", "parameters": map[string]any{"type": "object"}}},
		},
		"verifier_metadata": map[string]any{"expected_city": "Paris"},
		"allowed_tools":     []string{"weather"},
	}
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSeedLargeRow: a dataset row with a 6 MiB inline image — over
// mcp.max_body_bytes's 4 MiB, which caps MCP requests — is seeded: the
// response carries the token, whose allow-list the AllowedTools hook read
// from the whole row, and a tool call with it runs.
func TestSeedLargeRow(t *testing.T) {
	h, door, _ := newFixture(t, fixtureConfig(t))
	s := inProcess(t, h, door)
	row := datasetRow(t, 6<<20)
	c := s.newClient()
	r, meta := c.seedSession(row)
	tok := meta.Headers[tokenHeader]
	if r.Status != http.StatusOK || tok == "" {
		t.Fatalf("seed of %d bytes: %d %.200s", len(row), r.Status, r.Body)
	}
	cs := c.connect(mcpOptions{header: http.Header{tokenHeader: {tok}}, path: meta.URLPath})
	if got := listNames(t, cs); strings.Join(got, ",") != "weather" {
		t.Errorf("tools/list with the token: %q, want the row's allow-list [weather]", got)
	}
}

// TestSeedLimit: /seed_session has its own body limit,
// mcp.rollout.max_seed_bytes, apart from the MCP endpoint's: a row over it
// gets 413 naming the key, and the handler never sees it; a row under it
// and over mcp.max_body_bytes is seeded.
func TestSeedLimit(t *testing.T) {
	t.Parallel() // a refused body costs the server net/http's half-second wait before it closes the connection
	cfg := fixtureConfig(t)
	cfg.MCP.Rollout.MaxSeedBytes = 8 << 20
	cfg.MCP.MaxBodyBytes = 64 << 10
	h, door, _ := newFixture(t, cfg)
	s := inProcess(t, h, door)
	over := datasetRow(t, 6<<20+1<<10) // 8 MiB and a little more, base64 encoded
	if len(over) <= 8<<20 {
		t.Fatalf("row of %d bytes", len(over))
	}
	r := s.post("/seed_session", over)
	if want := "request body exceeds the 8388608-byte limit (mcp.rollout.max_seed_bytes)\n"; r.Status != http.StatusRequestEntityTooLarge || string(r.Body) != want {
		t.Errorf("over mcp.rollout.max_seed_bytes: %d %q, want 413 %q", r.Status, r.Body, want)
	}
	if r, meta := s.seedSession(datasetRow(t, 1<<20)); r.Status != http.StatusOK || meta.Headers[tokenHeader] == "" {
		t.Errorf("under mcp.rollout.max_seed_bytes: %d %.200s", r.Status, r.Body)
	}
}
