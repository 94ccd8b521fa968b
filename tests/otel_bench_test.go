package tests

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/internal/cputime"
)

// BenchmarkTracedCall compares, in the process's CPU time per call, a
// small stateless tools/call whose _meta carries a sampled traceparent,
// served in process on the fast path and on the go-sdk's, by a door with
// no provider (OpenTelemetry's globals, unset) and by one whose Config
// holds an SDK tracer provider that samples every span (exported in
// batches, to an exporter that drops them) and an SDK meter provider: its
// sampled/none metric is the ratio.
func BenchmarkTracedCall(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		tp.Shutdown(context.Background())
		mp.Shutdown(context.Background())
	})
	body := callBody("Paris", `{"traceparent":"`+metaTraceparent+`"}`)
	for _, path := range []struct{ name, block string }{{"fast", ""}, {"sdk", "  disable_fast_path: true\n"}} {
		door := func(sampled bool) http.Handler {
			cfg, err := autoexpose.ParseConfig([]byte("name: weather\nexpose_tools_over_mcp: true\nmcp:\n  session_secret: \"" + testSecret + "\"\n" + path.block))
			if err != nil {
				b.Fatal(err)
			}
			cfg.Logger = slog.New(slog.DiscardHandler)
			if sampled {
				cfg.TracerProvider, cfg.MeterProvider = tp, mp
				cfg.Propagators = propagation.TraceContext{}
			}
			r := chi.NewRouter()
			r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(func(_ context.Context, _ *http.Request, in forecastIn) (forecastOut, error) {
				return forecastOut{City: in.City, TempC: 21}, nil
			}))
			d, err := autoexpose.Install(r, cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { d.Close() })
			return r
		}
		none, sampled := door(false), door(true)
		call := func(h http.Handler) func() {
			return func() {
				req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `temp_c`) {
					b.Fatalf("tools/call: %d %s", w.Code, w.Body)
				}
			}
		}
		b.Run("path="+path.name, func(b *testing.B) {
			cputime.Pair(b, "none", "sampled", call(none), call(sampled))
		})
	}
}
