package sdkserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBatchSize: the messages of a batch, counted without decoding them.
func TestBatchSize(t *testing.T) {
	for _, c := range []struct {
		body string
		want int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0},
		{` [ ] `, 0},
		{`[{"id":1}]`, 1},
		{"\n\t [ {\"a\":[1,2,{\"b\":\"],[\"}]} , 2 ,\"x,y\\\",\" ,null]", 4},
		{`[1,2,3`, 3},
		{`[{"a":"b"`, 0}, // an object that does not end
		{`[,,]`, 0},
		{``, 0},
	} {
		if got := BatchSize([]byte(c.body)); got != c.want {
			t.Errorf("BatchSize(%q) = %d, want %d", c.body, got, c.want)
		}
	}
}

// TestBatchLimitEdges: a batch of exactly mcp.max_batch messages is served,
// one more is refused, whitespace before it or not; a body that is not a
// batch reaches the go-sdk as it came.
func TestBatchLimitEdges(t *testing.T) {
	var got []byte
	h := LimitBatch(2, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
	}))
	for _, c := range []struct {
		body   string
		status int
	}{
		{`[1,2]`, http.StatusOK},
		{strings.Repeat(" ", 100) + "\n[1,2]", http.StatusOK},
		{`[1,2,3]`, http.StatusRequestEntityTooLarge},
		{strings.Repeat(" ", 100) + "[1,2,3]", http.StatusRequestEntityTooLarge},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, http.StatusOK},
		{strings.Repeat(" ", 200), http.StatusOK},
		{``, http.StatusOK},
	} {
		got = nil
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(c.body)))
		if w.Code != c.status {
			t.Errorf("%.20q: %d %s, want %d", c.body, w.Code, w.Body, c.status)
		}
		if c.status == http.StatusOK && string(got) != c.body {
			t.Errorf("%.20q: the handler read %q", c.body, got)
		}
	}
}

// FuzzBatchSize: for any JSON array, BatchSize counts what encoding/json
// decodes.
func FuzzBatchSize(f *testing.F) {
	for _, seed := range []string{`[]`, `[1, "a", {"b": [2, "]"]}, null]`, `[[[]]]`, ` ["\\\"", 1e5 ]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var msgs []json.RawMessage
		if json.Unmarshal(body, &msgs) != nil || msgs == nil {
			return
		}
		if got := BatchSize(body); got != len(msgs) {
			t.Fatalf("BatchSize(%q) = %d, want %d", body, got, len(msgs))
		}
	})
}
