package dispatch

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
)

// DefaultMaxResponseBytes caps a captured response body when a dispatcher's
// MaxResponseBytes is zero.
const DefaultMaxResponseBytes = 4 << 20

// A Dispatcher serves one call through a route and returns what the route's
// handler wrote. It is safe for concurrent use, and does not modify the Call:
// one Call may be dispatched again, or by several goroutines at once.
type Dispatcher interface {
	Dispatch(ctx context.Context, c *Call) *Response
}

// A Call is one tool call, as the HTTP request the route will see.
type Call struct {
	// Method is the request's method; "" means POST.
	Method string
	// Path is the request URI: the escaped path and any query, e.g.
	// "/get_weather" or "/api/notes/42?tag=a" (see Template).
	Path string
	// Body is the request body: the client's arguments, unchanged.
	Body []byte
	// Header is the request's header; with a Body, Content-Type defaults
	// to application/json. The handler gets a copy.
	Header http.Header
	// Host, RemoteAddr and TLS are those of the request that carried the
	// call (the MCP request), so handlers and middlewares see the same
	// client.
	Host       string
	RemoteAddr string
	TLS        *tls.ConnectionState

	found *routed // what Template.Fill's routing found, or nil
}

// exchange holds what one dispatch builds besides the request itself, so
// that it costs one allocation rather than one each: dispatch runs on every
// tool call (see bench_test.go).
type exchange struct {
	url  url.URL
	ctx  routeContext // Direct's
	body body
	rec  recorder
	resp Response
	// values holds the request header's values when they fit (see
	// cloneHeader).
	values [16]string
}

// body is a request body reading a Call's bytes.
type body struct{ bytes.Reader }

func (*body) Close() error { return nil }

// request builds the request for c under ctx, as
// http.NewRequestWithContext would, with the fields a server sets.
func (e *exchange) request(ctx context.Context, c *Call) (*http.Request, error) {
	if err := parsePath(&e.url, c.Path); err != nil {
		return nil, fmt.Errorf("mcpdoor: building request for %s: %w", c.Path, err)
	}
	header := e.cloneHeader(c.Header, len(c.Body) > 0 && c.Header.Get("Content-Type") == "")
	method := c.Method
	if method == "" {
		method = http.MethodPost
	}
	req := http.Request{
		Method:     method,
		URL:        &e.url,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     header,
		Body:       http.NoBody,
		Host:       c.Host,
		RemoteAddr: c.RemoteAddr,
		RequestURI: c.Path,
		TLS:        c.TLS,
	}
	if len(c.Body) > 0 {
		e.body.Reset(c.Body)
		req.Body, req.ContentLength = &e.body, int64(len(c.Body))
	}
	return req.WithContext(ctx), nil
}

// cloneHeader returns a copy of h, as h.Clone does, with Content-Type
// application/json when json: its values in e.values when they fit, and
// the Content-Type in them, so that the copy costs the map alone.
func (e *exchange) cloneHeader(h http.Header, json bool) http.Header {
	n := 0
	for _, vs := range h {
		n += len(vs)
	}
	if json {
		n++
	}
	var values []string
	if n <= len(e.values) {
		values = e.values[:n:n]
	} else {
		values = make([]string, n)
	}
	size := len(h)
	if json {
		size++
	}
	c := make(http.Header, size)
	for k, vs := range h {
		if vs == nil {
			c[k] = nil
			continue
		}
		m := copy(values, vs)
		c[k] = values[:m:m]
		values = values[m:]
	}
	if json {
		values[0] = "application/json"
		c["Content-Type"] = values[:1:1]
	}
	return c
}

// parsePath sets *u to path parsed as url.Parse would. Tool paths
// ("/get_weather") and REST paths that need no escaping
// ("/api/notes/42?tag=a") come out of url.Parse unchanged but for the
// split at "?"; for those it skips the parsing and its allocation.
func parsePath(u *url.URL, path string) error {
	p, query, hasQuery := strings.Cut(path, "?")
	if plainPath(p) && (!hasQuery || plainQuery(query)) {
		*u = url.URL{Path: p, RawQuery: query}
		if hasQuery && query == "" {
			u.ForceQuery = true
		}
		return nil
	}
	parsed, err := url.Parse(path)
	if err != nil {
		return err
	}
	*u = *parsed
	return nil
}

// plainPath reports whether path is a slash followed by unreserved
// characters (RFC 3986) and slashes, and does not start with "//" (which
// url.Parse reads as a host).
func plainPath(path string) bool {
	if len(path) == 0 || path[0] != '/' || len(path) > 1 && path[1] == '/' {
		return false
	}
	for i := 1; i < len(path); i++ {
		switch c := path[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '/':
		default:
			return false
		}
	}
	return true
}

// plainQuery reports whether url.Parse keeps query as it is: it holds no
// "#", which starts a fragment, and no control byte, which url.Parse
// refuses.
func plainQuery(query string) bool {
	for i := 0; i < len(query); i++ {
		if c := query[i]; c == '#' || c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// A Response is what a handler wrote.
type Response struct {
	Status int
	// Header is the header as the handler had set it when it wrote the
	// status (explicitly or by its first Write), or when it returned if it
	// wrote nothing: what an HTTP client would have received.
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

// serve runs h for req into e's recorder, turning a panic into a sanitized
// 500.
func serve(h http.Handler, req *http.Request, e *exchange) (resp *Response) {
	defer func() {
		if v := recover(); v != nil {
			resp = Panicked(v)
		}
	}()
	h.ServeHTTP(&e.rec, req)
	e.resp = e.rec.response()
	return &e.resp
}

// Panicked is the Response of a handler that panicked with v, called from
// the defer that recovered it: a 500 with a generic body.
func Panicked(v any) *Response {
	resp := &Response{
		Status: http.StatusInternalServerError,
		Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
		Body:   []byte(http.StatusText(http.StatusInternalServerError)),
		Panic:  v,
	}
	if v != http.ErrAbortHandler {
		resp.Stack = debug.Stack()
	}
	return resp
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
