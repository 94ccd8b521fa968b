package replay

import (
	"context"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
)

// Direct dispatches to a route's endpoint, skipping its middlewares. Use it
// only for routes whose middlewares are all transparent (see package
// detector); whatever they would have put in the request's context must be
// in the context given to Dispatch.
type Direct struct {
	endpoint http.Handler
	pattern  string
	routes   chi.Routes
	params   []param
	limit    int64
}

// param is a {name} segment of a route pattern, by segment index.
type param struct {
	index int
	name  string
}

// NewDirect returns a Direct dispatcher for the endpoint registered at
// pattern in routes. Path parameters in pattern ({name} or {name:regexp}
// segments) are filled from the call's path. maxResponseBytes caps the
// captured body; 0 means DefaultMaxResponseBytes.
func NewDirect(endpoint http.Handler, pattern string, routes chi.Routes, maxResponseBytes int64) *Direct {
	d := &Direct{endpoint: endpoint, pattern: pattern, routes: routes, limit: limitOr(maxResponseBytes)}
	for i, seg := range strings.Split(pattern, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			name, _, _ := strings.Cut(seg[1:len(seg)-1], ":")
			d.params = append(d.params, param{index: i, name: name})
		}
	}
	return d
}

// directExchange adds to an exchange the chi route context that Direct
// fabricates.
type directExchange struct {
	exchange
	rctx     chi.Context
	patterns [1]string
}

// Dispatch calls the endpoint with c as its request, under a fresh chi route
// context, with ctx's cancellation and values.
func (d *Direct) Dispatch(ctx context.Context, c *Call) *Response {
	e := &directExchange{exchange: exchange{rec: recorder{limit: d.limit}}}
	rctx := &e.rctx // a zero chi.Context is what chi.NewRouteContext returns
	rctx.Routes = d.routes
	e.patterns[0] = d.pattern
	rctx.RoutePatterns = e.patterns[:]
	for _, p := range d.params {
		if seg, ok := segment(c.Path, p.index); ok {
			rctx.URLParams.Add(p.name, seg)
		}
	}
	req, err := e.request(context.WithValue(ctx, chi.RouteCtxKey, rctx), c)
	if err != nil {
		return failed(err)
	}
	for i, k := range rctx.URLParams.Keys {
		req.SetPathValue(k, rctx.URLParams.Values[i])
	}
	req.Pattern = d.pattern
	return serve(d.endpoint, req, &e.exchange)
}

// segment returns the i-th "/"-separated segment of path, as
// strings.Split(path, "/")[i] would, without the slice.
func segment(path string, i int) (string, bool) {
	for ; i > 0; i-- {
		_, rest, ok := strings.Cut(path, "/")
		if !ok {
			return "", false
		}
		path = rest
	}
	seg, _, _ := strings.Cut(path, "/")
	return seg, true
}
