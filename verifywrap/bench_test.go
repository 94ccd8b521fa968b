package verifywrap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// bigTrajectory is a /verify body of at least size bytes: a long agent
// rollout of get_weather calls named mcp__weather__get_weather, each with
// its output and an assistant message, as a Responses API output.
func bigTrajectory(size int) []byte {
	text := strings.Repeat("a line of a file the agent read, with some code in it; ", 20)
	var b bytes.Buffer
	b.Grow(size + 4<<10)
	b.WriteString(`{"responses_create_params":{"input":"Weather in Paris?"},"response":{"id":"resp_1","output":[`)
	for n := 0; b.Len() < size; n++ {
		if n > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"function_call","call_id":"call_%d","name":"mcp__weather__get_weather","arguments":"{\"city\":\"Paris\"}"},`+
			`{"type":"function_call_output","call_id":"call_%d","output":%q},`+
			`{"type":"message","role":"assistant","content":[{"type":"output_text","text":%q}]}`, n, n, text, text)
	}
	b.WriteString(`]}}`)
	return b.Bytes()
}

// trajectory256 is a 256 MiB /verify body, made once.
var trajectory256 = sync.OnceValue(func() []byte { return bigTrajectory(256 << 20) })

// BenchmarkVerify256MiB normalizes a 256 MiB trajectory through Wrap, the
// verifier reading the normalized body to its end (impl=wrap), beside a
// plain json.Unmarshal of the same body (impl=unmarshal), the least a
// verifier that reads its trajectory does. Compare the two with
//
//	go test -run '^$' -bench Verify256MiB -benchtime 3x -count 6 ./verifywrap > bench.txt
//	benchstat -col /impl bench.txt
func BenchmarkVerify256MiB(b *testing.B) {
	body := trajectory256()
	b.Run("impl=wrap", func(b *testing.B) {
		h := Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			io.WriteString(w, `{"reward":1.0}`)
		}), "weather", nil)
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/verify", bytes.NewReader(body)))
			if w.Code != http.StatusOK {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	})
	b.Run("impl=unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			var v any
			if err := json.Unmarshal(body, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
