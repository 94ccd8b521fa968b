package tests

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// The trace contexts a test's client sends: in params._meta (an agent's
// MCP instrumentation), and in the HTTP request's headers.
const (
	metaTraceID     = "4bf92f3577b34da6a3ce929d0e0e4736"
	metaParent      = "00f067aa0ba902b7"
	metaTraceparent = "00-" + metaTraceID + "-" + metaParent + "-01"
	headerTraceID   = "0af7651916cd43dd8448eb211c80319c"
	headerParent    = "b7ad6b7169203331"
	headerTrace     = "00-" + headerTraceID + "-" + headerParent + "-01"
)

// telemetryRig is an SDK tracer provider that keeps every span in memory, a
// meter provider read by hand, and the W3C propagators: what a server
// wires, with exporters, in its main.
type telemetryRig struct {
	spans  *tracetest.InMemoryExporter
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
	prop   propagation.TextMapPropagator
}

func newTelemetryRig(t *testing.T) *telemetryRig {
	r := &telemetryRig{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader(),
		prop: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.spans))
	r.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() {
		r.tp.Shutdown(context.Background())
		r.mp.Shutdown(context.Background())
	})
	return r
}

// asGlobals makes the rig OpenTelemetry's globals until the test ends: a
// Door with no providers in its Config uses them.
func (r *telemetryRig) asGlobals(t *testing.T) {
	tp, mp, prop := otel.GetTracerProvider(), otel.GetMeterProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(r.tp)
	otel.SetMeterProvider(r.mp)
	otel.SetTextMapPropagator(r.prop)
	t.Cleanup(func() {
		otel.SetTracerProvider(tp)
		otel.SetMeterProvider(mp)
		otel.SetTextMapPropagator(prop)
	})
}

// span waits for the span named name that ends last, and fails the test
// without one: a server ends a request's span once its answer is written,
// which the client may read first.
func (r *telemetryRig) span(t *testing.T, name string) tracetest.SpanStub {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		spans := r.spans.GetSpans()
		for i := len(spans) - 1; i >= 0; i-- {
			if spans[i].Name == name {
				return spans[i]
			}
		}
		if time.Now().After(deadline) {
			var names []string
			for _, s := range spans {
				names = append(names, s.Name)
			}
			t.Fatalf("no span %q; spans: %q", name, names)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// attrs returns a span's attributes as strings.
func attrs(kvs []attribute.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// wantAttrs fails the test unless every attribute of want has its value in
// got ("" for an attribute that must be missing).
func wantAttrs(t *testing.T, what string, got []attribute.KeyValue, want map[string]string) {
	t.Helper()
	have := attrs(got)
	for k, v := range want {
		if have[k] != v {
			t.Errorf("%s: attribute %s = %q, want %q (all: %v)", what, k, have[k], v, have)
		}
	}
}

type forecastIn struct {
	City string `json:"city"`
}

type forecastOut struct {
	City  string `json:"city"`
	TempC int    `json:"temp_c"`
}

// tracedRouter is a router wrapped in otelhttp, as a real server's is,
// whose get_weather handler starts a span of its own, and refuses the city
// Atlantis with a 404.
func tracedRouter(rig *telemetryRig) *chi.Mux {
	r := chi.NewRouter()
	r.Use(otelhttp.NewMiddleware("route", otelhttp.WithTracerProvider(rig.tp), otelhttp.WithPropagators(rig.prop)))
	r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(func(ctx context.Context, _ *http.Request, in forecastIn) (forecastOut, error) {
		_, span := rig.tp.Tracer("weather").Start(ctx, "forecast lookup")
		defer span.End()
		if in.City == "Atlantis" {
			return forecastOut{}, autoexpose.Error(http.StatusNotFound, "no such city")
		}
		return forecastOut{City: in.City, TempC: 21}, nil
	}))
	return r
}

// installTraced installs a door with the mcp block yaml on a traced router.
func installTraced(t *testing.T, rig *telemetryRig, yaml string, edit func(*autoexpose.Config)) *autoexpose.Door {
	t.Helper()
	cfg, err := autoexpose.ParseConfig([]byte("name: weather\nexpose_tools_over_mcp: true\nmcp:\n  session_secret: \"" + testSecret + "\"\n" + yaml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	if edit != nil {
		edit(&cfg)
	}
	door, err := autoexpose.Install(tracedRouter(rig), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { door.Close() })
	return door
}

// callBody is a tools/call of get_weather with id 7, with meta as its
// params._meta ("" for none).
func callBody(city, meta string) string {
	params := `"name":"get_weather","arguments":{"city":"` + city + `"}`
	if meta != "" {
		params += `,"_meta":` + meta
	}
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + params + `}}`
}

// wantChildren fails the test unless the route ran under the call's span:
// replayed, through the router's otelhttp middleware, whose span is the
// call's child and the handler's span's parent; direct, with the
// handler's span the call's child.
func wantChildren(t *testing.T, rig *telemetryRig, call tracetest.SpanStub, replayed bool) {
	t.Helper()
	handler := rig.span(t, "forecast lookup")
	parent := call
	if replayed {
		route := rig.span(t, "POST /get_weather")
		if route.Parent.SpanID() != call.SpanContext.SpanID() || route.SpanContext.TraceID() != call.SpanContext.TraceID() {
			t.Errorf("the router's otelhttp span has parent %s/%s, want the call's span %s/%s",
				route.SpanContext.TraceID(), route.Parent.SpanID(), call.SpanContext.TraceID(), call.SpanContext.SpanID())
		}
		parent = route
	}
	if handler.Parent.SpanID() != parent.SpanContext.SpanID() || handler.SpanContext.TraceID() != call.SpanContext.TraceID() {
		t.Errorf("the handler's span has parent %s/%s, want %q %s/%s",
			handler.SpanContext.TraceID(), handler.Parent.SpanID(), parent.Name, parent.SpanContext.TraceID(), parent.SpanContext.SpanID())
	}
}

// wantParent fails the test unless span's parent is the remote span
// traceID/spanID.
func wantParent(t *testing.T, span tracetest.SpanStub, traceID, spanID string) {
	t.Helper()
	if got := span.SpanContext.TraceID().String(); got != traceID {
		t.Errorf("span %q: trace id %s, want %s", span.Name, got, traceID)
	}
	if got := span.Parent.SpanID().String(); got != spanID || !span.Parent.IsRemote() {
		t.Errorf("span %q: parent %s (remote %v), want the client's %s", span.Name, got, span.Parent.IsRemote(), spanID)
	}
	if span.SpanKind != trace.SpanKindServer {
		t.Errorf("span %q: kind %s, want server", span.Name, span.SpanKind)
	}
}

// TestTraceStateless: a stateless tools/call whose _meta carries a
// traceparent has a server span in the client's trace, under the client's
// span, with the semantic conventions' attributes, and the route's spans
// under it; a call without one takes its parent from the HTTP request's
// traceparent header. So it goes on the fast path and on the go-sdk's
// path, dispatched direct and replayed, with OpenTelemetry's globals (a
// Config without providers).
func TestTraceStateless(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		replayed   bool
	}{
		{"fast path, direct", "  dispatch: direct\n", false},
		{"fast path, replayed", "  dispatch: replay\n", true},
		{"go-sdk, direct", "  dispatch: direct\n  disable_fast_path: true\n", false},
		{"go-sdk, replayed", "  dispatch: replay\n  disable_fast_path: true\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rig := newTelemetryRig(t)
			rig.asGlobals(t)
			door := installTraced(t, rig, c.yaml, nil)
			s := serve(t, door)
			resp := s.rawMCP(t, callBody("Paris", `{"traceparent":"`+metaTraceparent+`","tracestate":"rojo=00f067aa0ba902b7"}`), raw{protocol: "2025-11-25"})
			if resp.Status != http.StatusOK || !strings.Contains(string(resp.Body), `"temp_c\":21`) {
				t.Fatalf("tools/call: %d %s", resp.Status, resp.Body)
			}
			span := rig.span(t, "tools/call get_weather")
			wantParent(t, span, metaTraceID, metaParent)
			if got := span.Parent.TraceState().String(); got != "rojo=00f067aa0ba902b7" {
				t.Errorf("parent's tracestate %q, want the client's", got)
			}
			wantAttrs(t, span.Name, span.Attributes, map[string]string{
				"mcp.method.name":       "tools/call",
				"gen_ai.tool.name":      "get_weather",
				"gen_ai.operation.name": "execute_tool",
				"jsonrpc.request.id":    "7",
				"mcp.protocol.version":  "2025-11-25",
				"network.transport":     "tcp",
				"error.type":            "",
				"mcp.session.id":        "",
			})
			wantChildren(t, rig, span, c.replayed)

			rig.spans.Reset()
			resp = s.rawMCP(t, callBody("Oslo", ""), raw{protocol: "2025-11-25", header: []string{"traceparent", headerTrace}})
			if resp.Status != http.StatusOK {
				t.Fatalf("tools/call: %d %s", resp.Status, resp.Body)
			}
			span = rig.span(t, "tools/call get_weather")
			wantParent(t, span, headerTraceID, headerParent)
			wantChildren(t, rig, span, c.replayed)
		})
	}
}

// TestTraceStateful: in a stateful session, whose calls the go-sdk runs in
// the context of the session's initialize request, a call's span still
// takes its parent from its own _meta (or its own HTTP request's header),
// and the route's spans are the call's children — not the initialize
// request's. The server is wrapped in otelhttp, so that the initialize
// request's context holds a span to be confused with.
func TestTraceStateful(t *testing.T) {
	for _, replayed := range []bool{false, true} {
		dispatch := map[bool]string{false: "direct", true: "replay"}[replayed]
		t.Run(dispatch, func(t *testing.T) {
			rig := newTelemetryRig(t)
			rig.asGlobals(t)
			door := installTraced(t, rig, "  stateful: true\n  dispatch: "+dispatch+"\n", nil)
			s := serve(t, otelhttp.NewHandler(door, "server", otelhttp.WithTracerProvider(rig.tp), otelhttp.WithPropagators(rig.prop)))
			cs := s.connect(mcpOptions{protocol: "2025-11-25"})
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Paris"},
				Meta: mcp.Meta{"traceparent": metaTraceparent}})
			if err != nil || res.IsError {
				t.Fatalf("tools/call: %v %v", err, res)
			}
			span := rig.span(t, "tools/call get_weather")
			wantParent(t, span, metaTraceID, metaParent)
			wantAttrs(t, span.Name, span.Attributes, map[string]string{
				"mcp.method.name":      "tools/call",
				"gen_ai.tool.name":     "get_weather",
				"mcp.protocol.version": "2025-11-25",
				"mcp.session.id":       cs.ID(),
			})
			wantChildren(t, rig, span, replayed)
			if init := rig.span(t, "initialize"); init.SpanContext.TraceID() == span.SpanContext.TraceID() {
				t.Errorf("the call's span is in the initialize request's trace %s", init.SpanContext.TraceID())
			}

			// Without _meta, the parent is the call's own HTTP request's:
			// the otelhttp span of that POST, itself under its header.
			rig.spans.Reset()
			hs := s.connect(mcpOptions{protocol: "2025-11-25", header: http.Header{"Traceparent": {headerTrace}}})
			call(t, hs, "get_weather", map[string]any{"city": "Oslo"})
			span = rig.span(t, "tools/call get_weather")
			if got := span.SpanContext.TraceID().String(); got != headerTraceID {
				t.Errorf("span %q: trace id %s, want the header's %s", span.Name, got, headerTraceID)
			}
			wantChildren(t, rig, span, replayed)
		})
	}
}

// TestTraceFailures: a call that fails has error.type on its span and an
// error status: the JSON-RPC error code of an unknown tool, and the door's
// own error code of an isError result (a route's 404).
func TestTraceFailures(t *testing.T) {
	for _, path := range []string{"", "  disable_fast_path: true\n"} {
		rig := newTelemetryRig(t)
		rig.asGlobals(t)
		s := serve(t, installTraced(t, rig, path, nil))
		meta := `{"traceparent":"` + metaTraceparent + `"}`
		s.rawMCP(t, callBody("Atlantis", meta), raw{protocol: "2025-11-25"})
		span := rig.span(t, "tools/call get_weather")
		wantAttrs(t, "a route's 404", span.Attributes, map[string]string{"error.type": "not_found"})
		if span.Status.Code != codes.Error || !strings.Contains(span.Status.Description, "no such city") {
			t.Errorf("a route's 404: status %v %q, want an error saying no such city", span.Status.Code, span.Status.Description)
		}
		s.rawMCP(t, strings.Replace(callBody("Paris", meta), "get_weather", "get_tides", 1), raw{protocol: "2025-11-25"})
		// A tool that is not the server's is not named (TestTelemetryBounds).
		span = rig.span(t, "tools/call")
		wantAttrs(t, "an unknown tool", span.Attributes, map[string]string{"error.type": "-32602", "rpc.response.status_code": "-32602", "gen_ai.tool.name": "_OTHER"})
		if span.Status.Code != codes.Error || !strings.Contains(span.Status.Description, `unknown tool "get_tides"`) {
			t.Errorf("an unknown tool: status %v %q, want the JSON-RPC error's message", span.Status.Code, span.Status.Description)
		}
	}
}

// TestTraceProviders: the providers and propagator of Config win over the
// globals.
func TestTraceProviders(t *testing.T) {
	rig := newTelemetryRig(t)
	door := installTraced(t, rig, "", func(cfg *autoexpose.Config) {
		cfg.TracerProvider, cfg.MeterProvider, cfg.Propagators = rig.tp, rig.mp, rig.prop
	})
	s := serve(t, door)
	s.rawMCP(t, callBody("Paris", `{"traceparent":"`+metaTraceparent+`"}`), raw{protocol: "2025-11-25"})
	wantParent(t, rig.span(t, "tools/call get_weather"), metaTraceID, metaParent)
}

// TestMetrics: every request is measured in mcp.server.operation.duration,
// by method, tool, outcome and protocol; a stateful session, once it ends,
// in mcp.server.session.duration.
func TestMetrics(t *testing.T) {
	for _, c := range []struct{ name, yaml string }{{"fast path", ""}, {"go-sdk", "  disable_fast_path: true\n"}} {
		t.Run(c.name, func(t *testing.T) {
			rig := newTelemetryRig(t)
			rig.asGlobals(t)
			s := serve(t, installTraced(t, rig, c.yaml, nil))
			s.rawMCP(t, callBody("Paris", ""), raw{protocol: "2025-11-25"})
			s.rawMCP(t, callBody("Paris", ""), raw{protocol: "2025-11-25"})
			s.rawMCP(t, callBody("Atlantis", ""), raw{protocol: "2025-11-25"})
			rig.span(t, "tools/call get_weather") // the last call is measured as its span ends
			got := histogram(t, rig, "mcp.server.operation.duration")
			want := map[string]uint64{
				"error.type=;gen_ai.tool.name=get_weather;mcp.method.name=tools/call;mcp.protocol.version=2025-11-25;network.transport=tcp":          2,
				"error.type=not_found;gen_ai.tool.name=get_weather;mcp.method.name=tools/call;mcp.protocol.version=2025-11-25;network.transport=tcp": 1,
			}
			for k, n := range want {
				if got[k] != n {
					t.Errorf("mcp.server.operation.duration{%s}: %d calls, want %d (all: %v)", k, got[k], n, got)
				}
			}
		})
	}
	t.Run("session", func(t *testing.T) {
		rig := newTelemetryRig(t)
		rig.asGlobals(t)
		s := serve(t, installTraced(t, rig, "  stateful: true\n", nil))
		cs := s.connect(mcpOptions{protocol: "2025-11-25"})
		call(t, cs, "get_weather", map[string]any{"city": "Paris"})
		cs.Close()
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := histogram(t, rig, "mcp.server.session.duration")
			if got["mcp.protocol.version=2025-11-25;network.transport=tcp"] == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("mcp.server.session.duration: %v, want one session of 2025-11-25 over tcp", got)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// histogram returns the count of each attribute set of the histogram
// named name, its attributes written k=v;k=v in key order, error.type
// always ("" when missing).
func histogram(t *testing.T, rig *telemetryRig, name string) map[string]uint64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := rig.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := make(map[string]uint64)
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			if m.Unit != "s" {
				t.Errorf("%s: unit %q, want s", name, m.Unit)
			}
			h, ok := m.Data.(metricdata.Histogram[float64])
			if !ok {
				t.Fatalf("%s is a %T, want a float64 histogram", name, m.Data)
			}
			for _, dp := range h.DataPoints {
				got[attrKey(dp.Attributes)] += dp.Count
			}
		}
	}
	return got
}

func attrKey(set attribute.Set) string {
	m := attrs(set.ToSlice())
	if _, ok := m["error.type"]; !ok && m["mcp.method.name"] != "" {
		m["error.type"] = ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, "%s=%s", k, m[k])
	}
	return b.String()
}
