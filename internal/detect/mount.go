package detect

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/pattern"
)

// A mounted handler whose routes chi can read is not always the router
// that serves them. r.Mount("/api", routesMux{sub}), with
//
//	type routesMux struct{ chi.Router }
//
// and a ServeHTTP of its own that checks credentials before it calls the
// embedded router, hands chi.Walk sub's routes (routesMux has Routes()),
// but a request to /api/... meets routesMux.ServeHTTP first. A direct call
// of such a route would skip that check, so a route under a mount whose
// handler is not a *chi.Mux itself replays through the router (or is
// refused under dispatch: strict), whatever its middlewares.

// walkFunc is called by walk for each method and route, as chi.WalkFunc
// is, with the mounts above the route that the route's dispatch must not
// skip (see opaqueMount).
// bare reports that the router serves the route at pattern without its
// trailing slash too (see Route.Bare).
type walkFunc func(method, pattern string, bare bool, h http.Handler, mws []func(http.Handler) http.Handler, mounts []opaqueMount) error

// An opaqueMount is a mounted handler, above a route, that is not a
// *chi.Mux: code of its own runs before the route's middlewares.
type opaqueMount struct {
	path     string // where it is mounted: "/api", or "/" for Mount("/", ...)
	typeName string // its type, as Go names it: "github.com/acme/api.routesMux"
}

// reason says why a route under m cannot go direct.
func (m opaqueMount) reason() string {
	return fmt.Sprintf("%s is mounted as a %s, not a *chi.Mux: its own ServeHTTP may check a request before the routes run", m.path, m.typeName)
}

// walk visits every route of r as chi.Walk does (the same patterns, the
// same middleware chains, outermost first), and also tells fn which
// mounted handlers above each route are opaque.
func walk(r chi.Routes, fn walkFunc) error {
	return walkFrom(r, fn, "", nil, nil)
}

func walkFrom(r chi.Routes, fn walkFunc, parent string, parentMws []func(http.Handler) http.Handler, mounts []opaqueMount) error {
	for _, route := range r.Routes() {
		mws := slices.Concat(parentMws, r.Middlewares())
		if route.SubRoutes != nil {
			if chain, ok := route.Handlers["*"].(*chi.ChainHandler); ok {
				mws = append(mws, chain.Middlewares...)
			}
			inner := mounts
			if _, isMux := route.SubRoutes.(*chi.Mux); !isMux {
				path := strings.TrimSuffix(pattern.Join(parent, route.Pattern), "/*")
				if path == "" {
					path = "/"
				}
				inner = append(slices.Clip(mounts), opaqueMount{path: path, typeName: typeName(route.SubRoutes)})
			}
			if err := walkFrom(route.SubRoutes, fn, parent+route.Pattern, mws, inner); err != nil {
				return err
			}
			continue
		}
		full := pattern.Join(parent, route.Pattern)
		// A sub-router's "/" route is where its mount's path leads, with a
		// slash or without (chi's Mount registers both).
		bare := route.Pattern == "/" && parent != ""
		for method, h := range route.Handlers {
			if method == "*" {
				continue // chi lists every method of a Handle or Mount besides
			}
			if chain, ok := h.(*chi.ChainHandler); ok {
				if err := fn(method, full, bare, chain.Endpoint, slices.Concat(mws, chain.Middlewares), mounts); err != nil {
					return err
				}
				continue
			}
			if err := fn(method, full, bare, h, mws, mounts); err != nil {
				return err
			}
		}
	}
	return nil
}

// typeName names v's type with its package path, as FuncName names a
// middleware: "github.com/acme/api.routesMux", "*github.com/acme/api.gate".
func typeName(v any) string {
	t := reflect.TypeOf(v)
	stars := ""
	for t.Kind() == reflect.Pointer {
		stars += "*"
		t = t.Elem()
	}
	if t.Name() == "" || t.PkgPath() == "" {
		return fmt.Sprintf("%T", v)
	}
	return stars + t.PkgPath() + "." + t.Name()
}
