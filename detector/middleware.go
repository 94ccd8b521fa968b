package detector

import (
	"net/http"
	"reflect"
	"runtime"
	"slices"
	"strings"
)

// Transparent lists the middlewares, by function name, that a fabricated
// request may skip: they neither reject a request nor put anything in its
// context that a handler reads. Direct dispatch reproduces the one that does
// (mcpdoor's session middleware) itself.
//
// Anything else — auth, request ids, RealIP, rate limiters, timeouts, body
// limits, unknown code — makes a route replay through the whole router.
var Transparent = []string{
	"github.com/go-chi/chi/v5/middleware.CleanPath",
	"github.com/go-chi/chi/v5/middleware.Compress.func1",
	"github.com/go-chi/chi/v5/middleware.GetHead",
	"github.com/go-chi/chi/v5/middleware.Heartbeat.func1",
	"github.com/go-chi/chi/v5/middleware.Logger",
	"github.com/go-chi/chi/v5/middleware.NoCache",
	"github.com/go-chi/chi/v5/middleware.Recoverer",
	"github.com/go-chi/chi/v5/middleware.RedirectSlashes",
	"github.com/go-chi/chi/v5/middleware.RequestLogger.func1",
	"github.com/go-chi/chi/v5/middleware.StripSlashes",
	"github.com/mcpdoor/mcpdoor/session.(*Manager).Middleware-fm",
}

// FuncName returns the name the runtime knows a middleware function by, such
// as "github.com/go-chi/chi/v5/middleware.Logger". This is the name to list in
// the config's transparent_middleware.
func FuncName(mw func(http.Handler) http.Handler) string {
	if mw == nil {
		return "<nil>"
	}
	f := runtime.FuncForPC(reflect.ValueOf(mw).Pointer())
	if f == nil {
		return "<unknown>"
	}
	return f.Name()
}

// isTransparent reports whether the middleware called name is in the
// built-in list or in extra. A declared name also covers the closures its
// function returns ("pkg.Trace" covers "pkg.Trace.func1").
func isTransparent(name string, extra []string) bool {
	if slices.Contains(Transparent, name) {
		return true
	}
	for _, d := range extra {
		if name == d || strings.HasPrefix(name, d+".func") {
			return true
		}
	}
	return false
}
