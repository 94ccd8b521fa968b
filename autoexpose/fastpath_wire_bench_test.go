package autoexpose

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/mcpdoor/mcpdoor/internal/fastpath"
)

// BenchmarkEndpointWire serves small echo calls over a loopback listener
// (a net/http server, HTTP/1.1, one kept-alive connection), so that the
// response goes through net/http's own writer, where the fast path answers
// in one write (see fastpath.ChunkedWithoutFlush): writes/op counts the server's
// writes to the connection. writer=wrapped hands the endpoint chi's
// wrapper of that writer (as chi's middleware.Logger does), where the fast
// path flushes as the go-sdk does, in two writes: the difference is what
// the one write saves. Side by side:
//
//	go test -run '^$' -bench BenchmarkEndpointWire -count 10 > wire.txt
//	benchstat -col /writer wire.txt
func BenchmarkEndpointWire(b *testing.B) {
	r, d := echoRouter(b, "")
	for _, writer := range []string{"server", "wrapped"} {
		h := http.Handler(r)
		if writer == "wrapped" {
			h = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				r.ServeHTTP(middleware.NewWrapResponseWriter(w, req.ProtoMajor), req)
			})
		}
		srv := httptest.NewUnstartedServer(h)
		writes := &countingListener{Listener: srv.Listener}
		srv.Listener = writes
		srv.Start()
		client := srv.Client()
		for _, v := range []string{"2025-11-25", "2026-07-28"} {
			c := echoCalls[v]
			body := []byte(strings.Replace(c.body, "TEXT", "hello", 1))
			b.Run("writer="+writer+"/v="+v, func(b *testing.B) {
				served, wrote := d.fastCalls.Load(), writes.n.Load()
				b.ReportAllocs()
				for b.Loop() {
					req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", bytes.NewReader(body))
					req.Header = c.header.Clone()
					resp, err := client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Fatalf("status %d", resp.StatusCode)
					}
				}
				if d.fastCalls.Load() == served {
					b.Fatal("the fast path served none of the calls")
				}
				b.ReportMetric(float64(writes.n.Load()-wrote)/float64(b.N), "writes/op")
			})
		}
		client.CloseIdleConnections()
		srv.Close()
	}
}

// A countingListener counts the writes to the connections it accepts.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, n: &l.n}, nil
}

// A countingConn counts its writes.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.n.Add(1)
	return c.Conn.Write(p)
}

// TestFastPathOneWrite: through net/http's own writer, the fast path's
// answer to a small call leaves the server in one write to the connection
// (the go-sdk's flush after its event makes it two): what makes the fast
// path's small calls cheap (see fastpath.ChunkedWithoutFlush).
func TestFastPathOneWrite(t *testing.T) {
	r, d := echoRouter(t, "")
	srv := httptest.NewUnstartedServer(r)
	writes := &countingListener{Listener: srv.Listener}
	srv.Listener = writes
	srv.Start()
	defer srv.Close()
	client := srv.Client()
	defer client.CloseIdleConnections()
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		c := echoCalls[v]
		for range 3 {
			wrote := writes.n.Load()
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(strings.Replace(c.body, "TEXT", "hello", 1)))
			req.Header = c.header.Clone()
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if n := writes.n.Load() - wrote; n != 1 || resp.StatusCode != http.StatusOK {
				t.Errorf("%s: %d, in %d writes to the connection, want 200 in 1", v, resp.StatusCode, n)
			}
		}
	}
	if d.fastCalls.Load() != 6 {
		t.Errorf("the fast path served %d of the 6 calls", d.fastCalls.Load())
	}
}

// BenchmarkChunkedWithoutFlush: what telling net/http's own writer apart
// costs a call, for the writer and request of a call the fast path serves
// through a router and a Door (whose contexts chi and the Door extend).
func BenchmarkChunkedWithoutFlush(b *testing.B) {
	r, _ := echoRouter(b, "")
	var seen struct {
		w   http.ResponseWriter
		req *http.Request
	}
	got, release := make(chan struct{}), make(chan struct{})
	r.Post("/probe", func(w http.ResponseWriter, req *http.Request) {
		seen.w, seen.req = w, req
		close(got)
		<-release
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	go func() {
		resp, err := srv.Client().Post(srv.URL+"/probe", "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-got
	defer close(release)
	if !fastpath.ChunkedWithoutFlush(seen.w, seen.req) {
		b.Fatal("net/http's own writer is not recognised")
	}
	for b.Loop() {
		fastpath.ChunkedWithoutFlush(seen.w, seen.req)
	}
}
