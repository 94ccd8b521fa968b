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
	ids  sync.Map // ref string → []byte: the id of the one JSON-RPC request a POST carries (see noteID)
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

// noteID notes the JSON-RPC id of the one request a POST to the go-sdk
// carries, for its span (jsonrpc.request.id), which the go-sdk hands its
// middleware no way to read; nothing while tracing is off. It looks at the
// body readBodies has read.
func (f *inflight) noteID(off func() bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || off() {
			next.ServeHTTP(w, r)
			return
		}
		if id := requestID(heldBody(r)); id != nil {
			ref := r.Header.Get(requestRefHeader)
			f.ids.Store(ref, []byte(id))
			defer f.ids.Delete(ref)
		}
		next.ServeHTTP(w, r)
	})
}

// id returns the id noteID noted of the request whose header h is, or nil.
func (f *inflight) id(h http.Header) []byte {
	id, _ := f.ids.Load(h.Get(requestRefHeader))
	b, _ := id.([]byte)
	return b
}
