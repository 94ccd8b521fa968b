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
type recorder struct {
	header    http.Header
	status    int
	body      []byte
	limit     int64
	truncated bool
}

func newRecorder(limit int64) *recorder {
	return &recorder{header: make(http.Header), limit: limit}
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status != 0 || code < 200 {
		return // informational responses, and later calls, change nothing
	}
	r.status = code
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

func (r *recorder) response() *Response {
	status := r.status
	if status == 0 {
		status = http.StatusOK
	}
	return &Response{Status: status, Header: r.header, Body: r.body, Truncated: r.truncated}
}
