package replay

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
	room := r.limit - int64(len(r.body))
	if int64(len(p)) <= room {
		r.body = append(r.body, p...)
		return len(p), nil
	}
	if room > 0 {
		r.body = append(r.body, p[:room]...)
	}
	r.truncated = true
	return int(max(room, 0)), ErrResponseTooLarge
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
