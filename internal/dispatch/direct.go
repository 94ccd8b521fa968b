package dispatch

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/pattern"
)

// Direct dispatches to a route's endpoint, skipping its middlewares. Use it
// only for routes whose middlewares are all transparent (see package
// detector); whatever they would have put in the request's context must be
// in the context given to Dispatch.
type Direct struct {
	endpoint http.Handler
	pattern  string
	routes   chi.Routes
	parts    []pattern.Part // nil for a pattern without parameters
	find     bool           // ask routes for the route context, as the router builds it
	routePat string         // r.Pattern as the router sets it, when find
	limit    int64
}

// routeContexts recycles the route contexts of direct calls, as chi's
// router recycles its own (a handler may not keep its route context once
// it has returned), and those a Template routes paths with.
var routeContexts = sync.Pool{New: func() any { return chi.NewRouteContext() }}

// NewDirect returns a Direct dispatcher for the endpoint registered at
// pattern in routes. Path parameters in pattern ({name} or {name:regexp})
// are filled from the call's path. maxResponseBytes caps the captured body;
// 0 means DefaultMaxResponseBytes.
//
// With routes, the route context the handler sees is the one routes builds
// for the call's method and path: its URL parameters (those of the routers
// a sub-router is mounted under included), path values and pattern are
// exactly what the router would give the handler. A call whose path routes
// does not route to pattern is not served. Without routes (nil), they are
// read from the path by the pattern alone.
func NewDirect(endpoint http.Handler, pattern string, routes chi.Routes, maxResponseBytes int64) *Direct {
	d := &Direct{endpoint: endpoint, pattern: pattern, routes: routes, limit: limitOr(maxResponseBytes)}
	if strings.Contains(pattern, "{") {
		d.parts = parse(pattern)
	}
	// A one-segment pattern without parameters, /get_weather, gets the same
	// route context either way; sparing it the lookup keeps tool calls fast.
	d.find = routes != nil && (d.parts != nil || strings.Count(pattern, "/") > 1)
	d.routePat = routePattern(pattern)
	return d
}

// routePattern returns the pattern chi's router gives the request of a
// route that chi.Walk reports at p: the route patterns of the routers on
// the way joined, as chi.Context.RoutePattern joins them. chi.Walk joins
// them the same way but keeps a trailing slash that RoutePattern drops:
// a sub-router's "/" route is at "/api/notes/" for chi.Walk and at
// "/api/notes" for the request.
func routePattern(p string) string {
	if p != "/" {
		p = strings.TrimSuffix(p, "/")
	}
	return p
}

// parse is pattern.Parse for a pattern chi accepted; a pattern it did not
// accept reads as text.
func parse(p string) []pattern.Part {
	parts, err := pattern.Parse(p)
	if err != nil {
		return []pattern.Part{{Literal: p}}
	}
	return parts
}

// Dispatch calls the endpoint with c as its request, under a fresh chi route
// context, with ctx's cancellation and values.
func (d *Direct) Dispatch(ctx context.Context, c *Call) *Response {
	e := &exchange{rec: recorder{limit: d.limit}}
	rctx := routeContexts.Get().(*chi.Context)
	defer routeContexts.Put(rctx)
	rctx.Reset() // a reset chi.Context is what chi.NewRouteContext returns
	rctx.Routes = d.routes
	e.ctx = routeContext{ctx, rctx}
	req, err := e.request(&e.ctx, c)
	if err != nil {
		return failed(err)
	}
	if m := c.found; d.find && m != nil && m.method == req.Method && m.path == req.URL.Path && req.URL.RawPath == "" && samePattern(m.pattern, d.pattern) {
		// Template.Fill routed this very path: its route context is the
		// one the router builds.
		rctx.RouteMethod = req.Method
		rctx.URLParams.Keys = append(rctx.URLParams.Keys, m.keys...)
		rctx.URLParams.Values = append(rctx.URLParams.Values, m.values...)
		rctx.RoutePatterns = append(rctx.RoutePatterns, m.patterns...)
		rctx.RoutePath = m.routePath
		req.Pattern = d.routePat
	} else if d.find {
		if err := d.route(rctx, req); err != nil {
			return failed(err)
		}
	} else {
		rctx.RoutePatterns = append(rctx.RoutePatterns, d.pattern)
		if d.parts != nil {
			match(d.parts, req.URL.Path, &rctx.URLParams)
		}
		req.Pattern = d.pattern
	}
	for i, k := range rctx.URLParams.Keys {
		req.SetPathValue(k, rctx.URLParams.Values[i])
	}
	return serve(d.endpoint, req, e)
}

// route fills rctx as the router does when it serves req: it routes on the
// raw path when the request has one, leaves RoutePath at the last mounted
// router's part of the path, records each mounted router's "*" parameter
// and then empties it (as Mount does before the sub-router routes), and
// sets the pattern from the route patterns.
func (d *Direct) route(rctx *chi.Context, req *http.Request) error {
	path := req.URL.RawPath
	if path == "" {
		path = req.URL.Path
	}
	rctx.RouteMethod = req.Method
	got := d.routes.Find(rctx, req.Method, path)
	if !samePattern(got, d.pattern) {
		return fmt.Errorf("mcpdoor: %s %s is not routed to %s %s", req.Method, req.RequestURI, req.Method, d.pattern)
	}
	for i, k := range rctx.URLParams.Keys {
		if k == "*" {
			rctx.URLParams.Values[i] = ""
		}
	}
	req.Pattern = d.routePat
	return nil
}

// samePattern reports whether routing found the route of pattern: got is
// pattern, or, since a sub-router's "/" route is reached at its mount point
// with or without the slash, pattern less that slash.
func samePattern(got, pattern string) bool {
	return got == pattern || got != "" && strings.TrimSuffix(got, "/") == strings.TrimSuffix(pattern, "/")
}

// match adds to params the values of parts' parameters in path, read as
// chi reads them: each value runs to the first byte that ends it.
func match(parts []pattern.Part, path string, params *chi.RouteParams) {
	for _, pt := range parts {
		if pt.Name == "" {
			var ok bool
			if path, ok = strings.CutPrefix(path, pt.Literal); !ok {
				return
			}
			continue
		}
		end := strings.IndexByte(path, pt.Tail)
		if end < 0 {
			end = len(path)
		}
		params.Add(pt.Name, path[:end])
		path = path[end:]
	}
}

// routeContext is a context carrying a chi route context, as
// context.WithValue(ctx, chi.RouteCtxKey, rctx) would, held in the
// exchange so that it costs no allocation of its own.
type routeContext struct {
	context.Context
	rctx *chi.Context
}

func (c *routeContext) Value(key any) any {
	if key == chi.RouteCtxKey {
		return c.rctx
	}
	return c.Context.Value(key)
}

func (c *routeContext) String() string { return "dispatch.routeContext" }
