package replay

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"runtime/debug"
)

// DefaultMaxResponseBytes caps a captured response body when a dispatcher's
// MaxResponseBytes is zero.
const DefaultMaxResponseBytes = 4 << 20

// A Dispatcher serves one call through a route and returns what the route's
// handler wrote. It is safe for concurrent use.
type Dispatcher interface {
	Dispatch(ctx context.Context, c *Call) *Response
}

// A Call is one tool call, as the HTTP request the route will see.
type Call struct {
	// Path is the request path, e.g. "/get_weather".
	Path string
	// Body is the request body: the client's arguments, unchanged.
	Body []byte
	// Header is the request's header; Content-Type defaults to
	// application/json.
	Header http.Header
	// Host, RemoteAddr and TLS are those of the request that carried the
	// call (the MCP request), so handlers and middlewares see the same
	// client.
	Host       string
	RemoteAddr string
	TLS        *tls.ConnectionState
}

// request builds the POST request for c under ctx.
func (c *Call) request(ctx context.Context) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Path, bytes.NewReader(c.Body))
	if err != nil {
		return nil, fmt.Errorf("replay: building request for %s: %w", c.Path, err)
	}
	req.RequestURI = c.Path
	if c.Header != nil {
		req.Header = c.Header
	}
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Host = c.Host
	req.RemoteAddr = c.RemoteAddr
	req.TLS = c.TLS
	return req, nil
}

// A Response is what a handler wrote.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// Truncated reports that the handler wrote more than the limit; Body
	// holds the first bytes only.
	Truncated bool
	// Panic holds the value a handler panicked with, and Stack its stack;
	// the Response is then a 500 with a generic body.
	Panic any
	Stack []byte
}

// serve runs h for req into a recorder capped at limit, turning a panic into
// a sanitized 500.
func serve(h http.Handler, req *http.Request, limit int64) (resp *Response) {
	rec := newRecorder(limit)
	defer func() {
		if v := recover(); v != nil {
			resp = &Response{
				Status: http.StatusInternalServerError,
				Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
				Body:   []byte(http.StatusText(http.StatusInternalServerError)),
				Panic:  v,
			}
			if v != http.ErrAbortHandler {
				resp.Stack = debug.Stack()
			}
		}
	}()
	h.ServeHTTP(rec, req)
	return rec.response()
}

// failed is the Response for a call that could not be turned into a request.
func failed(err error) *Response {
	return &Response{
		Status: http.StatusBadRequest,
		Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
		Body:   []byte(err.Error()),
	}
}

func limitOr(n int64) int64 {
	if n == 0 {
		return DefaultMaxResponseBytes
	}
	return n
}
