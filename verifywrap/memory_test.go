//go:build !race

// Allocation figures under the race detector mean little, and normalizing
// 80 MiB under it takes a minute: these run without it, and with
// MCPDOOR_LONG=1 (scripts/test.sh).

package verifywrap

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/longtest"
)

// countingVerifier reads the trajectory as it streams in, through one
// buffer of its own, counting the names of both spellings it sees, and
// answers the first call echoed.
func countingVerifier(bare, prefixed *int) http.Handler {
	const keep = 64 // longer than a name: one split across reads is whole in the next window
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, keep+64<<10)
		n := 0 // bytes in buf
		count := func(window []byte) {
			*bare += bytes.Count(window, []byte(`"name":"get_weather"`))
			*prefixed += bytes.Count(window, []byte(`"name":"mcp__weather__get_weather"`))
		}
		for {
			m, err := r.Body.Read(buf[n:])
			n += m
			if err != nil {
				count(buf[:n])
				break
			}
			if n > keep {
				// Count what cannot be part of a name that is still coming in.
				cut := n - keep
				for cut > 0 && buf[cut-1] != ',' {
					cut--
				}
				count(buf[:cut])
				n = copy(buf, buf[cut:n])
			}
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"reward":1.0,"response":{"output":[{"type":"function_call","call_id":"call_0","name":"get_weather"}]}}`)
	})
}

// TestWrapMemory: normalizing an 80 MiB trajectory — over the 64 MiB that
// was the default limit — allocates at most 1.75 times the body, all told:
// the body is held once, and the verifier reads the normalized copy as a
// stream from it. Reading the body takes 1.5 times it: parts until half of
// it has come, then its own buffer (a stalled client so holds at most
// twice what it sent; the quarter it waited for before held four times). The verifier sees every name bare, and the client gets
// the emitted name back.
func TestWrapMemory(t *testing.T) {
	longtest.Skip(t, "normalizes 80 MiB")
	body := bigTrajectory(80 << 20)
	calls := bytes.Count(body, []byte(`"name":"mcp__weather__get_weather"`))
	var bare, prefixed int
	srv := httptest.NewServer(Wrap(countingVerifier(&bare, &prefixed), "weather", &Options{MaxBodyBytes: 1 << 30}))
	defer srv.Close()

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	resp, err := http.Post(srv.URL, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}

	const want = `{"reward":1.0,"response":{"output":[{"type":"function_call","call_id":"call_0","name":"mcp__weather__get_weather"}]}}`
	if resp.StatusCode != http.StatusOK || string(got) != want {
		t.Fatalf("POST of %d bytes: %d %.300s, want 200 %s", len(body), resp.StatusCode, got, want)
	}
	if bare != calls || prefixed != 0 {
		t.Errorf("the verifier saw %d bare names and %d prefixed, want %d bare", bare, prefixed, calls)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("body %d bytes, %d calls: %d bytes allocated, %.2f times the body", len(body), calls, alloc, float64(alloc)/float64(len(body)))
	if limit := uint64(len(body)) * 7 / 4; alloc > limit {
		t.Errorf("normalizing a body of %d bytes allocated %d bytes, %.2f times the body; want at most 1.75 times", len(body), alloc, float64(alloc)/float64(len(body)))
	}
}
