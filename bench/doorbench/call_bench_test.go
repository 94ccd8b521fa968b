package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/cputime"
)

// BenchmarkStatelessCall serves one small echo tools/call in process — the
// request the go-sdk client sends, recorded as the driver records it —
// through the lean hand-rolled JSON-RPC handler and through mcpdoor's door
// on its fast path, under each protocol version, and reports the CPU time
// of the process per call (cpu-ns/op, which the machine's other work
// inflates less than the time on the clock) and the allocations. In one
// run, benchstat gives the door's cost as a ratio to the lean handler's:
//
//	go test -run '^$' -bench StatelessCall -count 10 ./bench/doorbench > calls.txt
//	benchstat -col /server calls.txt
func BenchmarkStatelessCall(b *testing.B) {
	if _, err := cputime.Now(); err != nil {
		b.Skip(err)
	}
	recorded, err := recordCalls(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	servers := []struct {
		name string
		make func() (http.Handler, error)
	}{{"lean", newLean}, {"mcpdoor", newMCPDoor}}
	for _, v := range protocols {
		c := recorded.withText(v, "hello")
		for _, s := range servers {
			h, err := s.make()
			if err != nil {
				b.Fatal(err)
			}
			b.Run("v="+v+"/server="+s.name, func(b *testing.B) {
				b.ReportAllocs()
				w := &discard{header: make(http.Header)}
				start, _ := cputime.Now()
				for b.Loop() {
					req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(c.body))
					req.Header = c.header.Clone()
					clear(w.header)
					w.status = 0
					h.ServeHTTP(w, req)
					if w.status != 0 && w.status != http.StatusOK {
						b.Fatalf("%s answered %d", s.name, w.status)
					}
				}
				end, _ := cputime.Now()
				b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// discard is a ResponseWriter that keeps nothing but the status, so that
// it allocates nothing of its own.
type discard struct {
	header http.Header
	status int
}

func (d *discard) Header() http.Header         { return d.header }
func (d *discard) WriteHeader(code int)        { d.status = code }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) Flush()                      {}
