//go:build unix

package autoexpose

import (
	"context"
	"encoding/json"
	"net/http"
	"syscall"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cpuNanos is the CPU time the process has used, every thread's (the
// garbage collector's included).
func cpuNanos(tb testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// pairCPU runs a and c in turns, batch calls at a time (a, c, c, a, so
// that neither always goes first), until b.Loop ends, and reports the CPU
// time each took per call (a-cpu-ns/call, c-cpu-ns/call) and c/a, their
// ratio. CPU time, unlike the time on the clock, does not grow while the
// process waits for a core, so the ratio holds on a machine busy with
// other work.
func pairCPU(b *testing.B, aName, cName string, a, c func()) {
	const batch = 32
	var aNs, cNs, calls int64
	run := func(f func(), ns *int64) {
		t0 := cpuNanos(b)
		for range batch {
			f()
		}
		*ns += cpuNanos(b) - t0
	}
	b.ReportAllocs()
	for b.Loop() {
		run(a, &aNs)
		run(c, &cNs)
		run(c, &cNs)
		run(a, &aNs)
		calls += 2 * batch
	}
	b.ReportMetric(float64(aNs)/float64(calls), aName+"-cpu-ns/call")
	b.ReportMetric(float64(cNs)/float64(calls), cName+"-cpu-ns/call")
	b.ReportMetric(float64(cNs)/float64(aNs), cName+"/"+aName)
}

// BenchmarkRESTCallCPU compares, in CPU time, a whole tool call
// (Door.calls.call) to a REST route with one to a tool route doing the
// same work (see BenchmarkRESTCall), in batches taken in turn: its
// rest/tool metric is the ratio. route=nested has the REST routes in a
// Route sub-router, which routing descends into; route=flat at the top of
// the router, as the tool routes are.
func BenchmarkRESTCallCPU(b *testing.B) {
	for _, dispatch := range []string{"direct", "replay"} {
		build := func(r chi.Router) {
			r.Use(middleware.Recoverer)
			if dispatch == "replay" {
				r.Use(benchAuth)
			}
		}
		tools := chi.NewRouter()
		build(tools)
		tools.Post("/update_note", benchNote)
		tools.Post("/get_note", benchNote)
		// The REST routes in a Route sub-router, as REST servers have them,
		// and at the top, as the tool routes are.
		nested := chi.NewRouter()
		build(nested)
		nested.Route("/api/notes", func(r chi.Router) {
			r.Patch("/{id}", benchNote)
			r.Get("/{id}", benchNote)
		})
		flat := chi.NewRouter()
		build(flat)
		flat.Patch("/notes/{id}", benchNote)
		flat.Get("/notes/{id}", benchNote)
		toolDoor, err := Install(tools, benchToolConfig())
		if err != nil {
			b.Fatal(err)
		}
		restDoors := map[string]*Door{}
		for name, r := range map[string]chi.Router{"nested": nested, "flat": flat} {
			if restDoors[name], err = Install(r, enabled(MCPConfig{REST: &REST{Methods: []string{"PATCH", "GET"}}})); err != nil {
				b.Fatal(err)
			}
		}
		for _, pair := range []struct{ name, tool, args, route string }{
			{"body", "update_note", `{"id":"42","text":"x"}`, "nested"},
			{"query", "get_note", `{"id":"42","tag":"a"}`, "nested"},
			{"body", "update_note", `{"id":"42","text":"x"}`, "flat"},
			{"query", "get_note", `{"id":"42","tag":"a"}`, "flat"},
		} {
			restDoor := restDoors[pair.route]
			b.Run("dispatch="+dispatch+"/args="+pair.name+"/route="+pair.route, func(b *testing.B) {
				req := &mcp.CallToolRequest{
					Params: &mcp.CallToolParamsRaw{Name: pair.tool, Arguments: json.RawMessage(pair.args)},
					Extra:  &mcp.RequestExtra{Header: http.Header{"Authorization": {"Bearer b"}}},
				}
				ctx := context.Background()
				call := func(d *Door) func() {
					tl := d.tools[pair.tool]
					if res := d.calls.call(ctx, tl, req, nil); res.IsError {
						b.Fatalf("call: %s", res.Content[0].(*mcp.TextContent).Text)
					}
					return func() { d.calls.call(ctx, tl, req, nil) }
				}
				pairCPU(b, "tool", "rest", call(toolDoor), call(restDoor))
			})
		}
	}
}
