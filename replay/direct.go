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

// Dispatch calls the endpoint with c as its request, under a fresh chi route
// context, with ctx's cancellation and values.
func (d *Direct) Dispatch(ctx context.Context, c *Call) *Response {
	rctx := chi.NewRouteContext()
	rctx.Routes = d.routes
	rctx.RoutePatterns = []string{d.pattern}
	var segs []string
	if len(d.params) > 0 {
		segs = strings.Split(c.Path, "/")
		for _, p := range d.params {
			if p.index < len(segs) {
				rctx.URLParams.Add(p.name, segs[p.index])
			}
		}
	}
	req, err := c.request(context.WithValue(ctx, chi.RouteCtxKey, rctx))
	if err != nil {
		return failed(err)
	}
	for i, k := range rctx.URLParams.Keys {
		req.SetPathValue(k, rctx.URLParams.Values[i])
	}
	req.Pattern = d.pattern
	return serve(d.endpoint, req, d.limit)
}
