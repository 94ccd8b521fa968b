package edge

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
)

// RequestRefHeader tags each HTTP request that carries MCP messages, so a
// tool call (which the SDK hands over with the request's header only) can
// find its request: the client's address, Host, TLS and connection. Any
// value a client sends is overwritten.
const RequestRefHeader = "Mcpdoor-Request-Ref"

// An Inflight holds the HTTP requests being served by the MCP endpoint.
// Its zero value is ready for use.
type Inflight struct {
	next atomic.Uint64
	reqs sync.Map // ref string → *http.Request
	ids  sync.Map // ref string → []byte: the id of the one JSON-RPC request a POST carries (see NoteID)
}

// Track is the step that serves a request with it registered for the
// duration, for a tool call to find (Lookup). It refuses nothing.
func (f *Inflight) Track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ref := strconv.FormatUint(f.next.Add(1), 36)
		r.Header.Set(RequestRefHeader, ref)
		f.reqs.Store(ref, r)
		defer f.reqs.Delete(ref)
		h.ServeHTTP(w, r)
	})
}

// Lookup returns the request whose header h is, or nil (stdio, or a
// request that has ended).
func (f *Inflight) Lookup(h http.Header) *http.Request {
	ref := h.Get(RequestRefHeader)
	if ref == "" {
		return nil
	}
	r, _ := f.reqs.Load(ref)
	req, _ := r.(*http.Request)
	return req
}

// NoteID is the step that notes the JSON-RPC id of the one request a POST
// to the go-sdk carries, for its span (jsonrpc.request.id), which the
// go-sdk hands its middleware no way to read; nothing while off reports
// tracing off. It looks at the body ReadBodies has read, and refuses
// nothing.
func (f *Inflight) NoteID(off func() bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.Body == nil || off() {
				next.ServeHTTP(w, r)
				return
			}
			if id := requestID(HeldBody(r)); id != nil {
				ref := r.Header.Get(RequestRefHeader)
				f.ids.Store(ref, []byte(id))
				defer f.ids.Delete(ref)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// ID returns the id NoteID noted of the request whose header h is, or nil.
func (f *Inflight) ID(h http.Header) []byte {
	id, _ := f.ids.Load(h.Get(RequestRefHeader))
	b, _ := id.([]byte)
	return b
}
