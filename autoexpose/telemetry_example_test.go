package autoexpose_test

import (
	"context"
	"log"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// The providers a program makes with OpenTelemetry's SDK and its
// exporters (examples/weather/telemetry.go makes them from the OTEL_*
// variables); no-ops here.
var (
	tracerProvider trace.TracerProvider = tracenoop.NewTracerProvider()
	meterProvider  metric.MeterProvider = metricnoop.NewMeterProvider()
)

type cityIn struct {
	City string `json:"city"`
}

type cityOut struct {
	Weather string `json:"weather"`
}

// A Door traces and measures every MCP request with the providers and
// propagator of its Config; left nil, with OpenTelemetry's globals.
func ExampleConfig_telemetry() {
	cfg, err := autoexpose.ParseConfig([]byte("name: weather\nexpose_tools_over_mcp: true\n"))
	if err != nil {
		log.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	r := chi.NewRouter()
	r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(func(ctx context.Context, _ *http.Request, in cityIn) (cityOut, error) {
		return cityOut{Weather: "sunny in " + in.City}, nil
	}))

	cfg.TracerProvider = tracerProvider // nil: otel.GetTracerProvider()
	cfg.MeterProvider = meterProvider   // nil: otel.GetMeterProvider()
	cfg.Propagators = propagation.NewCompositeTextMapPropagator(
		propagation.TraceContext{}, propagation.Baggage{}) // nil: otel.GetTextMapPropagator()
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer door.Close()
}
