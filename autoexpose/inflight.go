package autoexpose

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
)

// requestRefHeader tags each HTTP request that carries MCP messages, so a
// tool call (which the SDK hands over with the request's header only) can
// find its request: the client's address, Host, TLS and connection. Any
// value a client sends is overwritten.
const requestRefHeader = "Mcpdoor-Request-Ref"

// inflight holds the HTTP requests being served by the MCP endpoint.
type inflight struct {
	next atomic.Uint64
	reqs sync.Map // ref string → *http.Request
}

// track serves h with r registered for the duration.
func (f *inflight) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ref := strconv.FormatUint(f.next.Add(1), 36)
		r.Header.Set(requestRefHeader, ref)
		f.reqs.Store(ref, r)
		defer f.reqs.Delete(ref)
		h.ServeHTTP(w, r)
	})
}

// lookup returns the request whose header h is, or nil (stdio, or a
// request that has ended).
func (f *inflight) lookup(h http.Header) *http.Request {
	ref := h.Get(requestRefHeader)
	if ref == "" {
		return nil
	}
	r, _ := f.reqs.Load(ref)
	req, _ := r.(*http.Request)
	return req
}
