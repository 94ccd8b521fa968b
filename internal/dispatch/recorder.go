package dispatch

import (
	"errors"
	"net/http"
)

// ErrResponseTooLarge is returned to a handler's Write once it has written
// more than the dispatcher's MaxResponseBytes.
var ErrResponseTooLarge = errors.New("replay: response exceeds the capture limit")

// recorder is the http.ResponseWriter a dispatched handler writes to. Unlike
// httptest.ResponseRecorder it keeps at most limit bytes of body, and tells a
// handler that writes more to stop.
//
// Like net/http, it takes the header as it stands when the status is
// written: changes made afterwards never reach an HTTP client, so they do not
// reach an MCP client either, and a handler behaves the same through both
// doors. (net/http then also sniffs a missing Content-Type from the body; the
// recorder leaves it missing, for the caller to decide.)
type recorder struct {
	header    http.Header
	sent      http.Header // header as of WriteHeader
	status    int
	body      []byte
	limit     int64
	truncated bool
}

func (r *recorder) Header() http.Header {
	if r.header == nil {
		r.header = make(http.Header)
	}
	return r.header
}

func (r *recorder) WriteHeader(code int) {
	if r.status != 0 || code < 200 {
		return // informational responses, and later calls, change nothing
	}
	r.status = code
	r.sent = r.header.Clone()
	if r.sent == nil {
		r.sent = make(http.Header)
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	n := min(int64(len(p)), max(r.limit-int64(len(r.body)), 0))
	r.grow(int(n))
	r.body = append(r.body, p[:n]...)
	if n < int64(len(p)) {
		r.truncated = true
		return int(n), ErrResponseTooLarge
	}
	return len(p), nil
}

// grow makes room for n more bytes (within the limit), doubling the buffer
// up to the limit. append alone grows a large slice by a quarter at a time,
// so that a body written in chunks up to a 4 MiB limit would allocate about
// 20 MiB on the way; doubling allocates about 8.
func (r *recorder) grow(n int) {
	need := len(r.body) + n
	if need <= cap(r.body) {
		return
	}
	b := make([]byte, len(r.body), min(max(2*cap(r.body), need), int(r.limit)))
	copy(b, r.body)
	r.body = b
}

// Flush lets handlers that stream (and check for http.Flusher) run; the
// response is delivered whole anyway.
func (r *recorder) Flush() {}

func (r *recorder) response() Response {
	if r.status == 0 {
		return Response{Status: http.StatusOK, Header: r.Header(), Body: r.body, Truncated: r.truncated}
	}
	return Response{Status: r.status, Header: r.sent, Body: r.body, Truncated: r.truncated}
}
