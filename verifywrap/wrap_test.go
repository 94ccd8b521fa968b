package verifywrap

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// trajectory is a /verify request body as an MCP-native agent records it.
const trajectory = `{"responses_create_params": {"tools": [{"type": "function", "name": "mcp__weather__get_weather"}]},
 "response": {"id": "resp_1", "output": [
  {"type": "function_call", "call_id": "c1", "name": "mcp__weather__get_weather", "arguments": "{\"city\": \"Paris\"}"},
  {"type": "function_call_output", "call_id": "c1", "output": "{\"temp\": 21.0}"},
  {"type": "function_call", "call_id": "c2", "name": "mcp__other__lookup", "arguments": "{}"},
  {"type": "function_call", "call_id": "c3", "name": "get_time", "arguments": "{}"}
 ]}}`

// normalized is trajectory as the verifier must see it.
var normalized = strings.Replace(trajectory, `"name": "mcp__weather__get_weather", "arguments"`, `"name": "get_weather", "arguments"`, 1)

// echoVerifier scores any trajectory 1.0. It reports the function_call names
// it saw and the request length it was told, and echoes response back.
func echoVerifier(calls *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		var req struct {
			Response json.RawMessage `json:"response"`
		}
		var names struct {
			Response struct {
				Output []struct{ Type, Name string } `json:"output"`
			} `json:"response"`
		}
		if json.Unmarshal(body, &req) != nil || json.Unmarshal(body, &names) != nil {
			http.Error(w, "bad trajectory", http.StatusBadRequest)
			return
		}
		seen := []string{}
		for _, item := range names.Response.Output {
			if item.Type == "function_call" {
				seen = append(seen, item.Name)
			}
		}
		seenJSON, _ := json.Marshal(seen)
		w.Header().Set("Content-Type", "application/json")
		http.SetCookie(w, &http.Cookie{Name: "verified", Value: "1"})
		fmt.Fprintf(w, `{"reward": 1.0, "seen": %s, "length": [%d, %q, %d], "response": %s}`,
			seenJSON, r.ContentLength, r.Header.Get("Content-Length"), len(body), req.Response)
	})
}

// logger collects Logf lines; handlers log on the server's goroutines.
type logger struct {
	mu    sync.Mutex
	lines []string
}

func (l *logger) Logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logger) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// serve starts a server for Wrap(next, "weather", opts) and returns it and the
// lines its Logf received.
func serve(t *testing.T, next http.Handler, opts *Options) (*httptest.Server, *logger) {
	t.Helper()
	log := &logger{}
	if opts == nil {
		opts = &Options{}
	}
	opts.Logf = log.Logf
	srv := httptest.NewServer(Wrap(next, "weather", opts))
	t.Cleanup(srv.Close)
	return srv, log
}

// post sends body to srv's /verify and returns the response and its body.
func post(t *testing.T, srv *httptest.Server, body io.Reader) (*http.Response, string) {
	t.Helper()
	resp, err := srv.Client().Post(srv.URL+"/verify", "application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(got)
}

func assertLines(t *testing.T, log *logger, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, log.Lines(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Logf lines (-want +got):\n%s", diff)
	}
}

func TestWrap(t *testing.T) {
	n := len(normalized)
	response := trajectory[strings.Index(trajectory, `{"id"`) : len(trajectory)-1]
	tests := []struct {
		name   string
		body   io.Reader
		header string // the Content-Length header the verifier sees
	}{
		{"content length", strings.NewReader(trajectory), strconv.Itoa(n)},
		// A reader of unknown length makes the client send the body chunked.
		{"chunked", io.MultiReader(strings.NewReader(trajectory)), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv, log := serve(t, echoVerifier(&calls), nil)
			resp, got := post(t, srv, tt.body)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("status = %d, want 200", resp.StatusCode)
			}
			want := fmt.Sprintf(`{"reward": 1.0, "seen": ["get_weather","mcp__other__lookup","get_time"], "length": [%d, %q, %d], "response": %s}`,
				n, tt.header, n, response)
			if got != want {
				t.Errorf("body =\n%s\nwant\n%s", got, want)
			}
			if resp.ContentLength != int64(len(want)) {
				t.Errorf("Content-Length = %d, want %d", resp.ContentLength, len(want))
			}
			if got := resp.Header.Get("Set-Cookie"); got != "verified=1" {
				t.Errorf("Set-Cookie = %q, want %q", got, "verified=1")
			}
			if got := resp.Header.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", got)
			}
			if calls.Load() != 1 {
				t.Errorf("verifier called %d times, want 1", calls.Load())
			}
			assertLines(t, log)
		})
	}
}

func TestWrapDeclaredContentLength(t *testing.T) {
	// The verifier declares the length of what it writes; the restored names
	// are longer, so Wrap must correct the header or the body is cut short.
	reply := `{"response": {"output": [{"type": "function_call", "call_id": "c1", "name": "get_weather"}]}, "reward": 1.0}`
	verify := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(reply)))
		io.WriteString(w, reply)
	})
	srv, _ := serve(t, verify, nil)
	resp, got := post(t, srv, strings.NewReader(trajectory))
	want := strings.Replace(reply, `"get_weather"`, `"mcp__weather__get_weather"`, 1)
	if got != want {
		t.Errorf("body = %s, want %s", got, want)
	}
	if resp.ContentLength != int64(len(want)) {
		t.Errorf("Content-Length = %d, want %d", resp.ContentLength, len(want))
	}
}

func TestWrapPassThrough(t *testing.T) {
	tests := []struct {
		name, body string
		logged     []string
	}{
		{"form", "city=Paris&tool=mcp__weather__get_weather", []string{"POST /verify: request body: invalid JSON"}},
		{"truncated JSON", trajectory[:100], []string{"POST /verify: request body: invalid JSON"}},
		{"empty", "", []string{"POST /verify: request body: invalid JSON"}},
		{"array", `[{"type": "function_call", "call_id": "c1", "name": "mcp__weather__x"}]`, nil},
		{"no names to change", strings.ReplaceAll(trajectory, "mcp__weather__", "mcp__maps__"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buffered atomic.Bool
			echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, isRecorder := w.(*recorder)
				buffered.Store(isRecorder)
				w.Header().Set("Content-Length", strconv.FormatInt(r.ContentLength, 10))
				io.Copy(w, r.Body)
			})
			srv, log := serve(t, echo, nil)
			resp, got := post(t, srv, strings.NewReader(tt.body))
			if resp.StatusCode != http.StatusOK || got != tt.body {
				t.Errorf("response = %d %#q, want 200 %#q", resp.StatusCode, got, tt.body)
			}
			if buffered.Load() {
				t.Error("verifier wrote to a recorder, want the server's own writer")
			}
			assertLines(t, log, tt.logged...)
		})
	}
}

func TestWrapBodyLimit(t *testing.T) {
	tests := []struct {
		name      string
		limit     int64
		limitName string
		size      int
		status    int
		body      string
		logged    []string
	}{
		// A body of spaces is not JSON: it reaches the verifier, and Logf hears of it.
		{"at limit", 64, "", 64, http.StatusOK, "", []string{"POST /verify: request body: invalid JSON"}},
		{"over limit", 64, "", 65, http.StatusRequestEntityTooLarge, "request body exceeds the 64-byte limit\n", []string{"POST /verify: request body over 64 bytes"}},
		{"over limit, named", 64, "mcp.rollout.max_verify_bytes", 65, http.StatusRequestEntityTooLarge, "request body exceeds the 64-byte limit (mcp.rollout.max_verify_bytes)\n", []string{"POST /verify: request body over 64 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var called atomic.Bool
			verify := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { called.Store(true) })
			srv, log := serve(t, verify, &Options{MaxBodyBytes: tt.limit, LimitName: tt.limitName})
			body := bytes.Repeat([]byte{' '}, tt.size)
			resp, got := post(t, srv, bytes.NewReader(body))
			if resp.StatusCode != tt.status || got != tt.body {
				t.Errorf("response = %d %q, want %d %q", resp.StatusCode, got, tt.status, tt.body)
			}
			if want := tt.status == http.StatusOK; called.Load() != want {
				t.Errorf("verifier called = %v, want %v", called.Load(), want)
			}
			assertLines(t, log, tt.logged...)
		})
	}
}

func TestWrapResponses(t *testing.T) {
	reply := `{"response": {"output": [{"type": "function_call", "call_id": "c1", "name": "get_weather"}]}}`
	restored := strings.Replace(reply, `"get_weather"`, `"mcp__weather__get_weather"`, 1)
	tests := []struct {
		name   string
		verify http.HandlerFunc
		status int
		body   string
		logged []string
	}{
		{
			name:   "writes nothing",
			verify: func(w http.ResponseWriter, r *http.Request) {},
			status: http.StatusOK,
		},
		{
			name: "writes header several times, flushes, writes in pieces",
			verify: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusEarlyHints)
				w.WriteHeader(http.StatusAccepted)
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, reply[:40])
				w.(http.Flusher).Flush()
				w.WriteHeader(http.StatusTeapot)
				io.WriteString(w, reply[40:])
				if err := http.NewResponseController(w).Flush(); err != nil {
					t.Errorf("ResponseController.Flush: %v", err)
				}
			},
			status: http.StatusAccepted,
			body:   restored,
		},
		{
			name: "non-2xx JSON is restored too",
			verify: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusUnprocessableEntity)
				io.WriteString(w, reply)
			},
			status: http.StatusUnprocessableEntity,
			body:   restored,
		},
		{
			name: "non-JSON passes through",
			verify: func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "scoring failed: get_weather", http.StatusInternalServerError)
			},
			status: http.StatusInternalServerError,
			body:   "scoring failed: get_weather\n",
			logged: []string{"POST /verify: response body: invalid JSON"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, log := serve(t, tt.verify, nil)
			resp, got := post(t, srv, strings.NewReader(trajectory))
			if resp.StatusCode != tt.status || got != tt.body {
				t.Errorf("response = %d %#q, want %d %#q", resp.StatusCode, got, tt.status, tt.body)
			}
			if resp.ContentLength != int64(len(tt.body)) {
				t.Errorf("Content-Length = %d, want %d", resp.ContentLength, len(tt.body))
			}
			assertLines(t, log, tt.logged...)
		})
	}
}

func TestWrapNilOptions(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(Wrap(echoVerifier(&calls), "weather", nil))
	defer srv.Close()
	_, got := post(t, srv, strings.NewReader(trajectory))
	if !strings.HasPrefix(got, `{"reward": 1.0, "seen": ["get_weather",`) {
		t.Errorf("body = %s, want the verifier to have seen get_weather", got)
	}
}

// TestWrapDefaultLimit: by default a body of up to 1 GiB is normalized
// and one over it gets 413 — told before a byte of it is read, when its
// Content-Length says so.
func TestWrapDefaultLimit(t *testing.T) {
	var called bool
	srv := httptest.NewServer(Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { called = true }), "weather", &Options{LimitName: "mcp.rollout.max_verify_bytes"}))
	defer srv.Close()
	for _, tc := range []struct {
		length int64
		want   string
	}{
		{1<<30 + 1, "HTTP/1.1 413 Request Entity Too Large|request body exceeds the 1073741824-byte limit (mcp.rollout.max_verify_bytes)\n"},
	} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		// A server that waits for the body would wait for ever: the deadline ends the test instead.
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(conn, "POST /verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", tc.length)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			conn.Close()
			t.Fatalf("Content-Length %d: %v", tc.length, err)
		}
		got, _ := io.ReadAll(resp.Body)
		conn.Close()
		if s := resp.Proto + " " + resp.Status + "|" + string(got); s != tc.want {
			t.Errorf("Content-Length %d: %q, want %q", tc.length, s, tc.want)
		}
	}
	if called {
		t.Error("the verifier ran")
	}
	if DefaultMaxBodyBytes != 1<<30 {
		t.Errorf("DefaultMaxBodyBytes = %d, want 1 GiB", DefaultMaxBodyBytes)
	}
}

// TestWrapChunkedBody: a body that does not declare its length is read as
// it comes, up to the limit: over it, 413; under it, normalized.
func TestWrapChunkedBody(t *testing.T) {
	var calls atomic.Int32
	srv, log := serve(t, echoVerifier(&calls), &Options{MaxBodyBytes: int64(len(trajectory))})
	// A reader of unknown length: the client sends it chunked.
	chunked := func(s string) io.Reader { return io.MultiReader(strings.NewReader(s)) }
	resp, got := post(t, srv, chunked(trajectory+" "))
	if want := fmt.Sprintf("request body exceeds the %d-byte limit\n", len(trajectory)); resp.StatusCode != http.StatusRequestEntityTooLarge || got != want {
		t.Errorf("over the limit: %d %q, want 413 %q", resp.StatusCode, got, want)
	}
	assertLines(t, log, fmt.Sprintf("POST /verify: request body over %d bytes", len(trajectory)))
	resp, got = post(t, srv, chunked(trajectory))
	if resp.StatusCode != http.StatusOK || !strings.Contains(got, `"seen": ["get_weather","mcp__other__lookup","get_time"]`) || calls.Load() != 1 {
		t.Errorf("at the limit: %d %s, %d calls", resp.StatusCode, got, calls.Load())
	}
}
