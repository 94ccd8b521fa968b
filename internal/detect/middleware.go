package detect

import (
	"fmt"
	"net/http"
	"path"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5/middleware"
)

// What mcpdoor knows of a middleware, by the name FuncName gives it: the
// one list of the middlewares it knows (known), each with its effect on a
// request it runs on.
type effect struct {
	// skip: a fabricated request may skip it (Transparent): it neither
	// rejects a request nor puts anything in its context that a handler
	// reads. Direct dispatch reproduces the one that does (mcpdoor's
	// session middleware) itself.
	skip bool
	// front: it does no harm to the requests of an MCP endpoint it runs in
	// front of (Harmless): it neither ends one early nor holds it back,
	// nor changes what the endpoint answers.
	front bool
}

// chiMiddleware is the package of chi's middlewares.
const chiMiddleware = "github.com/go-chi/chi/v5/middleware."

// known are the middlewares mcpdoor knows. Anything else — auth, rate
// limiters, timeouts, body limits, unknown code — makes a route replay
// through the whole router, and in front of the MCP endpoint is warned
// about. A middleware not listed as front in particular:
//
//   - Timeout ends a stateful session's event stream, and a slow call,
//     when it fires; Throttle refuses MCP requests over its limit.
//   - Compress compresses the endpoint's answers, and its event streams
//     when text/event-stream is among its types, for clients that asked.
var known = map[string]effect{
	chiMiddleware + "(*Compressor).Handler-fm":                    {skip: true}, // Compress(level)
	chiMiddleware + "CleanPath":                                   {skip: true, front: true},
	chiMiddleware + "GetHead":                                     {skip: true, front: true},
	chiMiddleware + "Heartbeat.func1":                             {skip: true, front: true},
	chiMiddleware + "Logger":                                      {skip: true, front: true},
	chiMiddleware + "NoCache":                                     {skip: true, front: true},
	chiMiddleware + "Recoverer":                                   {skip: true, front: true},
	chiMiddleware + "RedirectSlashes":                             {skip: true, front: true},
	chiMiddleware + "RequestLogger.func1":                         {skip: true, front: true}, // also DefaultLogger
	chiMiddleware + "StripSlashes":                                {skip: true, front: true},
	"github.com/mcpdoor/mcpdoor/session.(*Manager).Middleware-fm": {skip: true, front: true},
	// These put what a handler may read in the request (its context, its
	// RemoteAddr, its path's extension), so a route of them replays; in
	// front of the MCP endpoint they change nothing it reads.
	chiMiddleware + "RealIP":                        {front: true},
	chiMiddleware + "RequestID":                     {front: true},
	chiMiddleware + "URLFormat":                     {front: true},
	chiMiddleware + "WithValue.func1":               {front: true},
	"github.com/go-chi/render.SetContentType.func1": {front: true},
}

// Transparent lists the middlewares, by function name, that a fabricated
// request may skip (see known), sorted.
var Transparent = func() []string {
	var out []string
	for name, e := range known {
		if e.skip {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}()

// closureNames gives the closures that chi's middleware constructors return
// their own names, keyed by source position. When the compiler inlines
// Heartbeat("/ping") into its caller, Go names the closure after the caller
// ("main.main.Heartbeat.func2"), so a name alone would miss it; the
// position is the same code wherever it was inlined.
var closureNames = map[string]string{
	position(funcOf(middleware.Heartbeat(""))):       "github.com/go-chi/chi/v5/middleware.Heartbeat.func1",
	position(funcOf(middleware.RequestLogger(nil))):  "github.com/go-chi/chi/v5/middleware.RequestLogger.func1",
	position(funcOf(middleware.Timeout(0))):          "github.com/go-chi/chi/v5/middleware.Timeout.func1",
	position(funcOf(middleware.WithValue(nil, nil))): "github.com/go-chi/chi/v5/middleware.WithValue.func1",
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
		file, _ := f.FileLine(f.Entry())
		if own := packageName(name, file); own != "" {
			return own
		}
	}
	return name
}

// foreign are packages of middlewares that known lists but mcpdoor does
// not import, so closureNames cannot hold their closures' positions.
var foreign = []string{"github.com/go-chi/render", "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"}

// packageName names the closure Go calls name, whose code is in file,
// after the foreign package that file is in and the function that made
// the closure ("github.com/go-chi/render.SetContentType.func1", where Go
// says "main.routes.SetContentType.func1" because the compiler inlined
// SetContentType into routes); "" when file is in none of them. The file
// is in a module cache (".../github.com/go-chi/render@v1.0.3/x.go"), a
// vendor directory, or as -trimpath writes it.
func packageName(name, file string) string {
	dir := path.Dir(file)
	if i := strings.LastIndexByte(dir, '@'); i >= 0 && !strings.Contains(dir[i:], "/") {
		dir = dir[:i]
	}
	for _, pkg := range foreign {
		if dir != pkg && !strings.HasSuffix(dir, "/"+pkg) {
			continue
		}
		parts := strings.Split(name[strings.LastIndexByte(name, '/')+1:], ".")
		for j := 1; j < len(parts); j++ {
			if strings.HasPrefix(parts[j], "func") {
				return pkg + "." + strings.Join(parts[j-1:], ".")
			}
		}
	}
	return ""
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
	if known[name].skip {
		return true
	}
	for _, d := range extra {
		if name == d || strings.HasPrefix(name, d+".func") {
			return true
		}
	}
	return false
}

// Harmless reports whether the middleware called name is known to do no
// harm to the requests of an MCP endpoint it runs in front of (see known):
// a logger, a recoverer, a request id, mcpdoor's session middleware. A
// timeout, a throttle, a body limit, auth or unknown code may cut or
// refuse them.
func Harmless(name string) bool {
	return known[name].front || strings.HasPrefix(name, otelhttpMiddleware+".func")
}

// otelhttpMiddleware is OpenTelemetry's HTTP middleware constructor. The
// closures it returns (numbered as its version's code has them) record a
// span for the request and pass it on whole, so in front of the MCP
// endpoint they do no harm; a route behind one replays, so that its span
// is made.
const otelhttpMiddleware = "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp.NewMiddleware"

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
