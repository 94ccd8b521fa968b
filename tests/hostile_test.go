package tests

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// hostile is a server whose routes misbehave on purpose: they wait, hang,
// flood, panic. A plain API (no rollout routes) that lets tokenless clients
// call, so that raw JSON-RPC requests reach its tools.
type hostile struct {
	*server
	door *autoexpose.Door
	// started receives a handler's path when it starts.
	started chan string
	// ended receives what /wait saw: its context's error, and when.
	ended chan ended
	// release lets /hang return; closed when the test ends.
	release chan struct{}
	// answered lets /late_progress report, after its call has been
	// answered; late receives what Progress then returned.
	answered chan struct{}
	late     chan error

	mu       sync.Mutex
	recorded []byte // the body /record was last sent
	written  int64  // how many bytes /huge's writes accepted
}

// ended is how a handler's context ended.
type ended struct {
	err error
	at  time.Time
}

const (
	hugeBytes = 100 << 20 // what /huge writes
	hugeChunk = 64 << 10
)

// newHostile serves the hostile routes with mcpdoor installed; extra is
// YAML added to the mcp block (indented by two spaces), and edit, when
// given, changes the config then.
func newHostile(t *testing.T, extra string, edit ...func(*autoexpose.Config)) *hostile {
	t.Helper()
	cfg, err := autoexpose.ParseConfig([]byte(`
name: hostile
expose_tools_over_mcp: true
mcp:
  session_secret: "` + testSecret + `"
` + extra))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	for _, e := range edit {
		e(&cfg)
	}
	h := &hostile{
		started:  make(chan string, 16),
		ended:    make(chan ended, 16),
		release:  make(chan struct{}),
		answered: make(chan struct{}),
		late:     make(chan error, 1),
	}
	r := chi.NewRouter()
	r.Post("/wait", func(w http.ResponseWriter, r *http.Request) {
		h.started <- "/wait"
		<-r.Context().Done()
		h.ended <- ended{r.Context().Err(), time.Now()}
		http.Error(w, r.Context().Err().Error(), http.StatusServiceUnavailable)
	})
	r.Post("/hang", func(w http.ResponseWriter, r *http.Request) {
		h.started <- "/hang"
		// It ignores its context, and writes after the call has been
		// answered.
		<-h.release
		io.WriteString(w, "too late")
	})
	r.Post("/late_progress", func(w http.ResponseWriter, r *http.Request) {
		h.started <- "/late_progress"
		select {
		case <-h.answered:
		case <-h.release:
		}
		h.late <- autoexpose.Progress(r.Context(), 1, 1, "too late")
	})
	r.Post("/huge", func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, hugeChunk)
		var n int64
		for range hugeBytes / hugeChunk {
			k, _ := w.Write(chunk) // ignores the error, as careless handlers do
			n += int64(k)
		}
		h.mu.Lock()
		h.written = n
		h.mu.Unlock()
	})
	r.Post("/record", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.recorded = b
		h.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(b)
	})
	r.Post("/boom", func(w http.ResponseWriter, r *http.Request) {
		panic("kaboom: secret detail")
	})
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.server, h.door = serve(t, r), door
	t.Cleanup(func() { close(h.release) })
	return h
}

// waitStarted waits for the handler at path to start.
func (h *hostile) waitStarted(t *testing.T, path string) {
	t.Helper()
	select {
	case p := <-h.started:
		if p != path {
			t.Fatalf("%s started, want %s", p, path)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not start", path)
	}
}

// waitEnded waits (generously) for /wait's context to end.
func (h *hostile) waitEnded(t *testing.T) ended {
	t.Helper()
	select {
	case e := <-h.ended:
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context was not cancelled within 10s")
	}
	return ended{}
}

// answerOf is the body of the answer to a POST whose one message is data:
// data itself, since the answer streams nothing (application/json).
func answerOf(data string) string { return data }

// echoCall is a tools/call that the hostile server answers with its
// arguments, and echoAnswer the answer: the server still serves.
const (
	echoCall   = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"record","arguments":{"still":"serving"}}}`
	echoAnswer = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"still\":\"serving\"}"}]}}`
)

// stillServes checks that the server answers a good call as it should.
func (h *hostile) stillServes(t *testing.T) {
	t.Helper()
	r := h.rawMCP(t, echoCall, raw{protocol: "2025-11-25"})
	if r.Status != http.StatusOK || string(r.Body) != answerOf(echoAnswer) {
		t.Errorf("after that, a good call got %d %q, want 200 %q", r.Status, r.Body, answerOf(echoAnswer))
	}
}

// TestBadInput sends what a broken or hostile client might, and checks the
// exact answer and that the server serves the next call.
func TestBadInput(t *testing.T) {
	t.Parallel() // a refused body costs the server net/http's half-second wait before it closes the connection
	h := newHostile(t, "")
	call := func(tool, args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	}
	nested := func(depth int) string {
		return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
	}
	const plain = "text/plain; charset=utf-8"
	for _, tc := range []struct {
		name, body  string
		chunked     bool // sent without a Content-Length
		status      int
		contentType string
		want        string
		recorded    string // what /record must have been sent, if anything
	}{
		{
			name:        "body over max_body_bytes",
			body:        call("record", `{"s":"`+strings.Repeat("x", 10<<20)+`"}`),
			status:      http.StatusRequestEntityTooLarge,
			contentType: "application/json",
			want:        `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"request body exceeds the 4194304-byte limit (mcp.max_body_bytes)"}}`,
		},
		{
			name:        "body over max_body_bytes, chunked",
			body:        call("record", `{"s":"`+strings.Repeat("x", 10<<20)+`"}`),
			chunked:     true,
			status:      http.StatusRequestEntityTooLarge,
			contentType: "application/json",
			want:        `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"request body exceeds the 4194304-byte limit (mcp.max_body_bytes)"}}`,
		},
		{
			name:        "body over max_body_bytes, its id last",
			body:        `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"record","arguments":{"s":"` + strings.Repeat("x", 10<<20) + `"}},"id":1}`,
			status:      http.StatusRequestEntityTooLarge,
			contentType: "application/json",
			want:        `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request body exceeds the 4194304-byte limit (mcp.max_body_bytes)"}}`,
		},
		{
			name:        "chunked body within max_body_bytes",
			body:        call("record", `{"still":"serving"}`),
			chunked:     true,
			status:      http.StatusOK,
			contentType: "application/json",
			want:        answerOf(echoAnswer),
		},
		{
			name:        "invalid JSON",
			body:        `{"jsonrpc":"2.0","id":1,"method":"tools/call",`,
			status:      http.StatusBadRequest,
			contentType: plain,
			want:        "malformed payload: unmarshaling jsonrpc message: unexpected EOF\n",
		},
		{
			name:        "not JSON at all",
			body:        `{not json`,
			status:      http.StatusBadRequest,
			contentType: plain,
			want:        "malformed payload: unmarshaling jsonrpc message: json: expected '\"' at the beginning of a string value: not json\n",
		},
		{
			name:        "tool name of the wrong type",
			body:        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`,
			status:      http.StatusOK,
			contentType: "application/json",
			want:        answerOf(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"handling 'tools/call': invalid params: unmarshaling \"{\\\"name\\\":5}\" into a *mcp.CallToolParamsRaw: json: cannot unmarshal \"5}\" into Go struct field mcp.CallToolParamsRaw.name of type string"}}`),
		},
		{
			name:        "id of the wrong type",
			body:        `{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{"name":"record"}}`,
			status:      http.StatusBadRequest,
			contentType: plain,
			want:        "malformed payload: parse error: invalid ID type map[string]interface {}\n",
		},
		{
			name:        "arguments of the wrong type",
			body:        call("record", `[1,2]`),
			status:      http.StatusOK,
			contentType: "application/json",
			want:        answerOf(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"HTTP 422 from POST /record: Invalid arguments for record (checked against its input schema; the route was not called): arguments: want object, got array"}],"structuredContent":{"error":{"code":"invalid_arguments","message":"arguments: want object, got array","status":422,"effect":"not_applied"}},"isError":true}}`),
		},
		{
			name:        "arguments nested 10,000 levels",
			body:        call("record", nested(10000)),
			status:      http.StatusBadRequest,
			contentType: plain,
			want:        "malformed payload: unmarshaling jsonrpc message: json: exceeded maximum nesting depth of 1000\n",
		},
		{
			name:        "arguments nested as deep as the SDK reads",
			body:        call("record", nested(990)),
			status:      http.StatusOK,
			contentType: "application/json",
			want:        answerOf(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.ReplaceAll(nested(990), `"`, `\"`) + `"}]}}`),
			recorded:    nested(990),
		},
		{
			// The handler is sent the bytes as they came; JSON encoding
			// the answer turns them into U+FFFD.
			name:        "invalid UTF-8 in arguments",
			body:        call("record", "{\"s\":\"a\xff\xfeb\"}"),
			status:      http.StatusOK,
			contentType: "application/json",
			want:        answerOf(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"s\":\"a\ufffd\ufffdb\"}"}]}}`),
			recorded:    "{\"s\":\"a\xff\xfeb\"}",
		},
		{
			name:        "a handler that panics",
			body:        call("boom", `{}`),
			status:      http.StatusOK,
			contentType: "application/json",
			want:        answerOf(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"HTTP 500 from POST /boom: Internal Server Error"}],"structuredContent":{"error":{"code":"internal_server_error","message":"Internal Server Error","status":500,"effect":"unknown"}},"isError":true}}`),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader = strings.NewReader(tc.body)
			if tc.chunked {
				body = io.MultiReader(body)
			}
			r := h.rawMCP(t, "", raw{protocol: "2025-11-25", body: body})
			if r.Status != tc.status || r.Header.Get("Content-Type") != tc.contentType || string(r.Body) != tc.want {
				t.Errorf("got %d %s\n%.2000q\nwant %d %s\n%.2000q", r.Status, r.Header.Get("Content-Type"), r.Body, tc.status, tc.contentType, tc.want)
			}
			if tc.recorded != "" {
				h.mu.Lock()
				got := string(h.recorded)
				h.mu.Unlock()
				if got != tc.recorded {
					t.Errorf("the handler was sent %.200q, want %.200q", got, tc.recorded)
				}
			}
			h.stillServes(t)
		})
	}
}
