package autoexpose

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpdoor/mcpdoor/internal/toolset"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
)

// The Door traces and measures every MCP request it serves, as
// OpenTelemetry's semantic conventions for the Model Context Protocol ask:
// a SERVER span named "{mcp.method.name} {target}" ("tools/call
// get_weather", "initialize"), the histogram mcp.server.operation.duration,
// and for a stateful session (or stdio) mcp.server.session.duration.
//
// A span's parent is the trace context in the request's params._meta
// (traceparent, tracestate, baggage), else the one in its HTTP request's
// headers, else the span of the HTTP request that carried it — never that of
// the request that opened its session, whose context a stateful session
// runs its calls in. The route a call dispatches to runs in the span's
// context, direct or replayed.
//
// While tracing is off (see off: no provider set, no propagator) a request
// starts no span; it costs a look at the globals and an Enabled check of
// each histogram, and allocates nothing.
//
// What a request sends never chooses how much the telemetry holds: an SDK
// keeps every attribute set of a histogram for the life of the process,
// and takes a span's values whole (its default limits are none). So a tool
// name is recorded only when it is one of the Door's tools, else as
// valueOther, and a span of it is then named by its method alone; a
// protocol version only when the go-sdk knows it, else as valueOther; a
// method is one the go-sdk serves; and a value that is the client's own (a
// request id) or may quote it (a failure's message) is cut to valueMax
// bytes.
//
// What a request sends never chooses how much the telemetry holds: an
// SDK keeps every attribute set of a histogram for the life of the
// process, and takes a span's values whole unless told otherwise (its
// default limits are none). So a tool name is recorded only when it is
// one of the Door's tools, else as valueOther (and a span of it is named
// by its method alone); a protocol version only when the go-sdk knows it,
// else as valueOther; a method is one the go-sdk serves; and a value
// that is the client's own (a request id) or that quotes it (a failure's
// message) is cut to valueMax bytes.

// instrumentation is the name the Door's tracer and meter are known by.
const instrumentation = "github.com/mcpdoor/mcpdoor/autoexpose"

// The attributes the semantic conventions give an MCP server's spans and
// metrics.
const (
	attrMethod        = attribute.Key("mcp.method.name")
	attrProtocol      = attribute.Key("mcp.protocol.version")
	attrSession       = attribute.Key("mcp.session.id")
	attrToolName      = attribute.Key("gen_ai.tool.name")
	attrOperation     = attribute.Key("gen_ai.operation.name")
	attrRequestID     = attribute.Key("jsonrpc.request.id")
	attrErrorType     = attribute.Key("error.type")
	attrRPCStatus     = attribute.Key("rpc.response.status_code")
	attrTransport     = attribute.Key("network.transport")
	attrProtocolName  = attribute.Key("network.protocol.name")
	operationExecTool = "execute_tool"
	// errorTypeTool is error.type of an isError result that carries no
	// code of the door's own (the conventions' tool_error).
	errorTypeTool = "tool_error"
	// errorTypeOther is error.type of a failure with no code at all.
	errorTypeOther = valueOther
	// valueOther stands for a value outside an attribute's set: a tool
	// that is not the Door's, a protocol version the go-sdk does not know.
	valueOther = "_OTHER"
	// valueMax is the most bytes of an attribute value or a span's status
	// description that may come from a request.
	valueMax = 256
)

// knownVersions are the protocol versions mcp.protocol.version takes.
var knownVersions = mcp.SupportedProtocolVersions()

// protocolLabel is v as mcp.protocol.version records it: a version the
// go-sdk knows, valueOther for any other, "" for none.
func protocolLabel(v string) string {
	if v == "" || slices.Contains(knownVersions, v) {
		return v
	}
	return valueOther
}

// clipped is s cut to at most valueMax bytes, at a character's boundary.
func clipped(s string) string {
	if len(s) <= valueMax {
		return s
	}
	n := valueMax
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// durationBuckets are the bucket boundaries, in seconds, the conventions
// give both duration histograms.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// serverSpan is the option every span the Door starts takes.
var serverSpan = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)}

// unsetTracer and unsetPropagator are OpenTelemetry's globals as they
// stand before a program sets them: a tracer provider whose spans record
// nothing, and a propagator that reads nothing. Each is nil when the
// program set it before this package's init ran.
var unsetTracer, unsetPropagator = unsetGlobals()

func unsetGlobals() (trace.TracerProvider, propagation.TextMapPropagator) {
	tp, prop := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	if _, span := tp.Tracer(instrumentation).Start(context.Background(), "probe"); span.IsRecording() {
		tp = nil // set already; the probe is not ended, so never exported
	}
	if len(prop.Fields()) > 0 {
		prop = nil
	}
	return tp, prop
}

// telemetry is what a Door traces and measures with: Config's providers
// and propagator, or OpenTelemetry's globals, which delegate to whatever
// the program sets later.
type telemetry struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator
	operations metric.Float64Histogram // mcp.server.operation.duration
	sessions   metric.Float64Histogram // mcp.server.session.duration
	transport  string                  // network.transport: tcp, or pipe over stdio
	log        *slog.Logger
	// What off reads: the tracer provider is a no-op one, or the global;
	// the propagator is the global.
	noTracer, globalTracer, globalPropagator bool
}

func newTelemetry(cfg *Config, stdio bool) *telemetry {
	tp, mp, prop := cfg.TracerProvider, cfg.MeterProvider, cfg.Propagators
	t := &telemetry{globalTracer: tp == nil, globalPropagator: prop == nil, transport: "tcp", log: cfg.logger()}
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	_, t.noTracer = tp.(noop.TracerProvider)
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	if prop == nil {
		prop = otel.GetTextMapPropagator()
	}
	t.tracer, t.propagator = tp.Tracer(instrumentation, trace.WithInstrumentationVersion(version())), prop
	if stdio {
		t.transport = "pipe"
	}
	meter := mp.Meter(instrumentation, metric.WithInstrumentationVersion(version()))
	// A meter refuses an instrument only for a malformed name or unit,
	// and these are fixed: it then still returns a no-op one.
	t.operations, _ = meter.Float64Histogram("mcp.server.operation.duration",
		metric.WithUnit("s"),
		metric.WithDescription("The duration of an MCP request or notification, as the server handled it."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	t.sessions, _ = meter.Float64Histogram("mcp.server.session.duration",
		metric.WithUnit("s"),
		metric.WithDescription("The duration of an MCP session, as the server observed it."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	return t
}

// off reports whether tracing is off: no tracer provider that records
// (a no-op one, or the globals while the program has set none), and no
// propagator (the global, while unset). A request then starts no span:
// there is nothing to record, nor any context to carry on.
func (t *telemetry) off() bool {
	tracerOff := t.noTracer || t.globalTracer && unsetTracer != nil && otel.GetTracerProvider() == unsetTracer
	return tracerOff && t.globalPropagator && unsetPropagator != nil && otel.GetTextMapPropagator() == unsetPropagator
}

// noSpan is the span of a request while tracing is off.
var noSpan = trace.SpanFromContext(context.Background())

// An operation is one MCP request being served: its span, and what its
// measurement needs.
type operation struct {
	span     trace.Span
	start    time.Time // zero when the histogram is off
	method   string
	tool     string
	protocol string
}

// start starts the span of an MCP request of method (for tools/call, of
// tool), named name ("" for method, or "tools/call <tool>"), in ctx, the
// context the request is handled in. Its
// parent is the trace context of meta (the request's params._meta), else
// that of header (its HTTP request's), else the span of ambient (the HTTP
// request that carried it; nil over stdio). The context returned carries
// the span.
func (t *telemetry) start(ctx context.Context, name, method, tool string, meta, header propagation.TextMapCarrier, ambient *http.Request) (context.Context, operation) {
	op := operation{span: noSpan, method: method, tool: tool}
	if t.operations.Enabled(ctx) {
		op.start = time.Now()
	}
	if t.off() {
		return ctx, op
	}
	if name == "" {
		name = method
		if tool != "" {
			name = method + " " + tool
		}
	}
	parent := ctx
	var ambientSC trace.SpanContext
	if ambient != nil {
		ambientSC = trace.SpanContextFromContext(ambient.Context())
		if !ambientSC.Equal(trace.SpanContextFromContext(ctx)) {
			// A stateful session's context is its initialize request's.
			parent = trace.ContextWithSpanContext(ctx, ambientSC)
		}
	}
	if header != nil {
		parent = t.propagator.Extract(parent, header)
	}
	fromMeta := false
	if meta != nil {
		before := trace.SpanContextFromContext(parent)
		parent = t.propagator.Extract(parent, meta)
		fromMeta = !trace.SpanContextFromContext(parent).Equal(before)
	}
	ctx, op.span = t.tracer.Start(parent, name, serverSpan...)
	if op.span.IsRecording() {
		op.span.SetAttributes(attrMethod.String(method), attrTransport.String(t.transport))
		if t.transport == "tcp" {
			op.span.SetAttributes(attrProtocolName.String("http"))
		}
		if tool != "" {
			op.span.SetAttributes(attrToolName.String(tool), attrOperation.String(operationExecTool))
		}
		if fromMeta && ambientSC.IsValid() {
			// The conventions parent on _meta, and link the transport's span.
			op.span.AddLink(trace.Link{SpanContext: ambientSC})
		}
	}
	return ctx, op
}

// describe adds what is known of a request once it is read: its JSON-RPC
// id (as sent, JSON; nil for none), MCP session id and protocol version
// (a known one, or valueOther).
func (op *operation) describe(id []byte, session, protocol string) {
	op.protocol = protocol
	if !op.span.IsRecording() {
		return
	}
	if id != nil {
		s := string(id)
		if id[0] == '"' {
			json.Unmarshal(id, &s) // valid JSON: the go-sdk or the fast path has read it
		}
		op.span.SetAttributes(attrRequestID.String(clipped(s)))
	}
	if session != "" {
		op.span.SetAttributes(attrSession.String(clipped(session)))
	}
	if protocol != "" {
		op.span.SetAttributes(attrProtocol.String(protocol))
	}
}

// end ends the span of op, which failed with errType (and message) when
// errType is not "", and records its duration.
func (t *telemetry) end(ctx context.Context, op *operation, errType, message string) {
	if errType != "" && op.span.IsRecording() {
		op.span.SetAttributes(attrErrorType.String(errType))
		op.span.SetStatus(codes.Error, clipped(message))
	}
	op.span.End()
	if op.start.IsZero() {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 5)
	attrs = append(attrs, attrMethod.String(op.method), attrTransport.String(t.transport))
	if op.tool != "" {
		attrs = append(attrs, attrToolName.String(op.tool))
	}
	if op.protocol != "" {
		attrs = append(attrs, attrProtocol.String(op.protocol))
	}
	if errType != "" {
		attrs = append(attrs, attrErrorType.String(errType))
	}
	t.operations.Record(ctx, time.Since(op.start).Seconds(), metric.WithAttributes(attrs...))
}

// rpcFailure returns error.type and the message of a JSON-RPC error: its
// code, or _OTHER for an error that has none. The span also gets the code
// as rpc.response.status_code.
func rpcFailure(op *operation, err error) (errType, message string) {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		return errorTypeOther, err.Error()
	}
	code := strconv.FormatInt(rpcErr.Code, 10)
	if op.span.IsRecording() {
		op.span.SetAttributes(attrRPCStatus.String(code))
	}
	return code, rpcErr.Message
}

// toolFailure returns error.type and the message of a tools/call result:
// "" for a success; for an isError result, the code of the door's error
// envelope (see toolset.ErrorInfo), else tool_error.
func toolFailure(res *mcp.CallToolResult) (errType, message string) {
	if res == nil || !res.IsError {
		return "", ""
	}
	if len(res.Content) > 0 {
		if text, ok := res.Content[0].(*mcp.TextContent); ok {
			message = text.Text
		}
	}
	envelope, _ := res.StructuredContent.(map[string]toolset.ErrorInfo)
	if envelope == nil {
		envelope, _ = res.Meta[ErrorMetaKey].(map[string]toolset.ErrorInfo)
	}
	if info, ok := envelope["error"]; ok && info.Code != "" {
		return info.Code, message
	}
	return errorTypeTool, message
}

// traced is the go-sdk server's outermost receiving middleware: it traces
// and measures each request and notification the go-sdk serves (the fast
// path traces its own, see fastPath.serve), and each stateful session's
// duration.
func (d *Door) traced(next mcp.MethodHandler) mcp.MethodHandler {
	t := d.tel
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		tool, name := "", ""
		m := metaOf(req)
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil && method == "tools/call" {
			tool = p.Name
			if _, known := d.tools[tool]; !known {
				tool, name = valueOther, method
			}
		}
		var meta propagation.TextMapCarrier
		if m != nil {
			meta = metaCarrier(m)
		}
		header := mcpcall.Header(req)
		var ambient *http.Request
		var carrier propagation.TextMapCarrier
		if header != nil {
			ambient = d.calls.inflight.Lookup(header)
			carrier = propagation.HeaderCarrier(header)
		}
		var id []byte // read now: it goes with the HTTP request, which ends as the answer is written
		if header != nil && !strings.HasPrefix(method, "notifications/") {
			id = d.calls.inflight.ID(header)
		}
		ctx, op := t.start(ctx, name, method, tool, meta, carrier, ambient)
		res, err := next(ctx, method, req)
		ss, _ := req.GetSession().(*mcp.ServerSession)
		op.describe(id, sessionID(ss), requestProtocol(method, m, res, ss, header))
		var errType, message string
		switch {
		case err != nil:
			errType, message = rpcFailure(&op, err)
		case tool != "":
			r, _ := res.(*mcp.CallToolResult)
			errType, message = toolFailure(r)
		}
		t.end(ctx, &op, errType, message)
		if method == "initialize" && err == nil && ss != nil && !d.calls.stateless {
			t.watchSession(ctx, ss, op.protocol)
		}
		return res, err
	}
}

// watchSession records the duration of a stateful session (or stdio's)
// that has just initialized, when it ends.
func (t *telemetry) watchSession(ctx context.Context, ss *mcp.ServerSession, protocol string) {
	if !t.sessions.Enabled(ctx) {
		return
	}
	start := time.Now()
	attrs := metric.WithAttributes(attrProtocol.String(protocol), attrTransport.String(t.transport))
	ctx = context.WithoutCancel(ctx)
	go func() {
		defer func() { recovered(t.log, "recording a session's duration", recover()) }()
		ss.Wait()
		t.sessions.Record(ctx, time.Since(start).Seconds(), attrs)
	}()
}

// sessionID is the MCP session id of ss: "" for none, or a stateless
// request's.
func sessionID(ss *mcp.ServerSession) string {
	if ss == nil {
		return ""
	}
	return ss.ID()
}

// requestProtocol returns the protocol version a request of method was
// served under, as protocolLabel records it: its own (_meta, from
// 2026-07-28 on), the one its initialize settled, its session's, else its
// HTTP request's header; the first of them the go-sdk knows, else
// valueOther when any was sent.
func requestProtocol(method string, meta map[string]any, res mcp.Result, ss *mcp.ServerSession, header http.Header) string {
	other := ""
	if v, ok := meta[mcp.MetaKeyProtocolVersion].(string); ok {
		if v = protocolLabel(v); v != valueOther {
			return v
		}
		other = valueOther
	}
	// A method that failed has no result, though the go-sdk hands on a
	// typed nil for one.
	if r, ok := res.(*mcp.InitializeResult); ok && r != nil && method == "initialize" && r.ProtocolVersion != "" {
		return protocolLabel(r.ProtocolVersion)
	}
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ProtocolVersion != "" {
			if v := protocolLabel(p.ProtocolVersion); v != valueOther {
				return v
			}
			other = valueOther
		}
	}
	if v := protocolLabel(header.Get("Mcp-Protocol-Version")); v != "" {
		return v
	}
	return other
}

// withSpan returns ctx, the context a call is dispatched in, with the
// span of mc and its baggage, where ctx does not carry them already.
func withSpan(ctx context.Context, mc *mcpcall.Call) context.Context {
	if mc == nil || mc.Traced == nil {
		return ctx
	}
	if span := trace.SpanFromContext(mc.Traced); span.IsRecording() || span.SpanContext().IsValid() {
		ctx = trace.ContextWithSpan(ctx, span)
	}
	if b := baggage.FromContext(mc.Traced); b.Len() > 0 {
		ctx = baggage.ContextWithBaggage(ctx, b)
	}
	return ctx
}

// traceKeys are the _meta keys of W3C trace context and baggage, where the
// semantic conventions put them.
var traceKeys = [...]string{"traceparent", "tracestate", "baggage"}

// traceMeta is a fast path call's trace context, by traceKeys, as a
// propagator's carrier.
type traceMeta [len(traceKeys)]string

func (m *traceMeta) Get(key string) string {
	for i, k := range traceKeys {
		if k == key {
			return m[i]
		}
	}
	return ""
}

func (m *traceMeta) Set(string, string) {}

func (m *traceMeta) Keys() []string {
	var keys []string
	for i, k := range traceKeys {
		if m[i] != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// carrier returns m as a carrier; nil when it holds nothing.
func (m *traceMeta) carrier() propagation.TextMapCarrier {
	if *m == (traceMeta{}) {
		return nil
	}
	return m
}

// metaOf returns a request's params._meta, or nil.
func metaOf(req mcp.Request) map[string]any {
	params := req.GetParams()
	if params == nil {
		return nil
	}
	if v := reflect.ValueOf(params); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil // a request without params
	}
	return params.GetMeta()
}

// metaCarrier reads a request's params._meta as a propagator's carrier:
// the W3C keys hold strings.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
