package rollout

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-chi/chi/v5"
)

// NeMo Gym, with observability on, sends every request for a resource
// server under /ng-rollout/<rollout_id>/ (its ServerClient), and its servers
// strip the prefix before routing (RolloutContextMiddleware in
// nemo_gym/rollout_correlation.py). A server under the contract does the
// same: see ID.
const (
	prefix = "/ng-rollout/"
	// idPattern is NeMo Gym's ROLLOUT_ID_PATTERN without its anchors:
	// letters, digits, dots, dashes and underscores, starting with a letter
	// or digit. NeMo Gym sets no length bound.
	idPattern = `[A-Za-z0-9][A-Za-z0-9._-]*`
	// PrefixRoute is the chi route of the prefix: only a valid id matches
	// it, so any other path reaches what it reached before.
	PrefixRoute = prefix + "{rollout_id:" + idPattern + "}/*"
)

var idRule = regexp.MustCompile(`^` + idPattern + `$`)

type idKey struct{}

// ID returns the rollout id of a request that NeMo Gym sent under
// /ng-rollout/<rollout_id>/, or "" for any other request. It works in a
// handler reached through either door: over HTTP, and for a tool call made
// through the MCP endpoint under the prefix.
//
// A server under the contract serves /ng-rollout/<id>/<path> exactly as
// /<path>: the same route, middlewares, URL parameters and session; the
// handler sees the request without the prefix, its URL path and RequestURI
// included. The router's own middlewares (its Use) run once, in front of
// that, and see the prefixed path. A path whose id is outside NeMo Gym's
// pattern (letters, digits, dots, dashes, underscores, starting with a
// letter or digit) is not a rollout path and is routed as it is.
func ID(r *http.Request) string { return FromContext(r.Context()) }

// FromContext returns the rollout id ctx carries, or "".
func FromContext(ctx context.Context) string {
	id, _ := ctx.Value(idKey{}).(string)
	return id
}

// NewContext returns ctx carrying rollout id (ctx itself for "").
func NewContext(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, idKey{}, id)
}

// Logger returns log naming the rollout of ctx, if it has one.
func Logger(ctx context.Context, log *slog.Logger) *slog.Logger {
	if id := FromContext(ctx); id != "" {
		return log.With("rollout_id", id)
	}
	return log
}

func (c *Contract) logger(ctx context.Context) *slog.Logger { return Logger(ctx, c.log) }

// StripPrefix returns r as it would have arrived without NeMo Gym's prefix,
// carrying the rollout id, and true; or r and false when r's path has no
// valid prefix, or r already came under one (NeMo Gym strips one). It is
// for a handler without a route table; on a chi router, Router serves the
// prefix.
func StripPrefix(r *http.Request) (*http.Request, bool) {
	if FromContext(r.Context()) != "" {
		return r, false
	}
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	id, rest, ok := splitRollout(path)
	if !ok {
		return r, false
	}
	return unprefixed(r, r.Context(), id, rest), true
}

// splitRollout splits a routing path /ng-rollout/<id>/<rest> into the id
// and /<rest>. ok is false for any other path, and for an id outside the
// pattern: an encoded slash ("a%2Fb") or an empty id is no id.
func splitRollout(path string) (id, rest string, ok bool) {
	after, ok := strings.CutPrefix(path, prefix)
	if !ok {
		return "", "", false
	}
	id, rest, ok = strings.Cut(after, "/")
	if !ok || !idRule.MatchString(id) {
		return "", "", false
	}
	return id, "/" + rest, true
}

// unprefixed returns r as it would have arrived without the prefix of
// rollout id: its URL path, raw path and request URI lose
// "/ng-rollout/<id>", and its context is ctx, carrying the id. rest is the
// routing path after the prefix, used when r's URL path does not start
// with it (a root middleware such as CleanPath changed the routing path).
func unprefixed(r *http.Request, ctx context.Context, id, rest string) *http.Request {
	p := prefix + id
	r2 := r.Clone(NewContext(ctx, id))
	r2.Pattern = ""
	u := r2.URL
	if after, ok := strings.CutPrefix(u.Path, p); ok && strings.HasPrefix(after, "/") {
		u.Path = after
		u.RawPath, _ = strings.CutPrefix(u.RawPath, p)
	} else if path, err := url.PathUnescape(rest); err == nil {
		u.Path, u.RawPath = path, ""
		if u.EscapedPath() != rest {
			u.RawPath = rest
		}
	}
	if after, ok := strings.CutPrefix(r2.RequestURI, p); ok && strings.HasPrefix(after, "/") {
		r2.RequestURI = after
	}
	return r2
}

// Router returns the handler of PrefixRoute on mux: it serves
// /ng-rollout/<id>/<path> as mux serves /<path> (see ID).
func Router(mux chi.Router) http.Handler { return &prefixRouter{mux: mux} }

// prefixRouter serves the rollout prefix route of a chi router: it routes
// the path after the prefix on the same router, without running the
// router's own middlewares a second time — they have run for the prefixed
// request already, and running them twice would count a rate limit twice,
// log twice, or make a Throttle(1) turn away (or, with a backlog, wait on)
// the request that holds its only slot.
//
// It does what chi's own routing does at the router's top level — find the
// route, set the route context, the URL parameters and the request's path
// values and pattern, answer 404 or 405 with the router's handlers — and
// serves that route's handler: a route with its inline (With, Group)
// middlewares, or a mounted router, which goes on routing as chi does.
type prefixRouter struct {
	mux chi.Router

	table atomic.Pointer[map[string]chi.Route] // top-level routes by pattern, read lazily
	mu    sync.Mutex                           // held to read them
}

func (p *prefixRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	outer := chi.RouteContext(r.Context())
	id, rest := chi.URLParam(r, "rollout_id"), "/"+chi.URLParam(r, "*")
	method := outer.RouteMethod
	if method == "" {
		method = r.Method
	}
	rctx := chi.NewRouteContext()
	rctx.Routes = p.mux
	rctx.RouteMethod = method
	ctx := context.WithValue(r.Context(), chi.RouteCtxKey, rctx)
	if id == "" {
		// chi's pattern has matched any other id (TestPrefixRouteID); an
		// empty one (/ng-rollout//x) it lets through.
		p.notFound(w, r)
		return
	}
	req := unprefixed(r, ctx, id, rest)
	// chi put the prefix route's parameters in the request's path values;
	// the handler must not see them.
	req.SetPathValue("rollout_id", "")
	req.SetPathValue("*", "")
	if FromContext(r.Context()) != "" {
		p.notFound(w, req) // a second prefix: NeMo Gym strips one, and so do we
		return
	}

	p.mux.Find(rctx, method, rest)
	if len(rctx.RoutePatterns) == 0 {
		p.unrouted(w, req, method, rest)
		return
	}
	top := rctx.RoutePatterns[0]
	rt, ok := p.route(top)
	if !ok {
		p.notFound(w, req)
		return
	}
	if outer.RoutePath != "" {
		// A root middleware (StripSlashes, CleanPath) chose the routing path.
		rctx.RoutePath = rest
	}
	var h http.Handler
	if rt.SubRoutes != nil {
		// A mounted router. Find went on routing into it; keep what the top
		// level found, as chi has it when it hands the request to the
		// mount, and let the mounted router route the rest itself.
		n := min(paramCount(top), len(rctx.URLParams.Keys))
		rctx.URLParams.Keys = rctx.URLParams.Keys[:n]
		rctx.URLParams.Values = rctx.URLParams.Values[:n]
		rctx.RoutePatterns = rctx.RoutePatterns[:1]
		h = mounted(rt, rctx)
	} else if h = rt.Handlers[method]; h == nil {
		h = rt.Handlers["*"]
	}
	for i, k := range rctx.URLParams.Keys {
		req.SetPathValue(k, rctx.URLParams.Values[i])
	}
	req.Pattern = rctx.RoutePattern()
	if h == nil {
		p.notFound(w, req)
		return
	}
	h.ServeHTTP(w, req)
}

// mounted returns what chi calls for a router mounted at rt: the
// middlewares of a With in front of Mount, then the mount itself, which
// moves the routing path past the mount point and blanks the mount's *
// parameter, then the mounted router.
func mounted(rt chi.Route, rctx *chi.Context) http.Handler {
	sub := rt.SubRoutes.(http.Handler)
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rctx.RoutePath = "/"
		if last := len(rctx.URLParams.Keys) - 1; last >= 0 && rctx.URLParams.Keys[last] == "*" {
			rctx.RoutePath = "/" + rctx.URLParams.Values[last]
			rctx.URLParams.Values[last] = ""
		}
		sub.ServeHTTP(w, r)
	})
	if chain, ok := rt.Handlers["*"].(*chi.ChainHandler); ok {
		h = chi.Chain(chain.Middlewares...).Handler(h)
	}
	return h
}

// paramCount returns the number of URL parameters chi's pattern has:
// {name} and {name:regexp} segments, and a trailing *.
func paramCount(pattern string) int {
	n, depth := 0, 0
	for _, c := range pattern {
		switch c {
		case '{':
			if depth == 0 {
				n++
			}
			depth++
		case '}':
			depth--
		}
	}
	if strings.HasSuffix(pattern, "*") {
		n++
	}
	return n
}

// route returns the top-level route of pattern. A Mount registers /api
// and /api/ besides /api/*, and chi's route list leaves them out: they are
// the mount's.
func (p *prefixRouter) route(pattern string) (chi.Route, bool) {
	for _, fresh := range []bool{false, true} { // fresh: a route added since the table was read
		table := p.routes(fresh)
		if rt, ok := table[pattern]; ok {
			return rt, true
		}
		for _, m := range []string{pattern + "/*", pattern + "*"} {
			if rt, ok := table[m]; ok && rt.Handlers["*"] != nil {
				return rt, true
			}
		}
	}
	return chi.Route{}, false
}

// routes returns the router's top-level routes by pattern, read on first
// use (after Install has registered its own), or again when fresh. A table
// is never changed once read: reading it again makes a new one.
func (p *prefixRouter) routes(fresh bool) map[string]chi.Route {
	if t := p.table.Load(); t != nil && !fresh {
		return *t
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.table.Load(); t != nil && !fresh {
		return *t // read by another request meanwhile
	}
	table := make(map[string]chi.Route)
	for _, rt := range p.mux.Routes() {
		table[rt.Pattern] = rt
	}
	p.table.Store(&table)
	return table
}

// unrouted answers a path no top-level route serves: 405, with the methods
// that path takes, when some other method would reach a route, and 404
// otherwise, with the router's own handlers.
func (p *prefixRouter) unrouted(w http.ResponseWriter, r *http.Request, method, path string) {
	var allowed []string
	for _, m := range chiMethods {
		if m != method && p.mux.Find(chi.NewRouteContext(), m, path) != "" {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) == 0 {
		p.notFound(w, r)
		return
	}
	mx, ok := p.mux.(*chi.Mux)
	if !ok {
		w.Header()["Allow"] = allowed
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	h := methodNotAllowed(mx)
	if reflect.ValueOf(h).Pointer() == chiMethodNotAllowed {
		// chi's own 405 lists the allowed methods; a custom one is called
		// as chi calls it, with no Allow header set.
		w.Header()["Allow"] = allowed
	}
	h.ServeHTTP(w, r)
}

func (p *prefixRouter) notFound(w http.ResponseWriter, r *http.Request) {
	if mx, ok := p.mux.(*chi.Mux); ok {
		mx.NotFoundHandler().ServeHTTP(w, r)
		return
	}
	http.NotFound(w, r)
}

// chiMethods are the methods chi routes.
var chiMethods = []string{
	http.MethodConnect, http.MethodDelete, http.MethodGet, http.MethodHead, http.MethodOptions,
	http.MethodPatch, http.MethodPost, http.MethodPut, "QUERY", http.MethodTrace,
}

// chiMethodNotAllowed identifies chi's default 405 handler, a closure: the
// code of the one a fresh router returns.
var chiMethodNotAllowed = reflect.ValueOf(methodNotAllowed(chi.NewMux())).Pointer()

// methodNotAllowed returns mx's 405 handler. It is not inlined, so that
// every call returns the same closure code as the one chiMethodNotAllowed
// was read from.
//
//go:noinline
func methodNotAllowed(mx *chi.Mux) http.HandlerFunc { return mx.MethodNotAllowedHandler() }
