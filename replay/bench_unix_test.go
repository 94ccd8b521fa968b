//go:build unix

package replay_test

import (
	"context"
	"net/http"
	"net/url"
	"syscall"
	"testing"

	"github.com/mcpdoor/mcpdoor/replay"
)

// cpuNanos is the CPU time the process has used, every thread's.
func cpuNanos(tb testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkDispatchCPU compares BenchmarkDispatch's REST call to its
// tool-route call in CPU time, in batches taken in turn (tool, rest, rest,
// tool), so that a machine busy with other work slows neither more than
// the other: its rest/tool metric is the ratio.
func BenchmarkDispatchCPU(b *testing.B) {
	r := dispatchRouter()
	values := map[string]string{"city": "Paris", "day": "3"}
	query := url.Values{"units": {"metric"}}
	tool := benchCall()
	for _, tc := range []struct {
		name    string
		pattern string
		direct  bool
	}{
		{"rest/direct", restPattern, true},
		{"mounted/direct", mountedPattern, true},
		{"rest/replay", restPattern, false},
		{"mounted/replay", mountedPattern, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			toolD, restD := replay.Dispatcher(replay.NewReplay(r, 0)), replay.Dispatcher(replay.NewReplay(r, 0))
			if tc.direct {
				toolD = replay.NewDirect(endpointFor(b, r, http.MethodPost, "/get_weather"), "/get_weather", r, 0)
				restD = replay.NewDirect(endpointFor(b, r, http.MethodGet, tc.pattern), tc.pattern, r, 0)
			}
			tpl, err := replay.NewTemplate(http.MethodGet, tc.pattern, r)
			if err != nil {
				b.Fatal(err)
			}
			toolCall := func() { toolD.Dispatch(ctx, tool) }
			restCall := func() {
				c := *tool
				if tc.direct {
					if err := tpl.Fill(&c, values, query); err != nil {
						b.Fatal(err)
					}
				} else {
					uri, err := tpl.Expand(values, query)
					if err != nil {
						b.Fatal(err)
					}
					c.Method, c.Path = http.MethodGet, uri
				}
				restD.Dispatch(ctx, &c)
			}
			const batch = 32
			var toolNs, restNs, calls int64
			run := func(f func(), ns *int64) {
				t0 := cpuNanos(b)
				for range batch {
					f()
				}
				*ns += cpuNanos(b) - t0
			}
			b.ReportAllocs()
			for b.Loop() {
				run(toolCall, &toolNs)
				run(restCall, &restNs)
				run(restCall, &restNs)
				run(toolCall, &toolNs)
				calls += 2 * batch
			}
			b.ReportMetric(float64(toolNs)/float64(calls), "tool-cpu-ns/call")
			b.ReportMetric(float64(restNs)/float64(calls), "rest-cpu-ns/call")
			b.ReportMetric(float64(restNs)/float64(toolNs), "rest/tool")
		})
	}
}
