package autoexposetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"sync"
)

// errClosed is what a client gets once the Server has been closed.
var errClosed = errors.New("mcpdoor: autoexposetest: server closed")

// A host serves one handler in process, to every client of a Server, and
// keeps track of the requests it is serving so that the Server can end them
// when the test ends.
type host struct {
	h     http.Handler
	local net.Addr // what http.LocalAddrContextKey holds: a loopback listener's

	mu       sync.Mutex
	closed   bool
	inflight map[*serving]struct{}
	wg       sync.WaitGroup
}

// serving is one request being served.
type serving struct{ cancel context.CancelFunc }

// close ends the requests in flight, as closing their connections would,
// and waits for their handlers to return; wait reports the ones that take
// long.
func (h *host) close(wait func(stop <-chan struct{})) {
	h.mu.Lock()
	h.closed = true
	for s := range h.inflight {
		s.cancel()
	}
	h.mu.Unlock()
	done := make(chan struct{})
	go func() {
		h.wg.Wait()
		close(done)
	}()
	wait(done)
}

// start registers a request about to be served, or reports that the host
// is closed.
func (h *host) start(s *serving) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.inflight[s] = struct{}{}
	h.wg.Add(1)
	return true
}

func (h *host) done(s *serving) {
	h.mu.Lock()
	delete(h.inflight, s)
	h.mu.Unlock()
	h.wg.Done()
}

// A transport is the http.RoundTripper of one client: it serves each
// request by calling the host's handler on a goroutine of its own, as a
// server would on the client's connection, and hands the response back as
// soon as the handler has written its header, with the body streamed
// through a pipe as the handler writes it (so a text/event-stream response
// reaches the client event by event).
//
// The handler's request is what net/http's server would make of the
// client's request: its header's keys are canonical, its URL holds the
// path and query only, RequestURI, Host and RemoteAddr are set (RemoteAddr is the client's own loopback
// address), and its context carries http.LocalAddrContextKey and ends when
// the client's request does, when the client closes the response body, or
// when the handler returns. As net/http does, the response's Content-Type
// is sniffed from the first bytes written when the handler sets none; a
// handler's panic reaches the client as an error, as a broken connection
// would.
type transport struct {
	host   *host
	remote string
}

// rawKey marks a request whose response header must stay as the handler
// set it, unsniffed (see Parity).
type rawKey struct{}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), http.LocalAddrContextKey, tr.host.local))
	s := &serving{cancel: cancel}
	if !tr.host.start(s) {
		cancel()
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, errClosed
	}
	stop := context.AfterFunc(req.Context(), cancel)
	in := tr.incoming(ctx, req)

	pr, pw := io.Pipe()
	w := &responseWriter{
		header: make(http.Header),
		body:   pw,
		sniff:  req.Context().Value(rawKey{}) == nil,
		head:   req.Method == http.MethodHead,
		ready:  make(chan struct{}),
	}
	go func() {
		defer tr.host.done(s)
		defer stop()
		defer cancel() // a request's context ends when its handler returns
		tr.serve(w, in, req)
	}()

	select {
	case <-w.ready:
	case <-req.Context().Done():
		pr.CloseWithError(req.Context().Err())
		return nil, req.Context().Err()
	}
	if w.err != nil {
		pr.Close()
		return nil, w.err
	}
	return &http.Response{
		Status:        strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.sent,
		Body:          &responseBody{pr: pr, cancel: cancel},
		ContentLength: -1,
		Request:       req,
	}, nil
}

// incoming is req as a server hands it to its handler, in ctx: canonical
// header keys, the URL of its request line, the transport's remote
// address, HTTP/1.1, and a body.
func (tr *transport) incoming(ctx context.Context, req *http.Request) *http.Request {
	in := req.Clone(ctx)
	// A server reads header names case-insensitively, into canonical keys:
	// a client's map entry under another spelling reaches the handler as
	// Header.Get finds it.
	in.Header = make(http.Header, len(req.Header))
	for k, v := range req.Header {
		k = http.CanonicalHeaderKey(k)
		in.Header[k] = append(in.Header[k], v...)
	}
	in.URL = &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}
	in.RequestURI = req.URL.RequestURI()
	in.Host = req.Host
	if in.Host == "" {
		in.Host = req.URL.Host
	}
	in.RemoteAddr = tr.remote
	in.Proto, in.ProtoMajor, in.ProtoMinor = "HTTP/1.1", 1, 1
	in.Close = false
	if in.Body == nil {
		in.Body = http.NoBody
	}
	return in
}

// serve runs the handler for in (the client's req) on w, and finishes the
// response: with the handler's panic or abort as its error.
func (tr *transport) serve(w *responseWriter, in, req *http.Request) {
	defer in.Body.Close()
	defer func() {
		switch p := recover(); {
		case p == nil:
			w.finish(nil)
		case p == http.ErrAbortHandler:
			w.finish(fmt.Errorf("mcpdoor: autoexposetest: %s %s: the handler aborted the response", req.Method, req.URL.Path))
		default:
			w.finish(fmt.Errorf("mcpdoor: autoexposetest: %s %s: the handler panicked: %v\n%s", req.Method, req.URL.Path, p, debug.Stack()))
		}
	}()
	tr.host.h.ServeHTTP(w, in)
}

// responseBody is the client's end of the pipe. Closing it hangs up: the
// handler's context ends and its further writes fail.
type responseBody struct {
	pr     *io.PipeReader
	cancel context.CancelFunc
}

func (b *responseBody) Read(p []byte) (int, error) { return b.pr.Read(p) }

func (b *responseBody) Close() error {
	b.cancel()
	return b.pr.Close()
}

// responseWriter is the handler's end: the header is handed to the client
// once written (ready), and the body goes through the pipe.
type responseWriter struct {
	header http.Header
	body   *io.PipeWriter
	sniff  bool // set a Content-Type from the body when the handler sets none
	head   bool // a HEAD request: the body is discarded

	status int
	sent   http.Header // the header as it was when the status was written
	isSent bool        // the handler has sent the header: written to the body, or flushed
	once   sync.Once
	ready  chan struct{} // closed once the header is sent, or the handler failed before
	err    error         // why the handler failed before it sent a header
}

func (w *responseWriter) Header() http.Header { return w.header }

func (w *responseWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	if code < 200 && code != http.StatusSwitchingProtocols {
		return // informational: nothing a client of this transport reads
	}
	w.status = code
	w.sent = w.header.Clone()
}

func (w *responseWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !bodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if _, set := w.sent["Content-Type"]; w.sniff && !w.isSent && !set && w.sent.Get("Transfer-Encoding") == "" && len(p) > 0 {
		w.sent.Set("Content-Type", http.DetectContentType(p))
	}
	w.send()
	if w.head {
		return len(p), nil
	}
	return w.body.Write(p)
}

// Flush sends the header, if it is not sent yet; what is written is always
// sent at once.
func (w *responseWriter) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.send()
}

func (w *responseWriter) send() {
	w.isSent = true
	w.once.Do(func() { close(w.ready) })
}

// finish ends the response when the handler has returned: err says it failed.
func (w *responseWriter) finish(err error) {
	if err != nil {
		w.once.Do(func() {
			w.err = err
			close(w.ready)
		})
		w.body.CloseWithError(err)
		return
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.send()
	w.body.Close()
}

// bodyAllowed reports whether a response with status may have a body.
func bodyAllowed(status int) bool {
	return !(status >= 100 && status <= 199 || status == http.StatusNoContent || status == http.StatusNotModified)
}
