package dispatch

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/pattern"
)

// A Template builds the request URIs of one route, "GET
// /api/notes/{id}", from its path parameters' values and a query, so that
// the router serves each request it builds with that route and those very
// values, whatever the values hold. A value that no request could carry so
// is refused with a *ParamError, never sent on. A Template is safe for
// concurrent use.
//
// The escaping rule: each value is put into the path as it is, and the
// path is escaped as a whole the way net/url escapes a path
// (url.URL.EscapedPath): "%" becomes %25, "?" %3F, "#" %23, a space %20,
// non-ASCII bytes their %XX; ";", ",", ":", "@" and the like stay as they
// are. That is the escaping a server reads back as the same path without
// keeping a raw form, so chi, which routes on the raw path when there is
// one, routes on the decoded path and gives handlers the values
// unescaped: "a%2Fb" arrives as the six characters a%2Fb, "café" as café.
// (url.PathEscape would escape ";" and ",", leave a raw path behind, and
// the handler would get "a%3Bb" for "a;b".) Values that a path segment
// cannot carry are refused:
//
//   - an empty value (chi matches no route with an empty parameter);
//   - a "/" (it would end the segment: "/" escaped as %2F gives a raw path,
//     and the handler would get "%2F" rather than "/");
//   - "." or ".." (path cleaning, in a proxy or chi's CleanPath, would
//     resolve them to another path);
//   - the byte that ends the parameter when the pattern puts text right
//     after it ("." in /files/{name}.{ext});
//   - a value the parameter's regexp does not match;
//   - with the router given, a path that the router would serve with
//     another route or other values (GET /api/notes/search rather than
//     GET /api/notes/{id} with id "search").
//
// The query is url.Values.Encode's: sorted by key, each key and value
// escaped.
type Template struct {
	method  string
	pattern string
	parts   []pattern.Part
	rex     []*regexp.Regexp // by part; nil for literals and plain parameters
	params  []string
	routes  Router
}

// A Router says which route serves a request, as chi's Routes.Find does: the
// pattern of the route that serves method and path ("" for none), with the
// path parameters' values added to rctx.URLParams. A chi router is one; a
// handler with a route table of another kind (an http.ServeMux) needs an
// adapter that answers the same.
type Router interface {
	Find(rctx *chi.Context, method, path string) string
}

// NewTemplate returns the Template of the route method pattern, the full
// pattern chi.Walk reports for it. With routes, the router that serves the
// route (the one requests are sent to), every path is checked against the
// router (see Template); without it (nil), by the pattern alone. A
// wildcard pattern ("/static/*") has no template.
func NewTemplate(method, pat string, routes Router) (*Template, error) {
	parts, err := pattern.Parse(pat)
	if err != nil {
		return nil, fmt.Errorf("route %s %s: %w", method, pat, err)
	}
	t := &Template{method: method, pattern: pat, parts: parts, rex: make([]*regexp.Regexp, len(parts)), params: pattern.Params(parts), routes: routes}
	for i, pt := range parts {
		if pt.Regexp == "" {
			continue
		}
		if t.rex[i], err = regexp.Compile(pt.Regexp); err != nil {
			return nil, fmt.Errorf("route %s %s: parameter %q: %w", method, pat, pt.Name, err)
		}
	}
	return t, nil
}

// Params returns the names of the route's path parameters, in the order of
// the pattern.
func (t *Template) Params() []string { return t.params }

// A ParamError says why a path parameter's value cannot be sent to the
// route. Its text is meant for the caller that gave the value, a model
// included.
type ParamError struct {
	Param  string // the parameter's name
	Value  string
	Reason string // "is missing", "is empty", or why the value cannot be sent
}

func (e *ParamError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("path parameter %q %s", e.Param, e.Reason)
	}
	return fmt.Sprintf("path parameter %q is %q: %s", e.Param, e.Value, e.Reason)
}

// Expand returns the request URI for these values of the path parameters
// and this query: the escaped path, then "?" and the query when it has
// any. values may hold other keys; they are not read.
func (t *Template) Expand(values map[string]string, query url.Values) (string, error) {
	return t.expand(values, query, nil)
}

// Fill sets c's Method and Path to the request of these values and this
// query, as Expand builds it. With the router given to NewTemplate, it
// also hands c what routing the path found, so that a Direct dispatcher of
// the route, which would route the path again to build the handler's route
// context, takes it from c instead.
func (t *Template) Fill(c *Call, values map[string]string, query url.Values) error {
	var m *routed
	if t.routes != nil && len(t.params) > 0 {
		m = new(routed)
	}
	uri, err := t.expand(values, query, m)
	if err != nil {
		return err
	}
	c.Method, c.Path, c.found = t.method, uri, m
	return nil
}

// expand is Expand; with m, it records in m what routing the path found.
func (t *Template) expand(values map[string]string, query url.Values, m *routed) (string, error) {
	n := 0
	for i, pt := range t.parts {
		if pt.Name == "" {
			n += len(pt.Literal)
			continue
		}
		v, ok := values[pt.Name]
		if err := t.check(i, v, ok); err != nil {
			return "", err
		}
		n += len(v)
	}
	var b strings.Builder
	b.Grow(n + 1 + queryLen(query))
	for _, pt := range t.parts {
		if pt.Name == "" {
			b.WriteString(pt.Literal)
		} else {
			b.WriteString(values[pt.Name])
		}
	}
	if len(query) > 0 {
		b.WriteByte('?')
		writeQuery(&b, query)
	}
	// One string holds the path, then the query: the path is its first n
	// bytes.
	uri := b.String()
	path := uri[:n]
	if t.routes != nil && len(t.params) > 0 {
		if err := t.route(path, values, m); err != nil {
			return "", err
		}
	}
	u := url.URL{Path: path}
	if esc := u.EscapedPath(); esc != path {
		uri = esc + uri[n:]
	}
	return uri, nil
}

// queryLen is the length of query's encoding when nothing in it needs
// escaping.
func queryLen(query url.Values) int {
	n := 0
	for k, vs := range query {
		for _, v := range vs {
			n += len(k) + len(v) + 2
		}
	}
	return n
}

// writeQuery writes query encoded as url.Values.Encode encodes it: sorted
// by key, keys and values escaped, pairs joined by "&".
func writeQuery(b *strings.Builder, query url.Values) {
	var small [8]string
	keys := small[:0]
	for k := range query {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	first := true
	for _, k := range keys {
		ek := url.QueryEscape(k)
		for _, v := range query[k] {
			if !first {
				b.WriteByte('&')
			}
			first = false
			b.WriteString(ek)
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(v))
		}
	}
}

// check returns why v, the value of part i, cannot be sent, or nil.
func (t *Template) check(i int, v string, given bool) error {
	pt := t.parts[i]
	fail := func(reason string) error { return &ParamError{Param: pt.Name, Value: v, Reason: reason} }
	switch {
	case !given:
		return fail("is missing")
	case v == "":
		return fail("is empty")
	case strings.Contains(v, "/"):
		return fail(`a value cannot contain "/"`)
	case v == "." || v == "..":
		return fail(`a value cannot be "." or ".."`)
	case pt.Tail != '/' && strings.IndexByte(v, pt.Tail) >= 0:
		return fail(fmt.Sprintf("a value cannot contain %q, which ends it in %s", pt.Tail, t.pattern))
	case t.routes == nil && t.rex[i] != nil && !t.rex[i].MatchString(v):
		// With the router, its own match decides, and route explains.
		return fail("it does not match " + pt.Regexp)
	}
	return nil
}

// route checks that the router serves path with this route and these
// values.
func (t *Template) route(path string, values map[string]string, m *routed) error {
	rctx := routeContexts.Get().(*chi.Context)
	defer routeContexts.Put(rctx)
	rctx.Reset()
	got := t.routes.Find(rctx, t.method, path)
	if !samePattern(got, t.pattern) {
		for i, pt := range t.parts {
			if v := values[pt.Name]; t.rex[i] != nil && !t.rex[i].MatchString(v) {
				return &ParamError{Param: pt.Name, Value: v, Reason: "it does not match " + pt.Regexp}
			}
		}
		first := t.params[0]
		reason := fmt.Sprintf("%s is not a path of this route (%s %s)", path, t.method, t.pattern)
		if got != "" {
			reason = fmt.Sprintf("%s is the path of another route, %s %s", path, t.method, got)
		}
		return &ParamError{Param: first, Value: values[first], Reason: reason}
	}
	for _, name := range t.params {
		if read := lastParam(&rctx.URLParams, name); read != values[name] {
			return &ParamError{Param: name, Value: values[name], Reason: fmt.Sprintf("the router reads it as %q in %s", read, path)}
		}
	}
	if m != nil {
		m.record(t.method, path, got, rctx)
	}
	return nil
}

// A routed is what routing a Call's path found, for a Direct dispatcher to
// build its route context from without routing the path again. It is not
// changed once made: a Call may be dispatched again, or concurrently.
type routed struct {
	method, path, pattern string
	keys, values          []string // URL parameters, "*" emptied as Mount does
	patterns              []string // RoutePatterns
	routePath             string
	small                 [8]string // where keys, values and patterns go, when they fit
}

// record fills m from rctx, which routing method path to pattern found.
func (m *routed) record(method, path, pattern string, rctx *chi.Context) {
	m.method, m.path, m.pattern, m.routePath = method, path, pattern, rctx.RoutePath
	keys, patterns := rctx.URLParams.Keys, rctx.RoutePatterns
	all := m.small[:0]
	if n := 2*len(keys) + len(patterns); n > len(m.small) {
		all = make([]string, 0, n)
	}
	all = append(append(all, keys...), rctx.URLParams.Values...)
	m.keys, m.values = all[:len(keys):len(keys)], all[len(keys):2*len(keys):2*len(keys)]
	for i, k := range m.keys {
		if k == "*" {
			m.values[i] = ""
		}
	}
	m.patterns = append(all[2*len(keys):], patterns...)
}

// lastParam returns the last value params hold for key, as chi.URLParam
// does.
func lastParam(params *chi.RouteParams, key string) string {
	for i := len(params.Keys) - 1; i >= 0; i-- {
		if params.Keys[i] == key {
			return params.Values[i]
		}
	}
	return ""
}
