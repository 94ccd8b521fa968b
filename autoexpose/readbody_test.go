package autoexpose

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// stalledBody is a request body that tells when the server has read all
// that the client sent and waits for more: the moment a server that reads
// into a buffer has made it.
type stalledBody struct {
	io.ReadCloser
	sent    int
	read    int
	waiting func()
}

func (b *stalledBody) Read(p []byte) (int, error) {
	if b.read >= b.sent {
		b.waiting()
	}
	n, err := b.ReadCloser.Read(p)
	b.read += n
	return n, err
}

// TestStalledBodiesMemory: 64 clients each declare a 4 MiB body (the
// mcp.max_body_bytes default), send 20 KiB of it and stall. While they
// stall, the server holds memory in proportion to what they sent, not to
// what they declared: at most 4 times the bytes sent per connection, net/http's
// own buffers included. It held the 4 MiB declared per connection on the
// fast path and in a typed Handler over HTTP, which made their buffer
// before reading; the go-sdk path reads as the bytes come.
func TestStalledBodiesMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("heap figures under the race detector mean little")
	}
	const (
		conns    = 64
		declared = defaultMaxBodyBytes
		sent     = 20 << 10
	)
	for _, c := range []struct{ name, block, path string }{
		{"fast path", "", "/mcp"},
		{"go-sdk path", "  disable_fast_path: true\n", "/mcp"},
		{"typed handler over HTTP", "", "/echo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, door := echoRouter(t, c.block)
			defer door.Close()
			var wg sync.WaitGroup
			wg.Add(conns)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				var once sync.Once
				req.Body = &stalledBody{ReadCloser: req.Body, sent: sent, waiting: func() { once.Do(wg.Done) }}
				r.ServeHTTP(w, req)
			}))
			defer srv.Close()

			head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
				"Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n",
				c.path, srv.Listener.Addr(), declared)
			part := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`
			part += strings.Repeat("x", sent-len(part))

			before := heapInUse()
			var clients []net.Conn
			defer func() {
				for _, conn := range clients {
					conn.Close()
				}
			}()
			for range conns {
				conn, err := net.Dial("tcp", srv.Listener.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				clients = append(clients, conn)
				conn.SetDeadline(time.Now().Add(time.Minute))
				if _, err := io.WriteString(conn, head+part); err != nil {
					t.Fatal(err)
				}
			}
			stalled := make(chan struct{})
			go func() {
				wg.Wait()
				close(stalled)
			}()
			select {
			case <-stalled:
			case <-time.After(30 * time.Second):
				t.Fatal("the server did not read what the clients sent within 30s")
			}
			grown := heapInUse() - before
			perConn := grown / conns
			t.Logf("%d stalled connections, %d KiB sent and %d KiB declared each: heap +%.1f MiB, %.1f KiB a connection",
				conns, sent>>10, declared>>10, float64(grown)/(1<<20), float64(perConn)/1024)
			if perConn > 4*sent {
				t.Errorf("the server holds %.1f KiB per stalled connection, for %d KiB sent (and %d KiB declared); want at most %d KiB",
					float64(perConn)/1024, sent>>10, declared>>10, 4*sent>>10)
			}
		})
	}
}

// heapInUse returns the bytes of live heap objects, after two collections
// (the first moves what sync.Pools hold aside, the second frees it).
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
