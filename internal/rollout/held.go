package rollout

import (
	"log/slog"
	"net/http"
	"runtime/debug"
)

// A held is the ResponseWriter of a wrapped /seed_session handler. It holds
// the response back, up to limit bytes of body, so that the metadata can be
// added to it. A longer response cannot be: held then sends it on to w as
// the handler writes it, byte for byte, after send has set its header.
//
// Like net/http, held takes the header as it stands when the status is
// written: later changes do not go out.
type held struct {
	w     http.ResponseWriter
	send  func(sent http.Header)
	limit int64

	header  http.Header
	sent    http.Header // the header as of WriteHeader
	status  int
	body    []byte
	spilled bool // the response went on to w
}

func (h *held) Header() http.Header {
	if h.header == nil {
		h.header = make(http.Header)
	}
	return h.header
}

func (h *held) WriteHeader(code int) {
	if h.status != 0 || code < 200 {
		return // informational responses, and later calls, change nothing
	}
	h.status = code
	h.sent = h.Header().Clone()
}

func (h *held) Write(p []byte) (int, error) {
	if h.status == 0 {
		h.WriteHeader(http.StatusOK)
	}
	if !h.spilled && int64(len(h.body)+len(p)) > h.limit {
		h.spill()
	}
	if h.spilled {
		return h.w.Write(p)
	}
	h.body = append(h.body, p...)
	return len(p), nil
}

// Flush flushes a response that goes on to w; one held back goes out whole
// anyway.
func (h *held) Flush() {
	if h.spilled {
		http.NewResponseController(h.w).Flush()
	}
}

// spill sends the response so far on to w, and the rest after it.
func (h *held) spill() {
	h.spilled = true
	h.send(h.sent)
	h.w.WriteHeader(h.status)
	h.w.Write(h.body)
	h.body = nil
}

// serve runs next into h. A panic in next becomes a 500 while the response
// is held back; once it has gone on to w, the panic goes on too, as it
// would without the wrap.
func (h *held) serve(next http.Handler, r *http.Request, log *slog.Logger) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if h.spilled {
			panic(v)
		}
		if v == http.ErrAbortHandler {
			log.Error("mcpdoor: /seed_session handler panicked", "panic", v)
		} else {
			log.Error("mcpdoor: /seed_session handler panicked", "panic", v, "stack", string(debug.Stack()))
		}
		h.status = http.StatusInternalServerError
		h.sent = http.Header{"Content-Type": {"text/plain; charset=utf-8"}}
		h.body = []byte(http.StatusText(http.StatusInternalServerError))
	}()
	next.ServeHTTP(h, r)
	if h.status == 0 { // the handler wrote nothing
		h.WriteHeader(http.StatusOK)
	}
}
