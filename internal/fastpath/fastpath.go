package fastpath

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/bodies"
	"github.com/mcpdoor/mcpdoor/internal/telemetry"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"

	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
)

// The fast path serves the hot case of a stateless endpoint — one POST
// carrying one tools/call request for a tool the door serves — itself,
// where the go-sdk would build a session, a JSON-RPC connection and a
// goroutine for the request and decode its message many times over. It
// runs the same call as the go-sdk path (Tool.Call: admission, rate limit,
// arguments, dispatch, result) and writes exactly the bytes the go-sdk
// writes for it: the same status, headers and SSE events, notifications
// (Progress, Log) included, and under 2026-07-28 the input requests of a
// handler's Elicit or Sample, and the call that answers them. It reads what
// the go-sdk checks — the method,
// Content-Type, Accept, the protocol version and, under 2026-07-28, the
// Mcp-Method and Mcp-Name headers and the request's _meta — and takes only
// a request that passes every check as the go-sdk would; any other request
// (initialize, server/discover, tools/list, batches, notifications, an
// unknown tool, anything malformed or unusual) goes to the go-sdk,
// unchanged. The door leaves it out under mcp.disable_fast_path, and so
// it does with a go-sdk it was not verified against (see Fenced).
type Path struct {
	o    Options
	next http.Handler // the go-sdk's Streamable HTTP handler
}

// Options are what a Path serves with.
type Options struct {
	// Tools are the tools the fast path may serve, by name.
	Tools map[string]*Tool
	Log   *slog.Logger
	// Telemetry traces and measures each call the fast path serves.
	Telemetry *telemetry.Telemetry
	// Impl is how the door's go-sdk server names itself; ServerInfo is the
	// _meta of a 2026-07-28 result: Impl under
	// io.modelcontextprotocol/serverInfo, encoded.
	Impl       *mcp.Implementation
	ServerInfo []byte
	// Served counts the calls the fast path serves.
	Served *atomic.Uint64
}

// A Tool is a tool the fast path serves: its name, its calls' span's name
// ("tools/call <name>"), and Call, which runs a call through the door's
// pipeline (the same as the go-sdk's calls), with mc in the handler's
// context.
type Tool struct {
	Name     string
	SpanName string
	Call     func(ctx context.Context, req *mcp.CallToolRequest, mc *mcpcall.Call) (*mcp.CallToolResult, error)
}

// New returns the fast path in front of next, the go-sdk's Streamable
// HTTP handler, which serves every request the fast path does not.
func New(o Options, next http.Handler) *Path {
	return &Path{o: o, next: next}
}

// Versions are the protocol versions the fast path serves: those a
// stateless go-sdk endpoint answers a tools/call under, all alike but for
// what 2026-07-28 adds to a result.
var Versions = []string{"2025-03-26", "2025-06-18", "2025-11-25", mcpcall.ProtocolVersion2026}

// ServeHTTP serves a request the fast path takes, and hands any other to
// the go-sdk.
func (f *Path) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	version, ok := f.takes(r)
	if !ok {
		f.next.ServeHTTP(w, r)
		return
	}
	body, ok := bodies.ReadDeclared(r)
	if !ok {
		f.next.ServeHTTP(w, r)
		return
	}
	c, ok := f.readCall(body, version, r.Header)
	if !ok {
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.next.ServeHTTP(w, r)
		return
	}
	f.o.Served.Add(1)
	f.serve(w, r, c)
}

// takes returns the protocol version of a request the fast path may serve,
// judging by its method and headers; ok is false for any other.
func (f *Path) takes(r *http.Request) (version string, ok bool) {
	if r.Method != http.MethodPost || r.ContentLength <= 0 {
		return "", false
	}
	version = r.Header.Get("Mcp-Protocol-Version")
	if !slices.Contains(Versions, version) || len(r.Header.Values("Last-Event-ID")) > 0 {
		return "", false
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		if mediaType, _, err := mime.ParseMediaType(ct); err != nil || mediaType != "application/json" {
			return "", false
		}
	}
	return version, Accepts(r.Header.Values("Accept"))
}

// serve serves call c of request r: the call's notifications and its
// result, each an SSE event, or, when the call sends no notification, its
// result alone as one JSON body, as the door answers through the go-sdk
// (see JSONAnswers).
func (f *Path) serve(w http.ResponseWriter, r *http.Request, c *fastCall) {
	// A write that fails ends the request: the call's context, so that its
	// handler stops, and everything the stream would write after it.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	s := &fastStream{w: w, oneWrite: ChunkedWithoutFlush(w, r), cancel: cancel}
	if c.version >= mcpcall.ProtocolVersion2026 {
		s.level = c.level
	} else {
		s.level = "info" // what a stateless go-sdk session starts at
	}
	req := &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Name: c.tool.Name, Arguments: c.args, InputResponses: c.answers, RequestState: c.state},
		Extra:  &mcp.RequestExtra{Header: r.Header},
	}
	traced, op := f.o.Telemetry.Start(r.Context(), c.tool.SpanName, "tools/call", c.tool.Name, c.trace.Carrier(), propagation.HeaderCarrier(r.Header), nil)
	op.Describe(c.id, "", c.version)
	mc := &mcpcall.Call{
		Req:           req,
		To:            s,
		ProgressToken: c.progress,
		Version:       c.version,
		Capabilities:  c.capabilities,
		Stateless:     true,
		Traced:        traced,
		RPCID:         c.id,
	}
	res, err := c.tool.Call(ctx, req, mc)
	var errType, message string
	if err != nil {
		s.respondError(ctx, c, err)
		errType, message = telemetry.RPCFailure(&op, err)
	} else {
		s.respond(ctx, f, c, res)
		errType, message = f.o.Telemetry.ToolFailure(res)
	}
	if err := s.writeErr(); err != nil {
		f.o.Log.Warn("mcpdoor: fast path: writing the answer failed, which ended the request", "tool", c.tool.Name, "err", err)
	}
	f.o.Telemetry.End(traced, &op, errType, message)
}

// ChunkedWithoutFlush reports whether the response is net/http's own, to an
// HTTP/1.1 request: there, asking for chunked framing with the
// Transfer-Encoding header gets the same response on the wire as the
// go-sdk's flush after its last event — net/http sends its own
// Transfer-Encoding: chunked in place of the handler's, and no
// Content-Length — in one write where the flush costs a second (which, for
// a small call, costs the server about as much CPU as the rest of the
// call). Anywhere else (HTTP/2, a writer that wraps net/http's, a test's
// recorder), the fast path flushes as the go-sdk does.
//
// net/http does not export its writer's type, so the writer is told by
// what it does, through public API only: the request came to a net/http
// server (http.ServerContextKey), over HTTP/1.1, and the writer itself
// answers every call of an http.ResponseController and hijacks
// (serverWriter), where a wrapper passes them on by Unwrap, as
// ResponseController asks of one, or lacks them. A wrapper is never taken
// for net/http's writer, even one that passes every write on (chi's
// middleware.WrapResponseWriter, Compress): a wrapper may hold the
// response back (http.TimeoutHandler does, and the go-sdk's answer then
// goes out with a Content-Length, which the header would change to
// chunked), and nothing public tells those apart.
func ChunkedWithoutFlush(w http.ResponseWriter, r *http.Request) bool {
	if r.ProtoMajor != 1 || r.ProtoMinor < 1 {
		return false
	}
	if _, ok := r.Context().Value(http.ServerContextKey).(*http.Server); !ok {
		return false
	}
	if _, ok := w.(interface{ Unwrap() http.ResponseWriter }); ok {
		return false
	}
	_, ok := w.(serverWriter)
	return ok
}

// serverWriter is what net/http's own HTTP/1 writer implements beyond
// http.ResponseWriter: every method an http.ResponseController calls, and
// http.Hijacker.
type serverWriter interface {
	http.ResponseWriter
	http.Hijacker
	FlushError() error
	SetReadDeadline(time.Time) error
	SetWriteDeadline(time.Time) error
	EnableFullDuplex() error
}

// A fastStream is the response of a request the fast path serves: a stream
// of SSE events, written and flushed one by one as the go-sdk writes them.
// It is the call's notifier.
type fastStream struct {
	w http.ResponseWriter
	//lint:ignore SA1019 see mcpcall.LogLevels
	level mcp.LoggingLevel // the least severe level Log sends; "" for none
	// oneWrite: the response's framing is set (see ChunkedWithoutFlush),
	// and its last event needs no flush.
	oneWrite bool
	cancel   context.CancelFunc // ends the call's context

	mu      sync.Mutex
	started bool  // the SSE headers are set: a notification went first
	done    bool  // the result is written, or will never be
	err     error // the first write that failed, which ended the request
}

// fail ends the request after a write that failed with err: nothing more
// is written, and the call's context ends. s.mu is held.
func (s *fastStream) fail(err error) {
	if err == nil || s.err != nil {
		return
	}
	s.err, s.done = err, true
	s.cancel()
}

// writeErr returns the write error that ended the request, or nil.
func (s *fastStream) writeErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// start sets the headers of an SSE answer, as the go-sdk sets them. s.mu is
// held.
func (s *fastStream) start() {
	s.started = true
	h := s.w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "text/event-stream")
	h.Set("Connection", "keep-alive")
	if s.oneWrite {
		h.Set("Transfer-Encoding", "chunked")
	}
}

// errStreamDone is what Progress and Log return once the call's result has
// been written, as the go-sdk refuses to write to a stream it has closed.
var errStreamDone = errors.New("the tool call's response is complete")

// NotifyProgress sends a notifications/progress message.
func (s *fastStream) NotifyProgress(_ context.Context, params *mcp.ProgressNotificationParams) error {
	return s.notify("notifications/progress", params)
}

// Log sends a notifications/message message, if its level is at least the
// stream's.
//
//lint:ignore SA1019 see mcpcall.LogLevels
func (s *fastStream) Log(_ context.Context, params *mcp.LoggingMessageParams) error {
	if s.level == "" || slices.Index(mcpcall.LogLevels, params.Level) < slices.Index(mcpcall.LogLevels, s.level) {
		return nil
	}
	return s.notify("notifications/message", params)
}

// notify writes a notification, encoded as the go-sdk encodes one: its
// params with encoding/json, without HTML escaping.
func (s *fastStream) notify(method string, params any) error {
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","method":"`)
	buf.WriteString(method)
	buf.WriteString(`","params":`)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(params); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	buf.WriteByte('}')
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return errStreamDone
	}
	if !s.started {
		s.start()
	}
	return s.event(buf.Bytes())
}

// respond writes the JSON-RPC response to call c with result res (see
// answer).
func (s *fastStream) respond(ctx context.Context, f *Path, c *fastCall, res *mcp.CallToolResult) {
	s.answer(ctx, 0, func(w *sseWriter) { f.writeResponse(w, c, res) })
}

// respondError writes the JSON-RPC error err (a *jsonrpc.Error, see
// calls.call) in answer to call c, as the go-sdk writes it: under
// 2026-07-28, an error of a code with an HTTP status of its own (SEP-2575:
// invalid params and a missing client capability, 400) as a bare
// application/json body of that status, even after the call's
// notifications; else as a result is written (see respond).
func (s *fastStream) respondError(ctx context.Context, c *fastCall, err error) {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.Write(c.id)
	buf.WriteString(`,"error":`)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	}{rpcErr.Code, rpcErr.Message, rpcErr.Data}); err != nil {
		return // strings and valid JSON: cannot fail
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	buf.WriteByte('}')
	status := 0
	if c.version >= mcpcall.ProtocolVersion2026 {
		switch rpcErr.Code {
		case jsonrpc.CodeMethodNotFound:
			status = http.StatusNotFound
		case jsonrpc.CodeInvalidParams, mcp.CodeUnsupportedProtocolVersion, mcp.CodeMissingRequiredClientCapabilities:
			status = http.StatusBadRequest
		}
	}
	s.answer(ctx, status, func(w *sseWriter) { w.bytes(buf.Bytes()) })
}

// answer writes the call's last message, its JSON-RPC response or error,
// which body writes: after the call's notifications, as the last event of
// their stream; else as the answer's JSON body, unflushed, as the door
// answers through the go-sdk (JSONAnswers decides the same for the go-sdk's
// answers), with status when it is not 0 (an error of a code with an HTTP
// status of its own). Such an error after the call's notifications is
// written as the go-sdk writes it, after the events as it stands,
// unframed: its status and Content-Type come too late. Nothing is written
// once the request has ended (the client went away, the door closed, a
// write failed): the go-sdk then stops waiting for the response.
func (s *fastStream) answer(ctx context.Context, status int, body func(*sseWriter)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || ctx.Err() != nil {
		s.done = true
		if !s.started {
			s.start() // the headers the go-sdk had set before the call ran
		}
		return
	}
	s.done = true
	w := sseWriters.Get().(*sseWriter)
	defer w.release()
	w.w = s.w
	switch {
	case status != 0 && s.started:
		body(w)
		w.send()
	case !s.started:
		JSONAnswerHeader(s.w.Header())
		if status != 0 {
			s.w.Header().Set("Connection", "keep-alive") // as the go-sdk sets it for an error of its own status
			s.w.WriteHeader(status)
		}
		body(w)
		w.send()
	default:
		w.string("event: message\ndata: ")
		body(w)
		w.string("\n\n")
		if s.oneWrite {
			w.send() // net/http writes it out as the handler returns
		} else {
			w.flush()
		}
	}
	s.fail(w.err)
}

// writeResponse writes the JSON-RPC response to call c with result res.
func (f *Path) writeResponse(w *sseWriter, c *fastCall, res *mcp.CallToolResult) {
	w.string(`{"jsonrpc":"2.0","id":`)
	w.bytes(c.id)
	w.string(`,"result":`)
	f.writeResult(w, res, c.version >= mcpcall.ProtocolVersion2026)
	w.string("}")
}

// event writes one SSE message event and flushes it; a write that fails
// ends the request. s.mu is held.
func (s *fastStream) event(data []byte) error {
	w := &sseWriter{w: s.w}
	w.string("event: message\ndata: ")
	w.bytes(data)
	w.string("\n\n")
	w.flush()
	s.fail(w.err)
	return w.err
}

// An sseWriter writes an event to a response in pieces, each big value
// straight from where it lies, and remembers the first error.
type sseWriter struct {
	w   http.ResponseWriter
	buf []byte // small pieces, written out before a big one
	err error
}

// small is the size under which a piece is gathered rather than written.
const small = 512

// sseWriters holds writers for reuse, each with its buffer.
var sseWriters = sync.Pool{New: func() any { return &sseWriter{buf: make([]byte, 0, small)} }}

// release puts the writer back in sseWriters.
func (w *sseWriter) release() {
	*w = sseWriter{buf: w.buf[:0]}
	sseWriters.Put(w)
}

func (w *sseWriter) string(s string) {
	if len(s) >= small {
		w.bytes([]byte(s))
		return
	}
	w.buf = append(w.buf, s...)
}

func (w *sseWriter) bytes(b []byte) {
	if len(b) < small {
		w.buf = append(w.buf, b...)
		return
	}
	w.send()
	w.write(b)
}

// Write writes p, less the newline that ends it when it is the output of a
// json.Encoder, to which the writer hands itself (see Path.writeResult).
func (w *sseWriter) Write(p []byte) (int, error) {
	w.bytes(bytes.TrimSuffix(p, []byte("\n")))
	return len(p), nil
}

func (w *sseWriter) send() {
	if len(w.buf) > 0 {
		w.write(w.buf)
		w.buf = w.buf[:0]
	}
}

func (w *sseWriter) write(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
	}
}

// flush writes what is gathered and flushes the response, as the go-sdk
// does after each event; a writer that cannot flush is written to alone.
func (w *sseWriter) flush() {
	w.send()
	if w.err != nil {
		return
	}
	if err := http.NewResponseController(w.w).Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		w.err = err
	}
}
