package detect

import (
	"fmt"
	"net/http"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5/middleware"
)

// Transparent lists the middlewares, by function name, that a fabricated
// request may skip: they neither reject a request nor put anything in its
// context that a handler reads. Direct dispatch reproduces the one that does
// (mcpdoor's session middleware) itself.
//
// Anything else — auth, request ids, RealIP, rate limiters, timeouts, body
// limits, unknown code — makes a route replay through the whole router.
var Transparent = []string{
	"github.com/go-chi/chi/v5/middleware.(*Compressor).Handler-fm", // Compress(level)
	"github.com/go-chi/chi/v5/middleware.CleanPath",
	"github.com/go-chi/chi/v5/middleware.GetHead",
	"github.com/go-chi/chi/v5/middleware.Heartbeat.func1",
	"github.com/go-chi/chi/v5/middleware.Logger",
	"github.com/go-chi/chi/v5/middleware.NoCache",
	"github.com/go-chi/chi/v5/middleware.Recoverer",
	"github.com/go-chi/chi/v5/middleware.RedirectSlashes",
	"github.com/go-chi/chi/v5/middleware.RequestLogger.func1", // also DefaultLogger
	"github.com/go-chi/chi/v5/middleware.StripSlashes",
	"github.com/mcpdoor/mcpdoor/session.(*Manager).Middleware-fm",
}

// closureNames gives the closures that chi's middleware constructors return
// their own names, keyed by source position. When the compiler inlines
// Heartbeat("/ping") into its caller, Go names the closure after the caller
// ("main.main.Heartbeat.func2"), so a name alone would miss it; the
// position is the same code wherever it was inlined.
var closureNames = map[string]string{
	position(funcOf(middleware.Heartbeat(""))):      "github.com/go-chi/chi/v5/middleware.Heartbeat.func1",
	position(funcOf(middleware.RequestLogger(nil))): "github.com/go-chi/chi/v5/middleware.RequestLogger.func1",
	position(funcOf(middleware.Timeout(0))):         "github.com/go-chi/chi/v5/middleware.Timeout.func1",
}

// FuncName returns the name mcpdoor knows a middleware function by, such as
// "github.com/go-chi/chi/v5/middleware.Logger": the name the runtime gives
// it, except that the closures of chi's Heartbeat, RequestLogger and
// Timeout keep their own names when the compiler inlined the constructor.
// This is the name to list in the config's transparent_middleware.
func FuncName(mw func(http.Handler) http.Handler) string {
	if mw == nil {
		return "<nil>"
	}
	f := funcOf(mw)
	if f == nil {
		return "<unknown>"
	}
	name := f.Name()
	if strings.Contains(name, ".func") { // a closure
		if own, ok := closureNames[position(f)]; ok {
			return own
		}
	}
	return name
}

// funcOf returns the runtime's record of mw's code, or nil.
func funcOf(mw func(http.Handler) http.Handler) *runtime.Func {
	return runtime.FuncForPC(reflect.ValueOf(mw).Pointer())
}

// position returns where f's code starts, "file:line".
func position(f *runtime.Func) string {
	file, line := f.FileLine(f.Entry())
	return fmt.Sprintf("%s:%d", file, line)
}

// isTransparent reports whether the middleware called name is in the
// built-in list or in extra. A declared name also covers the closures its
// function returns ("pkg.Trace" covers "pkg.Trace.func1"), as long as the
// compiler did not inline the function into its caller.
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

// frontSafe lists the middlewares, besides the Transparent ones, that do no
// harm in front of an MCP endpoint: they neither end a request early nor
// hold it back.
var frontSafe = []string{
	"github.com/go-chi/chi/v5/middleware.RealIP",
	"github.com/go-chi/chi/v5/middleware.RequestID",
}

// Harmless reports whether the middleware called name is known to do no
// harm to the requests of an MCP endpoint it runs in front of: a logger, a
// recoverer, a request id, mcpdoor's session middleware. A timeout, a
// throttle, a body limit, auth or unknown code may cut or refuse them.
func Harmless(name string) bool {
	return slices.Contains(Transparent, name) || slices.Contains(frontSafe, name)
}

// HasMiddleware reports whether some route of the report, or the router
// itself, has the middleware called name (or, as for
// Options.Transparent, one of the closures its function returns).
func (rep *Report) HasMiddleware(name string) bool {
	has := func(names []string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return isTransparent(n, []string{name}) })
	}
	if has(rep.RootMiddlewareNames) {
		return true
	}
	for i := range rep.Routes {
		if has(rep.Routes[i].MiddlewareNames) {
			return true
		}
	}
	return false
}
