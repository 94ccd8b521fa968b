package fastpath

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5/middleware"
)

// TestChunkedWithoutFlush: the fast path recognises net/http's own HTTP/1.1
// writer, where it answers in one write (should net/http change its
// writer's methods, the fast path would flush as the go-sdk does: the same
// answer, in two), and nothing else: not a wrapper, even chi's, which
// passes every write on, not an HTTP/1.0 response, not a writer that has
// net/http's methods outside a net/http server.
func TestChunkedWithoutFlush(t *testing.T) {
	type verdict struct {
		name string
		got  bool
	}
	got := make(chan verdict, 3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- verdict{"net/http's own writer, " + r.Proto, ChunkedWithoutFlush(w, r)}
		got <- verdict{"a wrapper", ChunkedWithoutFlush(struct{ http.ResponseWriter }{w}, r)}
		got <- verdict{"chi's WrapResponseWriter", ChunkedWithoutFlush(middleware.NewWrapResponseWriter(w, r.ProtoMajor), r)}
	}))
	defer srv.Close()
	for _, proto := range []string{"HTTP/1.1", "HTTP/1.0"} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET / %s\r\nHost: x\r\nConnection: close\r\n\r\n", proto)
		io.Copy(io.Discard, conn)
		conn.Close()
		for range 3 {
			v := <-got
			if want := v.name == "net/http's own writer, HTTP/1.1"; v.got != want {
				t.Errorf("%s (%s): ChunkedWithoutFlush = %v, want %v", v.name, proto, v.got, want)
			}
		}
	}
	if ChunkedWithoutFlush(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mcp", nil)) {
		t.Error("a recorder is taken for net/http's writer")
	}
	// A writer with every method of net/http's, outside a net/http server.
	if ChunkedWithoutFlush(lookalike{httptest.NewRecorder()}, httptest.NewRequest(http.MethodPost, "/mcp", nil)) {
		t.Error("a writer outside a net/http server is taken for net/http's")
	}
}

// A lookalike has the methods of net/http's own writer.
type lookalike struct{ *httptest.ResponseRecorder }

func (lookalike) Hijack() (net.Conn, *bufio.ReadWriter, error) { return nil, nil, http.ErrNotSupported }
func (lookalike) FlushError() error                            { return nil }
func (lookalike) SetReadDeadline(time.Time) error              { return nil }
func (lookalike) SetWriteDeadline(time.Time) error             { return nil }
func (lookalike) EnableFullDuplex() error                      { return nil }

var _ serverWriter = lookalike{}
