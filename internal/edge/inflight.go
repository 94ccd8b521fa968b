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
	// reqs holds the requests by their number (the ref, in base 36), in
	// shards by it: maps that, once grown, take a request in without an
	// allocation.
	reqs [inflightShards]struct {
		mu sync.Mutex
		m  map[uint64]*http.Request
	}
	ids sync.Map // ref string → []byte: the id of the one JSON-RPC request a POST carries (see NoteID)
}

const inflightShards = 16

// Track is the step that serves a request with it registered for the
// duration, for a tool call to find (Lookup). It refuses nothing.
func (f *Inflight) Track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := f.next.Add(1)
		r.Header.Set(RequestRefHeader, strconv.FormatUint(n, 36))
		s := &f.reqs[n%inflightShards]
		s.mu.Lock()
		if s.m == nil {
			s.m = make(map[uint64]*http.Request)
		}
		s.m[n] = r
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.m, n)
			s.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}

// Lookup returns the request whose header h is, or nil (stdio, or a
// request that has ended).
func (f *Inflight) Lookup(h http.Header) *http.Request {
	n, err := strconv.ParseUint(h.Get(RequestRefHeader), 36, 64)
	if err != nil {
		return nil
	}
	s := &f.reqs[n%inflightShards]
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[n]
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
