package tests

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// telemetryValueMax is the most bytes a span or metric attribute value, or
// a span's status description, holds of what a request sent
// (docs/observability.md, "Bounds").
const telemetryValueMax = 256

// TestTelemetryBounds: an anonymous client cannot choose what the door's
// telemetry holds. 300 calls of unknown tools, each named by 2,000 bytes,
// a call of a 200,000-byte name, a call whose id is 200,000 bytes and, in
// a stateful session, an initialize that asks for a protocol version of
// 200,000 bytes make one series of mcp.server.operation.duration for all
// the unknown tools (gen_ai.tool.name _OTHER), and spans whose names,
// attributes and status descriptions hold at most telemetryValueMax bytes
// of them. Each unknown name made a series of its own, kept for the life
// of the process, and the span took every byte.
func TestTelemetryBounds(t *testing.T) {
	for _, c := range []struct{ name, yaml string }{
		{"fast path", ""},
		{"go-sdk", "  disable_fast_path: true\n"},
		{"stateful", "  stateful: true\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rig := newTelemetryRig(t)
			rig.asGlobals(t)
			s := serve(t, installTraced(t, rig, c.yaml, nil))
			huge := strings.Repeat("x", 200_000)
			o := raw{protocol: "2025-11-25"}
			if c.yaml == "  stateful: true\n" {
				init := strings.Replace(initializeBody(1), `"protocolVersion":"2025-11-25"`, `"protocolVersion":"`+huge+`"`, 1)
				o.sid = s.rawMCP(t, init, o).Header.Get("Mcp-Session-Id")
				if o.sid == "" {
					t.Fatal("initialize: no session")
				}
				s.rawMCP(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, o)
			}
			for i := range 300 {
				name := fmt.Sprintf("tool_%03d_%s", i, strings.Repeat("y", 2000))
				s.rawMCP(t, strings.Replace(callBody("Paris", ""), "get_weather", name, 1), o)
			}
			s.rawMCP(t, strings.Replace(callBody("Paris", ""), "get_weather", huge, 1), o)
			s.rawMCP(t, strings.Replace(callBody("Paris", ""), `"id":7`, `"id":"`+huge+`"`, 1), o)
			s.rawMCP(t, callBody("Atlantis", ""), o)
			rig.span(t, "tools/call get_weather") // the last call is measured as its span ends

			over := violations{}
			var rm metricdata.ResourceMetrics
			if err := rig.reader.Collect(context.Background(), &rm); err != nil {
				t.Fatal(err)
			}
			series, valueBytes := 0, 0
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					h, ok := m.Data.(metricdata.Histogram[float64])
					if !ok {
						continue
					}
					for _, dp := range h.DataPoints {
						series++
						for _, kv := range dp.Attributes.ToSlice() {
							v := kv.Value.String()
							valueBytes += len(v)
							switch {
							case len(v) > telemetryValueMax:
								over.note("metric "+string(kv.Key), "%s: attribute %s of %d bytes (%.40s...), want at most %d", m.Name, kv.Key, len(v), v, telemetryValueMax)
							case kv.Key == "gen_ai.tool.name" && v != "get_weather" && v != "_OTHER":
								over.note("metric tool", "%s: gen_ai.tool.name %.40q, want get_weather or _OTHER", m.Name, v)
							case kv.Key == "mcp.protocol.version" && !slices.Contains(mcp.SupportedProtocolVersions(), v) && v != "_OTHER":
								over.note("metric protocol", "%s: mcp.protocol.version %.40q, want a version the go-sdk knows, or _OTHER", m.Name, v)
							}
						}
					}
				}
			}
			got := histogram(t, rig, "mcp.server.operation.duration")
			t.Logf("%d series, %d bytes of attribute values", series, valueBytes)
			// One series for all 301 unknown tools' calls, whatever their names.
			unknown := "error.type=-32602;gen_ai.tool.name=_OTHER;mcp.method.name=tools/call;mcp.protocol.version=2025-11-25;network.transport=tcp"
			if series > 10 || got[unknown] != 301 {
				t.Errorf("%d series of the door's histograms, %d bytes of attribute values, %d calls in {%s}; want at most 10 series, the 301 calls of unknown tools in that one",
					series, valueBytes, got[unknown], unknown)
			}
			spans := rig.spans.GetSpans()
			for _, span := range spans {
				if len(span.Name) > 2*telemetryValueMax {
					over.note("span name", "a span named by %d bytes (%.40s...), want at most %d", len(span.Name), span.Name, 2*telemetryValueMax)
				}
				for _, kv := range span.Attributes {
					if v := kv.Value.String(); len(v) > telemetryValueMax {
						over.note("span "+string(kv.Key), "span %.40q: attribute %s of %d bytes (%.40s...), want at most %d", span.Name, kv.Key, len(v), v, telemetryValueMax)
					}
					if v := kv.Value.String(); kv.Key == "gen_ai.tool.name" && v != "get_weather" && v != "_OTHER" {
						over.note("span tool", "span %.40q: gen_ai.tool.name %.40q, want get_weather or _OTHER", span.Name, v)
					}
				}
				if d := span.Status.Description; len(d) > telemetryValueMax {
					over.note("span status", "span %.40q: status description of %d bytes (%.40s...), want at most %d", span.Name, len(d), d, telemetryValueMax)
				}
			}
			over.report(t)
			if t.Failed() {
				t.Logf("%d spans", len(spans))
			}
		})
	}
}

// violations counts what breaks a bound, by kind, and keeps the first
// message of each.
type violations map[string]*violation

type violation struct {
	n     int
	first string
}

func (v violations) note(kind, format string, args ...any) {
	if v[kind] == nil {
		v[kind] = &violation{first: fmt.Sprintf(format, args...)}
	}
	v[kind].n++
}

// report fails t with the first message of each kind, and how many more
// there were.
func (v violations) report(t *testing.T) {
	t.Helper()
	for _, kind := range slices.Sorted(maps.Keys(v)) {
		x := v[kind]
		t.Errorf("%s (and %d more like it)", x.first, x.n-1)
	}
}
