package rollout_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/leakcheck"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
)

// trajectory is a /verify body as an MCP agent of NeMo Gym records it: a
// call to this server's tool, one to another server's, and a bare one.
const trajectory = `{"response": {"output": [
  {"type": "function_call", "call_id": "c1", "name": "mcp__weather__get_weather", "arguments": "{\"city\": \"Paris\"}"},
  {"type": "function_call_output", "call_id": "c1", "output": "{\"temp\": 21}"},
  {"type": "function_call", "call_id": "c2", "name": "mcp__store__buy", "arguments": "{}"},
  {"type": "function_call", "call_id": "c3", "name": "forecast", "arguments": "{}"}
 ]}}`

// TestVerify: the verifier sees this server's names bare, every other byte
// as sent, and its response echoes the names the agent emitted.
func TestVerify(t *testing.T) {
	leakcheck.Check(t)
	var logs bytes.Buffer
	// Claims off: the trajectory's calls were never made.
	c, _ := newContract(t, rollout.Config{Claims: rollout.ClaimsOff}, &logs)
	var seen atomic.Value
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen.Store(string(body))
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	srv := httptest.NewServer(c.Verify(echo))
	resp, err := http.Post(srv.URL+"/verify", "application/json", strings.NewReader(trajectory))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	srv.Close()

	want := strings.Replace(trajectory, `"name": "mcp__weather__get_weather"`, `"name": "get_weather"`, 1)
	if got, _ := seen.Load().(string); got != want {
		t.Errorf("the verifier saw\n  %s\nwant\n  %s", got, want)
	}
	if resp.StatusCode != 200 || string(body) != trajectory {
		t.Errorf("response %d\n  %s\nwant the trajectory as sent", resp.StatusCode, body)
	}
	if logs.Len() > 0 {
		t.Errorf("log:\n%s", logs.String())
	}
}

// TestVerifyLimit: a body over mcp.rollout.max_verify_bytes gets 413
// naming the key, the verifier never runs, and the log says so, naming
// the rollout.
func TestVerifyLimit(t *testing.T) {
	leakcheck.Check(t)
	var logs bytes.Buffer
	c, _ := newContract(t, rollout.Config{MaxVerifyBytes: 64}, &logs)
	var calls atomic.Int32
	verifier := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.WriteString(w, `{"reward": 1.0}`)
	})
	r := chi.NewRouter()
	r.Method(http.MethodPost, rollout.VerifyPath, c.Verify(verifier))
	srv := httptest.NewServer(stripPrefix(r))
	var statuses []int
	var bodies []string
	for _, path := range []string{"/verify", "/ng-rollout/r-1/verify"} {
		for _, body := range []string{strings.Repeat(" ", 62) + "{}", strings.Repeat(" ", 63) + "{}"} {
			resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			statuses, bodies = append(statuses, resp.StatusCode), append(bodies, string(got))
		}
	}
	srv.Close()
	const tooLarge = "request body exceeds the 64-byte limit (mcp.rollout.max_verify_bytes)\n"
	wantBodies := []string{`{"reward": 1.0}`, tooLarge, `{"reward": 1.0}`, tooLarge}
	if !slices.Equal(statuses, []int{200, 413, 200, 413}) || !slices.Equal(bodies, wantBodies) || calls.Load() != 2 {
		t.Errorf("statuses %v, bodies %q, the verifier ran %d times", statuses, bodies, calls.Load())
	}
	const want = `level=WARN msg="mcpdoor: POST /verify: request body over 64 bytes"` + "\n" +
		`level=WARN msg="mcpdoor: POST /verify: request body over 64 bytes" rollout_id=r-1` + "\n"
	if logs.String() != want {
		t.Errorf("log:\n  %s\nwant:\n  %s", logs.String(), want)
	}
}
