package autoexpose

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/fastpath"
	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
	"github.com/mcpdoor/mcpdoor/internal/store"
)

// The golden tests send the same requests to two endpoints of one config,
// on real loopback listeners — one with the fast path, one with it off, so
// that the go-sdk answers everything — and require the same answers: the
// same status, headers (Date aside), framing and body bytes. Each request
// also says whether the fast path must serve it, so that a request the fast
// path leaves to the go-sdk by mistake (which would compare equal, too) is
// caught.

// goldenSecret is the session secret of every golden door: a token minted
// for one verifies on the other.
const goldenSecret = "a golden test secret of at least 32 bytes"

// goldenRouter is the router of the golden doors: tools that answer in each
// of the ways a route can, and the rollout routes when rollout is set.
func goldenRouter(rollout bool) chi.Router {
	r := chi.NewRouter()
	r.Method(http.MethodPost, "/echo", Handler(func(_ context.Context, _ *http.Request, in echoText) (echoText, error) {
		return in, nil
	}, Describe("Echo the text back.")))
	r.Post("/raw", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(b)
	})
	r.Post("/json", func(w http.ResponseWriter, r *http.Request) {
		// Its arguments, or their "v" as it stands, or the string "s".
		b, _ := io.ReadAll(r.Body)
		var args map[string]json.RawMessage
		var s string
		if json.Unmarshal(b, &args) == nil && args["v"] != nil {
			b = args["v"]
		} else if json.Unmarshal(args["s"], &s) == nil {
			b = []byte(s)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
	r.Post("/teapot", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		io.WriteString(w, `{"error":"short & stout"}`)
	})
	r.Post("/panic", func(http.ResponseWriter, *http.Request) { panic("boom") })
	r.Post("/slow", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	r.Post("/report", func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		Progress(ctx, 1, 3, "one <of> three")
		Log(ctx, "debug", "a debug line")
		Log(ctx, "info", map[string]any{"step": 2, "note": "a & b"})
		Progress(ctx, 2, 0, "")
		Log(ctx, "error", "an error line")
		io.WriteString(w, `{"done":true}`)
	})
	// Elicit and Sample answer what the client said, or 409 with the error.
	r.Post("/ask", func(w http.ResponseWriter, r *http.Request) {
		res, err := Elicit(r.Context(), "Delete <3> files & more?", &jsonschema.Schema{
			Type:       "object",
			Properties: map[string]*jsonschema.Schema{"sure": {Type: "boolean"}, "why": {Type: "string", Default: json.RawMessage(`"tidy"`)}},
			Required:   []string{"sure"},
		})
		if err != nil {
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, err.Error())
			return
		}
		json.NewEncoder(w).Encode(res)
	})
	// Asks under a named key, after a log line.
	r.Post("/named", func(w http.ResponseWriter, r *http.Request) {
		Log(r.Context(), "info", "asking")
		res, err := Elicit(InputKey(r.Context(), "user_name"), "Your name?", &jsonschema.Schema{
			Type:       "object",
			Properties: map[string]*jsonschema.Schema{"name": {Type: "string"}},
		})
		if err != nil {
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, err.Error())
			return
		}
		json.NewEncoder(w).Encode(res)
	})
	r.Post("/roots", func(w http.ResponseWriter, r *http.Request) {
		res, err := Roots(InputKey(r.Context(), "client_roots"))
		if err != nil {
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, err.Error())
			return
		}
		json.NewEncoder(w).Encode(res)
	})
	r.Post("/sample", func(w http.ResponseWriter, r *http.Request) {
		//lint:ignore SA1019 sampling stays in the protocol for the deprecation window
		res, err := Sample(r.Context(), &mcp.CreateMessageParams{
			//lint:ignore SA1019 see above
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say <hi>."}}},
			MaxTokens: 20,
		})
		if err != nil {
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, err.Error())
			return
		}
		json.NewEncoder(w).Encode(res)
	})
	// A result of several blocks, in the content convention.
	r.Post("/rich", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ContentMediaType)
		io.WriteString(w, `{"content":[{"type":"text","text":"A <chart> & a link:"},`+
			`{"type":"image","mimeType":"image/png","data":"`+onePixelPNG+`"},`+
			`{"type":"resource_link","uri":"https://example.com/chart?a=1&b=2","name":"chart"},`+
			`{"type":"resource","resource":{"uri":"file:///notes.txt","mimeType":"text/plain","text":"notes \u2028 here"}}],`+
			`"structuredContent":{"points":3,"label":"<3"}}`)
	})
	if rollout {
		r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
		r.Post("/verify", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"reward":1}`) })
	}
	return r
}

// A goldenPair is the same door twice: with the fast path, and without.
type goldenPair struct {
	fast, sdk string // the endpoints' URLs
	fastDoor  *Door
	client    *http.Client
}

// newGoldenPair starts the two doors of the mcp block mcpBlock.
func newGoldenPair(t *testing.T, mcpBlock string, rollout bool) *goldenPair {
	router := func() chi.Router { return goldenRouter(rollout) }
	return newGoldenPairOn(t, mcpBlock, router, func(h http.Handler) *httptest.Server { return httptest.NewServer(h) })
}

// newGoldenPairOn starts the two doors of the mcp block mcpBlock, each on
// a router that router makes, on the servers start makes; edit, when
// given, changes the fast door's config.
func newGoldenPairOn(t *testing.T, mcpBlock string, router func() chi.Router, start func(http.Handler) *httptest.Server, edit ...func(*Config)) *goldenPair {
	t.Helper()
	p := &goldenPair{}
	// One store for both doors, so that a session one holds the other does
	// too, as two replicas sharing a store.
	shared := store.NewMemory(0, nil)
	for _, fast := range []bool{true, false} {
		block := "mcp:\n  session_secret: \"" + goldenSecret + "\"\n" + mcpBlock
		if !fast && !strings.Contains(mcpBlock, "stateful: true") && !strings.Contains(mcpBlock, "exclusive: true") {
			block += "  disable_fast_path: true\n" // a stateful endpoint has no fast path
		}
		cfg, err := ParseConfig([]byte("name: golden\nexpose_tools_over_mcp: true\n" + block))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Logger = slog.New(slog.DiscardHandler)
		cfg.Store = shared
		for _, e := range edit {
			if fast {
				e(&cfg)
			}
		}
		r := router()
		d, err := Install(r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		srv := start(r)
		t.Cleanup(srv.Close)
		if p.client == nil {
			p.client = srv.Client()
			p.client.Timeout = 30 * time.Second
			p.client.Transport.(*http.Transport).DisableCompression = true
			t.Cleanup(p.client.CloseIdleConnections)
		}
		if fast {
			p.fast, p.fastDoor = srv.URL+"/mcp", d
		} else {
			p.sdk = srv.URL + "/mcp"
		}
	}
	return p
}

// An answer is what a client got for a request.
type answer struct {
	Status           int
	Header           http.Header
	ContentLength    int64
	TransferEncoding []string
	Body             string
}

// send sends a request and returns the answer, Date aside.
func (p *goldenPair) send(t *testing.T, url string, rq goldenRequest) answer {
	t.Helper()
	method := rq.method
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequest(method, url, strings.NewReader(rq.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = rq.header.Clone()
	resp, err := p.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	resp.Header.Del("Date")
	return answer{resp.StatusCode, resp.Header, resp.ContentLength, resp.TransferEncoding, string(b)}
}

// compare sends rq to both doors, first as a warm-up when warm is set (the
// rate limiter's first call), and requires the same answer; fast says
// whether the fast path must serve it.
func (p *goldenPair) compare(t *testing.T, rq goldenRequest) answer {
	t.Helper()
	before := p.fastDoor.fastCalls.Load()
	got := p.send(t, p.fast, rq)
	if testing.Verbose() {
		t.Logf("%d %v\n%s", got.Status, got.Header, got.Body)
	}
	served := p.fastDoor.fastCalls.Load() - before
	want := p.send(t, p.sdk, rq)
	if diff := cmp.Diff(sealedAlike(want, got)); diff != "" {
		t.Errorf("fast path's answer differs from the go-sdk's (-sdk +fast):\n%s", diff)
	}
	switch {
	case rq.fast && served != 1:
		t.Errorf("the fast path served %d calls, want 1: it left the request to the go-sdk", served)
	case !rq.fast && served != 0:
		t.Errorf("the fast path served %d calls, want 0: the go-sdk must answer this request", served)
	}
	return got
}

// sealedAlike returns want and got with their request states, when both
// carry one, written alike. A state holds the second it was sealed in, so
// two sealed on either side of a second differ in that alone; what a state
// does is tested by sending one door's state to both.
func sealedAlike(want, got answer) (answer, answer) {
	if requestState.MatchString(want.Body) && requestState.MatchString(got.Body) {
		want.Body = requestState.ReplaceAllString(want.Body, `"requestState":"<sealed>"`)
		got.Body = requestState.ReplaceAllString(got.Body, `"requestState":"<sealed>"`)
	}
	return want, got
}

var requestState = regexp.MustCompile(`"requestState":"[^"]+"`)

// A goldenRequest is a request of a golden test.
type goldenRequest struct {
	method string
	header http.Header
	body   string
	fast   bool // the fast path must serve it
}

// callHeader is the header of a go-sdk client's request under version v
// (for a tools/call of tool, under 2026-07-28), plus extra pairs.
func callHeader(v, tool string, extra ...string) http.Header {
	h := http.Header{
		"Accept":       {"application/json, text/event-stream"},
		"Content-Type": {"application/json"},
	}
	if v != "" {
		h.Set("Mcp-Protocol-Version", v)
	}
	if v >= mcpcall.ProtocolVersion2026 {
		h.Set("Mcp-Method", "tools/call")
		h.Set("Mcp-Name", tool)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			h.Del(extra[i])
		} else {
			h.Set(extra[i], extra[i+1])
		}
	}
	return h
}

// clientMeta is the _meta a go-sdk client sends under 2026-07-28, without
// its closing brace, for more keys to follow.
const clientMeta = `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"`

// callBody is a tools/call request of tool with the arguments args (raw
// JSON), id id, and under 2026-07-28 the _meta a client sends, plus the
// _meta members meta (raw, "" for none).
func callBody(v, id, tool, args, meta string) string {
	var m string
	switch {
	case v >= mcpcall.ProtocolVersion2026 && meta != "":
		m = clientMeta + "," + meta + "},"
	case v >= mcpcall.ProtocolVersion2026:
		m = clientMeta + "},"
	case meta != "":
		m = `"_meta":{` + meta + "},"
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + m + `"name":"` + tool + `","arguments":` + args + `}}`
}

// goldenVersions are the protocol versions of the golden tests: every one
// the fast path serves.
var goldenVersions = fastpath.Versions

// TestFastPathGolden: tool calls of every kind, under every protocol
// version the fast path serves, answered alike by the fast path and the
// go-sdk.
func TestFastPathGolden(t *testing.T) {
	p := newGoldenPair(t, "", false)
	for _, v := range goldenVersions {
		cases := []struct {
			name          string
			id, tool, arg string
			meta          string
		}{
			{"success", "1", "echo", `{"text":"hello"}`, ""},
			{"escaping", `"an id"`, "echo", `{"text":"<b> & \u2028 é \"q\" \\ \u00e9\ud83d\ude00"}`, ""},
			{"whitespace in arguments", "7", "raw", "{ \"a\" : [ 1 , 2 ],\n\t\"b\": null }", ""},
			{"text response", "2", "raw", `{"just":"text"}`, ""},
			{"JSON response as sent", "12", "json", "{\"u\":\"<&> \u2028\u2029\",\"n\":[1,2.50,-0]}", ""},
			{"JSON response to compact", "13", "json", "{ \"u\" : \"a  b\" ,\n \"t\":\t[ ] }", ""},
			{"JSON response not an object", "14", "json", `{"v":["<a>", 1]}`, ""},
			{"JSON response a string", "15", "json", `{"v":"just a string"}`, ""},
			{"JSON response invalid", "16", "json", `{"s":"{\"a\":"}`, ""},
			{"JSON response empty", "17", "json", `{"s":""}`, ""},
			{"no arguments", "3", "raw", `null`, ""},
			{"invalid arguments", "4", "echo", `{"text":5}`, ""},
			{"arguments not an object", "5", "echo", `[1,2]`, ""},
			{"unknown field", "6", "echo", `{"text":"x","more":1}`, ""},
			{"HTTP error", "123456789012345", "teapot", `{}`, ""},
			{"handler panics", "-42", "panic", `{}`, ""},
			{"progress and log", "8", "report", `{}`, `"progressToken":"tok-1"`},
			{"numeric progress token", "9", "report", `{}`, `"progressToken":17`},
			{"log level debug", "10", "report", `{}`, `"io.modelcontextprotocol/logLevel":"debug"`},
			{"log level error", "11", "report", `{}`, `"io.modelcontextprotocol/logLevel":"error"`},
		}
		for _, c := range cases {
			if strings.Contains(c.meta, "io.modelcontextprotocol/") && v < mcpcall.ProtocolVersion2026 {
				continue
			}
			t.Run(v+"/"+c.name, func(t *testing.T) {
				p.compare(t, goldenRequest{header: callHeader(v, c.tool), body: callBody(v, c.id, c.tool, c.arg, c.meta), fast: true})
			})
		}
	}
}

// TestFastPathGoldenSuccess pins the fast path's answer to a small echo
// call, the bytes a client reads: one JSON body, since the call streams
// nothing (internal/fastpath/answer.go).
func TestFastPathGoldenSuccess(t *testing.T) {
	p := newGoldenPair(t, "", false)
	for v, want := range map[string]string{
		"2025-11-25": `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"text\":\"a\\u003cb\"}"}],"structuredContent":{"text":"a\u003cb"}}}`,
		"2026-07-28": `{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"golden","version":"` + version() + `"}},"content":[{"type":"text","text":"{\"text\":\"a\\u003cb\"}"}],"structuredContent":{"text":"a\u003cb"},"resultType":"complete"}}`,
	} {
		got := p.compare(t, goldenRequest{header: callHeader(v, "echo"), body: callBody(v, "1", "echo", `{"text":"a<b"}`, ""), fast: true})
		if got.Status != http.StatusOK || got.Header.Get("Content-Type") != "application/json" || got.Body != want {
			t.Errorf("%s: got %d %s %q, want 200 application/json %q", v, got.Status, got.Header.Get("Content-Type"), got.Body, want)
		}
		if got.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("%s: a stateless answer carries Mcp-Session-Id %q", v, got.Header.Get("Mcp-Session-Id"))
		}
	}
}

// TestFastPathGoldenFraming: over HTTP/1.1 the fast path lets net/http
// frame its response (see fastpath.ChunkedWithoutFlush); over HTTP/2, and behind a
// middleware that wraps the response writer, it flushes each event as the
// go-sdk does. Every way, the client gets the go-sdk's answer.
func TestFastPathGoldenFraming(t *testing.T) {
	servers := map[string]func(http.Handler) *httptest.Server{
		"HTTP/2": func(h http.Handler) *httptest.Server {
			srv := httptest.NewUnstartedServer(h)
			srv.EnableHTTP2 = true
			srv.StartTLS()
			return srv
		},
		"wrapped writer": func(h http.Handler) *httptest.Server {
			return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(struct{ http.ResponseWriter }{w}, r) // a wrapper that hides Flush
			}))
		},
		// chi's writer wrapper, as middleware.Logger and most of chi's
		// middlewares wrap the writer, passing every write on.
		"chi's WrapResponseWriter": func(h http.Handler) *httptest.Server {
			return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(middleware.NewWrapResponseWriter(w, r.ProtoMajor), r)
			}))
		},
		// A writer that compresses the event stream, flush by flush.
		"chi's Compress": func(h http.Handler) *httptest.Server {
			compress := middleware.Compress(5, "text/event-stream")(h)
			return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r.Header.Set("Accept-Encoding", "gzip")
				compress.ServeHTTP(w, r)
			}))
		},
		// A writer that holds the whole response, and cannot flush: the
		// go-sdk's answer goes out with a Content-Length.
		"http.TimeoutHandler": func(h http.Handler) *httptest.Server {
			return httptest.NewServer(http.TimeoutHandler(h, time.Minute, "timed out"))
		},
	}
	for name, start := range servers {
		t.Run(name, func(t *testing.T) {
			p := newGoldenPairOn(t, "", func() chi.Router { return goldenRouter(false) }, start)
			for _, v := range []string{"2025-11-25", "2026-07-28"} {
				p.compare(t, goldenRequest{header: callHeader(v, "echo"), body: callBody(v, "1", "echo", `{"text":"hi"}`, ""), fast: true})
				p.compare(t, goldenRequest{header: callHeader(v, "report"), body: callBody(v, "2", "report", `{}`, `"progressToken":"p"`), fast: true})
				p.compare(t, goldenRequest{header: callHeader(v, "echo"), body: callBody(v, "3", "echo", `{"text":"`+strings.Repeat("long ", 1000)+`"}`, ""), fast: true})
			}
		})
	}
}

// TestFastPathGoldenTimeout: a call over mcp.call_timeout.
func TestFastPathGoldenTimeout(t *testing.T) {
	p := newGoldenPair(t, "  call_timeout: 100ms\n", false)
	for _, v := range goldenVersions {
		t.Run(v, func(t *testing.T) {
			p.compare(t, goldenRequest{header: callHeader(v, "slow"), body: callBody(v, "1", "slow", `{}`, ""), fast: true})
		})
	}
}

// TestFastPathGoldenTokens: the rollout contract's refusals, and a call it
// admits.
func TestFastPathGoldenTokens(t *testing.T) {
	p := newGoldenPair(t, "  rate_limit: {per_session: 0.001, burst: 1}\n", true)
	for _, v := range goldenVersions {
		valid := mint(t, p.fastDoor, "session-"+v, []string{"echo"})
		cases := []struct {
			name  string
			token string
			tool  string
		}{
			{"token missing", "", "echo"},
			{"token invalid", "garbage", "echo"},
			{"tool not allowed", valid, "raw"},
			{"admitted", valid, "echo"},
			{"rate limited", valid, "echo"}, // the session's second call
		}
		for _, c := range cases {
			t.Run(v+"/"+c.name, func(t *testing.T) {
				h := callHeader(v, c.tool, "X-Nemo-Gym-Session-Token", c.token)
				p.compare(t, goldenRequest{header: h, body: callBody(v, "1", c.tool, `{"text":"hi"}`, ""), fast: true})
			})
		}
	}
}

// TestFastPathGoldenFallback: requests the fast path leaves to the go-sdk,
// answered as the go-sdk answers them.
func TestFastPathGoldenFallback(t *testing.T) {
	p := newGoldenPair(t, "  max_body_bytes: 4096\n", false)
	const v, n = "2026-07-28", "2025-11-25"
	echo := func(v string) string { return callBody(v, "1", "echo", `{"text":"hi"}`, "") }
	cases := []struct {
		name string
		rq   goldenRequest
	}{
		{"unknown tool", goldenRequest{header: callHeader(v, "nope"), body: callBody(v, "1", "nope", `{}`, "")}},
		{"unknown tool, 2025-11-25", goldenRequest{header: callHeader(n, "nope"), body: callBody(n, "1", "nope", `{}`, "")}},
		{"tools/list", goldenRequest{header: callHeader(n, "", "Mcp-Method", ""), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}},
		{"initialize", goldenRequest{header: callHeader("", ""), body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`}},
		{"notification", goldenRequest{header: callHeader(n, ""), body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`}},
		{"batch", goldenRequest{header: callHeader(n, "echo"), body: "[" + echo(n) + "]"}},
		{"id 1.5", goldenRequest{header: callHeader(n, "echo"), body: callBody(n, "1.5", "echo", `{"text":"hi"}`, "")}},
		{"id null", goldenRequest{header: callHeader(n, "echo"), body: callBody(n, "null", "echo", `{"text":"hi"}`, "")}},
		{"id with an escape", goldenRequest{header: callHeader(n, "echo"), body: callBody(n, `"\u0041"`, "echo", `{"text":"hi"}`, "")}},
		{"name not a string", goldenRequest{header: callHeader(n, "echo"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`}},
		{"params missing", goldenRequest{header: callHeader(n, "echo"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`}},
		{"params null", goldenRequest{header: callHeader(n, "echo"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`}},
		{"duplicate key", goldenRequest{header: callHeader(n, "echo"), body: `{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"echo"}}`}},
		{"unknown key", goldenRequest{header: callHeader(n, "echo"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"},"extra":1}`}},
		{"key of another case", goldenRequest{header: callHeader(n, "echo"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"echo"}}`}},
		{"jsonrpc 1.0", goldenRequest{header: callHeader(n, "echo"), body: strings.Replace(echo(n), `"2.0"`, `"1.0"`, 1)}},
		{"malformed JSON", goldenRequest{header: callHeader(n, "echo"), body: echo(n)[:40]}},
		{"trailing bytes", goldenRequest{header: callHeader(n, "echo"), body: echo(n) + " x"}},
		{"empty body", goldenRequest{header: callHeader(n, "echo"), body: ""}},
		{"oversize body", goldenRequest{header: callHeader(n, "echo"), body: callBody(n, "1", "echo", `{"text":"`+strings.Repeat("x", 5000)+`"}`, "")}},
		{"no Accept", goldenRequest{header: callHeader(n, "echo", "Accept", ""), body: echo(n)}},
		{"Accept JSON only", goldenRequest{header: callHeader(n, "echo", "Accept", "application/json"), body: echo(n)}},
		{"Content-Type text", goldenRequest{header: callHeader(n, "echo", "Content-Type", "text/plain"), body: echo(n)}},
		{"Last-Event-ID", goldenRequest{header: callHeader(n, "echo", "Last-Event-Id", "x_1"), body: echo(n)}},
		{"protocol header missing", goldenRequest{header: callHeader("", "echo"), body: echo(n)}},
		{"protocol header unknown", goldenRequest{header: callHeader("1999-01-01", "echo"), body: echo(n)}},
		{"protocol header from the future", goldenRequest{header: callHeader("2099-01-01", "echo"), body: echo(n)}},
		{"GET", goldenRequest{method: http.MethodGet, header: callHeader(n, "echo")}},
		{"DELETE", goldenRequest{method: http.MethodDelete, header: callHeader(n, "echo")}},
		{"2025 request with 2026 _meta", goldenRequest{header: callHeader(n, "echo"), body: callBody(n, "1", "echo", `{"text":"hi"}`, `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`)}},
		{"progress token 1.5", goldenRequest{header: callHeader(n, "echo"), body: callBody(n, "1", "echo", `{"text":"hi"}`, `"progressToken":1.5`)}},
		{"Mcp-Method missing", goldenRequest{header: callHeader(v, "echo", "Mcp-Method", ""), body: echo(v)}},
		{"Mcp-Method mismatch", goldenRequest{header: callHeader(v, "echo", "Mcp-Method", "tools/list"), body: echo(v)}},
		{"Mcp-Name missing", goldenRequest{header: callHeader(v, "echo", "Mcp-Name", ""), body: echo(v)}},
		{"Mcp-Name mismatch", goldenRequest{header: callHeader(v, "echo", "Mcp-Name", "raw"), body: echo(v)}},
		{"2026 without _meta", goldenRequest{header: callHeader(v, "echo"), body: echo(n)}},
		{"2026 _meta version mismatch", goldenRequest{header: callHeader(v, "echo"), body: strings.Replace(echo(v), `protocolVersion":"2026-07-28"`, `protocolVersion":"2025-11-25"`, 1)}},
		{"2026 _meta without capabilities", goldenRequest{header: callHeader(v, "echo"), body: strings.Replace(echo(v), `"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},`, "", 1)}},
		{"2026 capabilities null", goldenRequest{header: callHeader(v, "echo"), body: strings.Replace(echo(v), `{"roots":{"listChanged":true}}`, "null", 1)}},
		{"2026 client info invalid", goldenRequest{header: callHeader(v, "echo"), body: strings.Replace(echo(v), `{"name":"c","version":"1"}`, `{"name":5}`, 1)}},
		{"2026 unknown log level", goldenRequest{header: callHeader(v, "echo"), body: callBody(v, "1", "echo", `{"text":"hi"}`, `"io.modelcontextprotocol/logLevel":"loud"`)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { p.compare(t, c.rq) })
	}
}

// TestFastPathGoldenServedAlike: requests the fast path takes that are
// spelled unusually but read the same.
func TestFastPathGoldenServedAlike(t *testing.T) {
	p := newGoldenPair(t, "", false)
	const n, v = "2025-11-25", "2026-07-28"
	cases := []struct {
		name string
		rq   goldenRequest
	}{
		{"whitespace everywhere", goldenRequest{header: callHeader(n, "echo"), body: " {\n \"jsonrpc\" : \"2.0\" ,\t\"id\":1,\r\n\"method\" : \"tools/call\", \"params\": { \"name\" : \"echo\" , \"arguments\" : { \"text\" : \"hi\" } } }\n"}},
		{"keys in another order", goldenRequest{header: callHeader(n, "echo"), body: `{"params":{"arguments":{"text":"hi"},"name":"echo"},"method":"tools/call","id":"x","jsonrpc":"2.0"}`}},
		{"Accept */*", goldenRequest{header: callHeader(n, "echo", "Accept", "*/*"), body: callBody(n, "1", "echo", `{"text":"hi"}`, "")}},
		{"Accept with parameters", goldenRequest{header: callHeader(n, "echo", "Accept", "Application/JSON;q=0.9, TEXT/*"), body: callBody(n, "1", "echo", `{"text":"hi"}`, "")}},
		{"Content-Type with charset", goldenRequest{header: callHeader(n, "echo", "Content-Type", "application/json; charset=utf-8"), body: callBody(n, "1", "echo", `{"text":"hi"}`, "")}},
		{"2026 with a title and icons", goldenRequest{header: callHeader(v, "echo"), body: strings.Replace(callBody(v, "1", "echo", `{"text":"hi"}`, ""), `{"name":"c","version":"1"}`, `{"name":"c","title":"C","version":"1","icons":[{"src":"https://example.com/c.png"}]}`, 1)}},
		{"2026 with no capabilities", goldenRequest{header: callHeader(v, "echo"), body: strings.Replace(callBody(v, "1", "echo", `{"text":"hi"}`, ""), `{"roots":{"listChanged":true}}`, `{"sampling":{},"elicitation":{"form":{}}}`, 1)}},
	}
	for _, c := range cases {
		c.rq.fast = true
		t.Run(c.name, func(t *testing.T) { p.compare(t, c.rq) })
	}
}

// TestFastPathGoldenTraced: a call whose _meta carries W3C trace context
// and baggage (as an agent's OpenTelemetry instrumentation sends them) stays
// on the fast path, answered as the go-sdk answers it; trace context that
// is not a plain string goes to the go-sdk.
func TestFastPathGoldenTraced(t *testing.T) {
	p := newGoldenPair(t, "", false)
	const trace = `"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"rojo=00f067aa0ba902b7,congo=t61rcWkgMzE","baggage":"userId=alice,serverNode=DF%2028"`
	for _, v := range goldenVersions {
		t.Run(v, func(t *testing.T) {
			p.compare(t, goldenRequest{header: callHeader(v, "echo"), body: callBody(v, "1", "echo", `{"text":"hi"}`, trace), fast: true})
			p.compare(t, goldenRequest{header: callHeader(v, "echo"), body: callBody(v, "2", "echo", `{"text":"hi"}`, `"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","progressToken":"p"`), fast: true})
			p.compare(t, goldenRequest{header: callHeader(v, "echo"), body: callBody(v, "3", "echo", `{"text":"hi"}`, `"baggage":{"userId":"alice"}`)})
		})
	}
}

// TestFastPathOff: with mcp.disable_fast_path, on a stateful door, and
// with Config.ExtendServer, the go-sdk answers every call.
func TestFastPathOff(t *testing.T) {
	const v = "2025-11-25"
	rq := goldenRequest{header: callHeader(v, "echo"), body: callBody(v, "1", "echo", `{"text":"hi"}`, "")}
	for _, block := range []string{"  disable_fast_path: true\n", "  stateful: true\n"} {
		p := newGoldenPair(t, block, false)
		if got := p.send(t, p.fast, rq); p.fastDoor.fastCalls.Load() != 0 {
			t.Errorf("%q: the fast path served a call (%d %q)", block, got.Status, got.Body)
		}
	}
	p := newGoldenPairOn(t, "", func() chi.Router { return goldenRouter(false) }, httptest.NewServer,
		func(cfg *Config) { cfg.ExtendServer = func(*mcp.Server) {} })
	p.compare(t, rq) // rq.fast is false
}

// TestFastPathCloseWaits: Door.Close waits for a stateless call whose
// handler ignores its context, as it waits for the go-sdk's session of
// that call to end, with the fast path and without.
func TestFastPathCloseWaits(t *testing.T) {
	for _, block := range []string{"", "mcp:\n  disable_fast_path: true\n"} {
		cfg, err := ParseConfig([]byte("name: stubborn\nexpose_tools_over_mcp: true\n" + block))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Logger = slog.New(slog.DiscardHandler)
		started, release := make(chan struct{}), make(chan struct{})
		var finished atomic.Bool
		r := chi.NewRouter()
		r.Post("/stubborn", func(w http.ResponseWriter, r *http.Request) {
			close(started)
			<-release // whatever its context says
			finished.Store(true)
		})
		d, err := Install(r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(r)
		client := srv.Client()
		const v = "2025-11-25"
		call := goldenRequest{header: callHeader(v, "stubborn"), body: callBody(v, "1", "stubborn", `{}`, "")}
		answered := make(chan struct{})
		go func() {
			defer close(answered)
			client.Do(httptestRequest(srv.URL+"/mcp", call))
		}()
		<-started
		closed := make(chan bool, 1)
		go func() {
			d.Close()
			closed <- finished.Load()
		}()
		// Close has begun once the endpoint answers 503.
		for {
			resp, err := client.Do(httptestRequest(srv.URL+"/mcp", call))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusServiceUnavailable {
				break
			}
		}
		close(release)
		if !<-closed {
			t.Errorf("%q: Close returned before the call in flight did", block)
		}
		<-answered
		client.CloseIdleConnections()
		srv.Close()
	}
}

// httptestRequest is rq as a request to url.
func httptestRequest(url string, rq goldenRequest) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(rq.body))
	req.Header = rq.header.Clone()
	return req
}
