package autoexpose

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/propagation"

	"github.com/mcpdoor/mcpdoor/internal/cputime"
	"github.com/mcpdoor/mcpdoor/internal/telemetry"
)

// BenchmarkCallCPU serves small echo calls through the router, in process,
// on the fast path and on the go-sdk's, with OpenTelemetry's globals unset
// (no provider: what a user who does nothing gets), and reports the CPU
// time of the process per call (cpu-ns/op), which the machine's other work
// does not inflate as it does the time on the clock. Built at two commits
// and run in turns, it compares their costs:
//
//	go test -c -o new.test ./autoexpose   # and old.test at the other commit
//	for i in $(seq 10); do ./old.test -test.run '^$' -test.bench CallCPU >> old.txt; ./new.test ... >> new.txt; done
//	benchstat old.txt new.txt
func BenchmarkCallCPU(b *testing.B) {
	if _, err := cputime.Now(); err != nil {
		b.Skip(err)
	}
	for _, path := range []struct{ name, block string }{{"fast", ""}, {"sdk", "  disable_fast_path: true\n"}} {
		r, _ := echoRouter(b, path.block)
		for _, v := range []string{"2025-11-25", "2026-07-28"} {
			c := echoCalls[v]
			body := []byte(c.body)
			b.Run("path="+path.name+"/v="+v, func(b *testing.B) {
				b.ReportAllocs()
				w := &discard{header: make(http.Header)}
				start, _ := cputime.Now()
				for b.Loop() {
					req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
					req.Header = c.header.Clone()
					clear(w.header)
					r.ServeHTTP(w, req)
				}
				end, _ := cputime.Now()
				b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkTelemetryOff measures what tracing and measuring add to a
// request while they are off (OpenTelemetry's globals unset): the work a
// call does for its span and duration, alone, in CPU time (cpu-ns/op).
func BenchmarkTelemetryOff(b *testing.B) {
	t := telemetry.New(telemetry.Options{})
	if !t.Off() {
		b.Skip("OpenTelemetry's globals are set")
	}
	header := propagation.HeaderCarrier(echoCalls["2025-11-25"].header)
	ctx := context.Background()
	b.ReportAllocs()
	start, _ := cputime.Now()
	id := []byte("2")
	for b.Loop() {
		ctx, op := t.Start(ctx, "tools/call echo", "tools/call", "echo", nil, header, nil)
		op.Describe(id, "", "2025-11-25")
		t.End(ctx, &op, "", "")
	}
	end, _ := cputime.Now()
	b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
}
