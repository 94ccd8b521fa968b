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
	header http.Header
	// sent is the header as of WriteHeader, written flat: each name, then
	// its values, their count in counts. The handler's header is the
	// response's when it still holds just that as the handler returns (a
	// handler rarely changes its header once it has written the status);
	// else the response's header is made of sent. Held in the recorder,
	// which is part of the exchange, the snapshot of a small header costs
	// no allocation, where a copy would take three on every call.
	sent      []string
	counts    []int
	sentBuf   [16]string
	countsBuf [6]int
	// bodyBuf holds a small body, that of most calls, which then costs no
	// allocation of its own.
	bodyBuf   [128]byte
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
	r.sent, r.counts = r.sentBuf[:0], r.countsBuf[:0]
	for k, vs := range r.header {
		r.sent = append(r.sent, k)
		r.sent = append(r.sent, vs...)
		r.counts = append(r.counts, len(vs))
	}
}

// sentHeader returns the header as it was at WriteHeader: the handler's
// own when it holds the same names and values still, else a copy of sent.
func (r *recorder) sentHeader() http.Header {
	if r.unchanged() {
		return r.Header()
	}
	h := make(http.Header, len(r.counts))
	rest := r.sent
	for _, n := range r.counts {
		k := rest[0]
		h[k] = append([]string(nil), rest[1:1+n]...)
		rest = rest[1+n:]
	}
	return h
}

// unchanged reports whether the handler's header holds the names and
// values it held at WriteHeader.
func (r *recorder) unchanged() bool {
	if len(r.header) != len(r.counts) {
		return false
	}
	rest := r.sent
	for _, n := range r.counts {
		vs, ok := r.header[rest[0]]
		if !ok || len(vs) != n {
			return false
		}
		for i, v := range vs {
			if v != rest[1+i] {
				return false
			}
		}
		rest = rest[1+n:]
	}
	return true
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
	if r.body == nil && need <= len(r.bodyBuf) && int64(need) <= r.limit {
		r.body = r.bodyBuf[:0:min(int64(len(r.bodyBuf)), r.limit)]
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
	return Response{Status: r.status, Header: r.sentHeader(), Body: r.body, Truncated: r.truncated}
}
