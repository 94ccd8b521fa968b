package tests

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// An otlpReceiver is an OTLP/HTTP endpoint on 127.0.0.1 that decodes the
// protobuf export requests of traces and metrics and keeps what they
// carry, as a collector would receive them.
type otlpReceiver struct {
	url string

	mu      sync.Mutex
	spans   []*tracepb.Span
	service map[string]bool // the service.name of every resource that sent spans
	metrics []*colmetricpb.ExportMetricsServiceRequest
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{service: make(map[string]bool)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, req *http.Request) {
		var in coltracepb.ExportTraceServiceRequest
		if !decodeOTLP(t, w, req, &in) {
			return
		}
		r.mu.Lock()
		for _, rs := range in.ResourceSpans {
			r.service[attrValue(rs.GetResource().GetAttributes(), "service.name")] = true
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
		r.mu.Unlock()
		answerOTLP(w, &coltracepb.ExportTraceServiceResponse{})
	})
	mux.HandleFunc("POST /v1/metrics", func(w http.ResponseWriter, req *http.Request) {
		var in colmetricpb.ExportMetricsServiceRequest
		if !decodeOTLP(t, w, req, &in) {
			return
		}
		r.mu.Lock()
		r.metrics = append(r.metrics, &in)
		r.mu.Unlock()
		answerOTLP(w, &colmetricpb.ExportMetricsServiceResponse{})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

// decodeOTLP reads an export request's protobuf body into m, or answers
// 400 and reports false.
func decodeOTLP(t *testing.T, w http.ResponseWriter, req *http.Request, m proto.Message) bool {
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return false
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err == nil && req.Header.Get("Content-Type") != "application/x-protobuf" {
		t.Errorf("OTLP export with Content-Type %q, want application/x-protobuf", req.Header.Get("Content-Type"))
	}
	if err == nil {
		err = proto.Unmarshal(b, m)
	}
	if err != nil {
		t.Errorf("OTLP export request %s: %v", req.URL.Path, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

func answerOTLP(w http.ResponseWriter, m proto.Message) {
	b, _ := proto.Marshal(m)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(b)
}

func attrValue(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			switch v := kv.Value.Value.(type) {
			case *commonpb.AnyValue_StringValue:
				return v.StringValue
			case *commonpb.AnyValue_IntValue:
				return strconv.FormatInt(v.IntValue, 10)
			}
		}
	}
	return ""
}

// waitSpan waits for a received span that match accepts, and fails the
// test without one within the time an export interval of the test takes
// many times over.
func (r *otlpReceiver) waitSpan(t *testing.T, what string, match func(*tracepb.Span) bool) *tracepb.Span {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r.mu.Lock()
		var found *tracepb.Span
		var names []string
		for _, s := range r.spans {
			names = append(names, s.Name)
			if match(s) {
				found = s
			}
		}
		r.mu.Unlock()
		if found != nil {
			return found
		}
		if time.Now().After(deadline) {
			t.Fatalf("the OTLP receiver got no span %s; it got %q", what, names)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitDuration waits for a data point of mcp.server.operation.duration
// whose attributes hold want, and fails the test without one.
func (r *otlpReceiver) waitDuration(t *testing.T, want map[string]string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r.mu.Lock()
		found := false
		for _, req := range r.metrics {
			for _, rm := range req.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					for _, m := range sm.Metrics {
						if m.Name != "mcp.server.operation.duration" || m.Unit != "s" || m.GetHistogram() == nil {
							continue
						}
						for _, dp := range m.GetHistogram().DataPoints {
							ok := dp.Count > 0
							for k, v := range want {
								ok = ok && attrValue(dp.Attributes, k) == v
							}
							found = found || ok
						}
					}
				}
			}
		}
		r.mu.Unlock()
		if found {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the OTLP receiver got no mcp.server.operation.duration histogram in seconds with %v", want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exportTo sets the OTEL_* variables that make a program export to r,
// often, as the service "weather-test", until the test ends.
func (r *otlpReceiver) exportTo(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", r.url)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "100")
	t.Setenv("OTEL_SERVICE_NAME", "weather-test")
}

// wantWireCall fails the test unless the receiver got the server span of a
// get_weather call made in the trace of metaTraceparent, with the
// conventions' attributes, and the route's otelhttp span under it.
func wantWireCall(t *testing.T, r *otlpReceiver, transport string) {
	t.Helper()
	call := r.waitSpan(t, `"tools/call get_weather"`, func(s *tracepb.Span) bool { return s.Name == "tools/call get_weather" })
	if got := hex.EncodeToString(call.TraceId); got != metaTraceID {
		t.Errorf("the call's span: trace id %s, want the client's %s", got, metaTraceID)
	}
	if got := hex.EncodeToString(call.ParentSpanId); got != metaParent {
		t.Errorf("the call's span: parent %s, want the client's %s", got, metaParent)
	}
	if call.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("the call's span: kind %s, want server", call.Kind)
	}
	for k, v := range map[string]string{
		"mcp.method.name":       "tools/call",
		"gen_ai.tool.name":      "get_weather",
		"gen_ai.operation.name": "execute_tool",
		"network.transport":     transport,
	} {
		if got := attrValue(call.Attributes, k); got != v {
			t.Errorf("the call's span: %s = %q, want %q", k, got, v)
		}
	}
	route := r.waitSpan(t, "under the call's", func(s *tracepb.Span) bool { return string(s.ParentSpanId) == string(call.SpanId) })
	if route.Kind != tracepb.Span_SPAN_KIND_SERVER || !strings.Contains(route.Name, "/get_weather") || attrValue(route.Attributes, "http.route") != "/get_weather" && attrValue(route.Attributes, "url.path") != "/get_weather" {
		t.Errorf("the span under the call's is %q (kind %s, attributes %v), want the route's otelhttp span", route.Name, route.Kind, route.Attributes)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.service["weather-test"] {
		t.Errorf("no spans of service.name weather-test (OTEL_SERVICE_NAME); services: %v", r.service)
	}
}

// TestWeatherOTLP: the weather example, run with OTEL_EXPORTER_OTLP_ENDPOINT,
// exports over OTLP/HTTP the server span of a call made in a client's trace
// (_meta's traceparent), with the route's otelhttp span under it, and the
// call's duration.
func TestWeatherOTLP(t *testing.T) {
	r := newOTLPReceiver(t)
	r.exportTo(t)
	e := startExample(t, "weather", "")
	resp := e.rawMCP(t, strings.Replace(callBody("Paris", `{"traceparent":"`+metaTraceparent+`"}`), `"id":7`, `"id":"w1"`, 1), raw{protocol: "2025-11-25"})
	if resp.Status != http.StatusOK || !strings.Contains(string(resp.Body), "sunny") {
		t.Fatalf("tools/call: %d %s", resp.Status, resp.Body)
	}
	wantWireCall(t, r, "tcp")
	call := r.waitSpan(t, "with jsonrpc.request.id w1", func(s *tracepb.Span) bool { return attrValue(s.Attributes, "jsonrpc.request.id") == "w1" })
	if got := attrValue(call.Attributes, "mcp.protocol.version"); got != "2025-11-25" {
		t.Errorf("mcp.protocol.version = %q", got)
	}
	r.waitDuration(t, map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "get_weather", "mcp.protocol.version": "2025-11-25"})
}

// TestWeatherStdioOTLP: so it does over stdio.
func TestWeatherStdioOTLP(t *testing.T) {
	r := newOTLPReceiver(t)
	r.exportTo(t)
	cmd := exec.Command(goBuild(t, "./examples/weather"), "-stdio")
	cmd.Env = append(cmd.Environ(), "WEATHER_MCP_SECRET=")
	cs := connectCommand(t, cmd)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Paris"},
		Meta: mcp.Meta{"traceparent": metaTraceparent}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call: %v %v", err, res)
	}
	wantWireCall(t, r, "pipe")
	r.waitDuration(t, map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "get_weather", "network.transport": "pipe"})
}
