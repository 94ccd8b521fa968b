package detect

import (
	"strings"

	"github.com/go-chi/chi/v5"
)

// RoutesAt names the routes of r that serve path by its name, whatever
// their method: "GET /admin", "POST /admin", or "ANY /admin" for a route
// that takes every method (Handle, or a router mounted there), sorted. A
// route serves path by its name when chi routes a request for path to it
// and its pattern is neither a one-segment parameter, such as the
// catch-all POST /{tool}, which serves every name alike, nor a wildcard
// such as /* or /static/*, which serves everything under a prefix.
//
// A catch-all tool named like such a route would let a tool call reach
// the dispatcher where an HTTP request for the same path reaches that
// route and its middlewares.
func RoutesAt(r chi.Routes, path string) []string {
	found := map[string][]string{}
	for _, m := range anyMethod {
		pattern := r.Find(chi.NewRouteContext(), m, path)
		if _, param := catchAllParam(pattern); pattern == "" || param || strings.HasSuffix(pattern, "*") {
			continue
		}
		found[pattern] = append(found[pattern], m)
	}
	return routeNames(found)
}
