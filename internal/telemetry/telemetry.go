// Package telemetry traces and measures every MCP request the door
// serves, on the fast path and on the go-sdk's, as OpenTelemetry's
// semantic conventions for the Model Context Protocol ask: a SERVER span
// named "{mcp.method.name} {target}" ("tools/call get_weather",
// "initialize"), the histogram mcp.server.operation.duration, and for a
// stateful session (or stdio) mcp.server.session.duration.
//
// A span's parent is the trace context in the request's params._meta
// (traceparent, tracestate, baggage), else the one in its HTTP request's
// headers, else the span of the HTTP request that carried it — never that of
// the request that opened its session, whose context a stateful session
// runs its calls in. The route a call dispatches to runs in the span's
// context, direct or replayed (see [WithSpan]).
//
// While tracing is off (see [Telemetry.Off]: no provider set, no
// propagator) a request starts no span; it costs a look at the globals and
// an Enabled check of each histogram, and allocates nothing.
//
// What a request sends never chooses how much the telemetry holds: an SDK
// keeps every attribute set of a histogram for the life of the process,
// and takes a span's values whole (its default limits are none). So a tool
// name is recorded only when it is one of the door's tools, else as
// valueOther, and a span of it is then named by its method alone; a
// protocol version only when the go-sdk knows it, else as valueOther; a
// method is one the go-sdk serves; and a value that is the client's own (a
// request id) or may quote it (a failure's message) is cut to valueMax
// bytes.
package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

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
)

// instrumentation is the name the door's tracer and meter are known by:
// the package users configure, where the telemetry was first made.
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

// serverSpan is the option every span the door starts takes.
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

// Options are what a [Telemetry] is made of. A nil provider or propagator
// is OpenTelemetry's global, which delegates to whatever the program sets
// later.
type Options struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	Propagators    propagation.TextMapPropagator
	// Log gets a panic of the goroutine that waits for a session's end.
	Log *slog.Logger
	// Version is the instrumentation's version: the main module's.
	Version string
	// Stdio: the door serves over stdio (network.transport pipe), not
	// over HTTP (tcp).
	Stdio bool
	// FailureCode returns the code of the door's error envelope an isError
	// tools/call result carries (its error.type), "" for none.
	FailureCode func(*mcp.CallToolResult) string
}

// Telemetry is what a door traces and measures with.
type Telemetry struct {
	tracer      trace.Tracer
	propagator  propagation.TextMapPropagator
	operations  metric.Float64Histogram // mcp.server.operation.duration
	sessions    metric.Float64Histogram // mcp.server.session.duration
	transport   string                  // network.transport: tcp, or pipe over stdio
	log         *slog.Logger
	failureCode func(*mcp.CallToolResult) string
	// What Off reads: the tracer provider is a no-op one, or the global;
	// the propagator is the global.
	noTracer, globalTracer, globalPropagator bool
}

// New returns the Telemetry of o.
func New(o Options) *Telemetry {
	tp, mp, prop := o.TracerProvider, o.MeterProvider, o.Propagators
	t := &Telemetry{globalTracer: tp == nil, globalPropagator: prop == nil, transport: "tcp", log: o.Log, failureCode: o.FailureCode}
	if t.log == nil {
		t.log = slog.Default()
	}
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
	t.tracer, t.propagator = tp.Tracer(instrumentation, trace.WithInstrumentationVersion(o.Version)), prop
	if o.Stdio {
		t.transport = "pipe"
	}
	meter := mp.Meter(instrumentation, metric.WithInstrumentationVersion(o.Version))
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

// Off reports whether tracing is off: no tracer provider that records
// (a no-op one, or the globals while the program has set none), and no
// propagator (the global, while unset). A request then starts no span:
// there is nothing to record, nor any context to carry on.
func (t *Telemetry) Off() bool {
	tracerOff := t.noTracer || t.globalTracer && unsetTracer != nil && otel.GetTracerProvider() == unsetTracer
	return tracerOff && t.globalPropagator && unsetPropagator != nil && otel.GetTextMapPropagator() == unsetPropagator
}

// noSpan is the span of a request while tracing is off.
var noSpan = trace.SpanFromContext(context.Background())

// An Operation is one MCP request being served: its span, and what its
// measurement needs.
type Operation struct {
	span     trace.Span
	start    time.Time // zero when the histogram is off
	method   string
	tool     string
	protocol string
}

// Start starts the span of an MCP request of method (for tools/call, of
// tool), named name ("" for method, or "tools/call <tool>"), in ctx, the
// context the request is handled in. Its
// parent is the trace context of meta (the request's params._meta), else
// that of header (its HTTP request's), else the span of ambient (the HTTP
// request that carried it; nil over stdio). The context returned carries
// the span.
func (t *Telemetry) Start(ctx context.Context, name, method, tool string, meta, header propagation.TextMapCarrier, ambient *http.Request) (context.Context, Operation) {
	op := Operation{span: noSpan, method: method, tool: tool}
	if t.operations.Enabled(ctx) {
		op.start = time.Now()
	}
	if t.Off() {
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

// Describe adds what is known of a request once it is read: its JSON-RPC
// id (as sent, JSON; nil for none), MCP session id and protocol version
// (a known one, or valueOther).
func (op *Operation) Describe(id []byte, session, protocol string) {
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

// End ends the span of op, which failed with errType (and message) when
// errType is not "", and records its duration.
func (t *Telemetry) End(ctx context.Context, op *Operation, errType, message string) {
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

// RPCFailure returns error.type and the message of a JSON-RPC error: its
// code, or _OTHER for an error that has none. The span also gets the code
// as rpc.response.status_code.
func RPCFailure(op *Operation, err error) (errType, message string) {
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

// ToolFailure returns error.type and the message of a tools/call result:
// "" for a success; for an isError result, the code of the door's error
// envelope (see Options.FailureCode), else tool_error.
func (t *Telemetry) ToolFailure(res *mcp.CallToolResult) (errType, message string) {
	if res == nil || !res.IsError {
		return "", ""
	}
	if len(res.Content) > 0 {
		if text, ok := res.Content[0].(*mcp.TextContent); ok {
			message = text.Text
		}
	}
	if t.failureCode != nil {
		if code := t.failureCode(res); code != "" {
			return code, message
		}
	}
	return errorTypeTool, message
}

// WithSpan returns ctx, the context a call is dispatched in, with the
// span of traced (the context [Telemetry.Start] returned for the call) and
// its baggage, where ctx does not carry them already; ctx itself when
// traced is nil.
func WithSpan(ctx, traced context.Context) context.Context {
	if traced == nil {
		return ctx
	}
	if span := trace.SpanFromContext(traced); span.IsRecording() || span.SpanContext().IsValid() {
		ctx = trace.ContextWithSpan(ctx, span)
	}
	if b := baggage.FromContext(traced); b.Len() > 0 {
		ctx = baggage.ContextWithBaggage(ctx, b)
	}
	return ctx
}

// TraceKeys are the _meta keys of W3C trace context and baggage, where the
// semantic conventions put them.
var TraceKeys = [...]string{"traceparent", "tracestate", "baggage"}

// TraceMeta is a fast path call's trace context, by TraceKeys, as a
// propagator's carrier.
type TraceMeta [len(TraceKeys)]string

// Get returns the value of key, "" for none.
func (m *TraceMeta) Get(key string) string {
	for i, k := range TraceKeys {
		if k == key {
			return m[i]
		}
	}
	return ""
}

// Set does nothing: a call's trace context is read, never written.
func (m *TraceMeta) Set(string, string) {}

// Keys returns the keys m holds a value of.
func (m *TraceMeta) Keys() []string {
	var keys []string
	for i, k := range TraceKeys {
		if m[i] != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// Carrier returns m as a carrier; nil when it holds nothing.
func (m *TraceMeta) Carrier() propagation.TextMapCarrier {
	if *m == (TraceMeta{}) {
		return nil
	}
	return m
}
