package main

import (
	"encoding/json"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/cputime"
)

// stats is a snapshot of the server process, taken by its control
// endpoint: what the driver subtracts to get one batch's cost.
type stats struct {
	CPUNanos   int64  `json:"cpu_ns"`      // user + system CPU time of the whole process (getrusage)
	TotalAlloc uint64 `json:"total_alloc"` // bytes allocated on the heap so far (runtime.MemStats.TotalAlloc)
}

// info describes the server process.
type info struct {
	GoVersion  string `json:"go_version"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	PID        int    `json:"pid"`
}

// control serves the server process's control endpoint:
//
//	GET  /stats       a stats snapshot
//	GET  /info        the process's Go version and GOMAXPROCS
//	POST /gc          runs runtime.GC, so that a batch does not pay for the garbage of the one before
//	POST /peak/start  starts sampling the heap in use
//	POST /peak/stop   stops sampling; answers the largest heap in use seen, in bytes
type control struct {
	mu      sync.Mutex
	stop    chan struct{}
	stopped chan uint64
}

func (c *control) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		s, err := snapshot()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, s)
	})
	mux.HandleFunc("GET /info", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, processInfo())
	})
	mux.HandleFunc("POST /gc", func(w http.ResponseWriter, _ *http.Request) {
		runtime.GC()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /peak/start", func(w http.ResponseWriter, _ *http.Request) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.stop != nil {
			http.Error(w, "already sampling", http.StatusConflict)
			return
		}
		c.stop, c.stopped = make(chan struct{}), make(chan uint64, 1)
		go samplePeak(c.stop, c.stopped)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /peak/stop", func(w http.ResponseWriter, _ *http.Request) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.stop == nil {
			http.Error(w, "not sampling", http.StatusConflict)
			return
		}
		close(c.stop)
		peak := <-c.stopped
		c.stop, c.stopped = nil, nil
		writeJSON(w, map[string]uint64{"peak_heap_inuse": peak})
	})
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func processInfo() info {
	return info{GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0), PID: os.Getpid()}
}

// snapshot reads the process's CPU time and allocation count.
func snapshot() (stats, error) {
	cpu, err := cputime.Now()
	if err != nil {
		return stats{}, err
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return stats{CPUNanos: cpu.Nanoseconds(), TotalAlloc: ms.TotalAlloc}, nil
}

// peakInterval is how often samplePeak reads the heap. runtime/metrics
// reads it without stopping the world, so sampling this often costs little.
const peakInterval = 200 * time.Microsecond

// heapInuseMetrics add up to runtime.MemStats.HeapInuse: the bytes of heap
// spans holding objects, live or not yet swept, and their free slots.
var heapInuseMetrics = []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes"}

// samplePeak samples the heap in use until stop closes, then sends the
// largest value it saw.
func samplePeak(stop <-chan struct{}, peak chan<- uint64) {
	samples := make([]metrics.Sample, len(heapInuseMetrics))
	for i, name := range heapInuseMetrics {
		samples[i].Name = name
	}
	read := func() uint64 {
		metrics.Read(samples)
		var n uint64
		for _, s := range samples {
			if s.Value.Kind() == metrics.KindUint64 {
				n += s.Value.Uint64()
			}
		}
		return n
	}
	max := read()
	t := time.NewTicker(peakInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			if n := read(); n > max {
				max = n
			}
			peak <- max
			return
		case <-t.C:
			if n := read(); n > max {
				max = n
			}
		}
	}
}
