package detect

import (
	"net/http"
	"slices"
	"testing"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/mcpdoor/mcpdoor/internal/keyring"
	"github.com/mcpdoor/mcpdoor/session"
)

// TestTransparentNamesAreRuntimeNames: the built-in Transparent list names
// what FuncName really returns for chi v5.5.0's middlewares and mcpdoor's
// session middleware, however they were built, and holds nothing else.
func TestTransparentNamesAreRuntimeNames(t *testing.T) {
	m := session.New(keyring.Random(), nil)
	builtins := []struct {
		name string
		mw   func(http.Handler) http.Handler
	}{
		{"CleanPath", middleware.CleanPath},
		{"Compress", middleware.Compress(5)},
		{"Compress with types", middleware.Compress(1, "application/json")},
		{"NewCompressor.Handler", middleware.NewCompressor(5).Handler},
		{"DefaultLogger", middleware.DefaultLogger},
		{"GetHead", middleware.GetHead},
		{"Heartbeat", middleware.Heartbeat("/ping")},
		{"Heartbeat in a closure", func() func(http.Handler) http.Handler { return middleware.Heartbeat("/health") }()},
		{"Logger", middleware.Logger},
		{"NoCache", middleware.NoCache},
		{"Recoverer", middleware.Recoverer},
		{"RedirectSlashes", middleware.RedirectSlashes},
		{"RequestLogger", middleware.RequestLogger(quietLogFormatter)},
		{"StripSlashes", middleware.StripSlashes},
		{"session.Manager.Middleware", m.Middleware},
	}
	covered := map[string]bool{}
	for _, b := range builtins {
		t.Run(b.name, func(t *testing.T) {
			name := FuncName(b.mw)
			if !slices.Contains(Transparent, name) {
				t.Errorf("FuncName = %q, not in Transparent", name)
			}
			covered[name] = true
		})
	}
	for _, name := range Transparent {
		if !covered[name] {
			t.Errorf("Transparent lists %q, which no built-in middleware is called", name)
		}
	}
}

func TestFuncName(t *testing.T) {
	m := session.New(keyring.Random(), nil)
	cases := []struct {
		name string
		mw   func(http.Handler) http.Handler
		want string
	}{
		{"nil", nil, "<nil>"},
		{"package func", authMiddleware, pkg + "authMiddleware"},
		{"closure of a constructor", tagger("x"), pkg + "tagger.func1"},
		{"method value", m.Middleware, "github.com/mcpdoor/mcpdoor/session.(*Manager).Middleware-fm"},
		{"chi func", middleware.RequestID, "github.com/go-chi/chi/v5/middleware.RequestID"},
		{"chi closure, inlined here", middleware.Heartbeat("/x"), "github.com/go-chi/chi/v5/middleware.Heartbeat.func1"},
		{"chi method value", middleware.Compress(5), "github.com/go-chi/chi/v5/middleware.(*Compressor).Handler-fm"},
		{"chi closure from another func", middleware.Throttle(1), "github.com/go-chi/chi/v5/middleware.ThrottleWithOpts.func1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := FuncName(c.mw); got != c.want {
				t.Errorf("FuncName = %q, want %q", got, c.want)
			}
		})
	}
}

// TestPackageName: a closure of go-chi/render, which mcpdoor does not
// import, is named after render and the function that made it, wherever
// the compiler inlined that function and wherever the module's files are.
func TestPackageName(t *testing.T) {
	const want = "github.com/go-chi/render.SetContentType.func1"
	for _, tc := range []struct{ name, file, want string }{
		{"github.com/go-chi/render.SetContentType.func1", "/home/u/go/pkg/mod/github.com/go-chi/render@v1.0.3/content_type.go", want},
		{"main.routes.SetContentType.func1", "/home/u/go/pkg/mod/github.com/go-chi/render@v1.0.3/content_type.go", want},
		{"github.com/acme/api.New.SetContentType.func2", "github.com/go-chi/render@v1.0.3/content_type.go", "github.com/go-chi/render.SetContentType.func2"},
		{"main.main.SetContentType.func1", "/src/app/vendor/github.com/go-chi/render/content_type.go", want},
		{"main.main.SetContentType.func1", "/src/app/render/content_type.go", ""},
		{"main.main.SetContentType.func1", "/src/github.com/go-chi/renderer@v1/content_type.go", ""},
	} {
		if got := packageName(tc.name, tc.file); got != tc.want {
			t.Errorf("packageName(%q, %q) = %q, want %q", tc.name, tc.file, got, tc.want)
		}
	}
	if !Harmless(want) {
		t.Errorf("%s is not harmless", want)
	}
}

// TestHarmlessNamesAreRuntimeNames: the middlewares known to do no harm in
// front of the MCP endpoint, though a route of them replays, are known by
// the names FuncName gives them; the others it knows are Transparent.
func TestHarmlessNamesAreRuntimeNames(t *testing.T) {
	//lint:ignore SA1019 servers use RealIP, and mcpdoor must know it
	for _, mw := range []func(http.Handler) http.Handler{middleware.RealIP, middleware.RequestID, middleware.URLFormat, middleware.WithValue("k", 1)} {
		if name := FuncName(mw); !Harmless(name) || isTransparent(name, nil) {
			t.Errorf("%s: Harmless %v, transparent %v; want true, false", name, Harmless(name), isTransparent(name, nil))
		}
	}
	for name, e := range known {
		if !e.front && !e.skip {
			t.Errorf("known lists %s, which does nothing mcpdoor relies on", name)
		}
		if e.skip != slices.Contains(Transparent, name) {
			t.Errorf("%s: skip %v, in Transparent %v", name, e.skip, slices.Contains(Transparent, name))
		}
	}
	for _, name := range []string{"github.com/go-chi/chi/v5/middleware.Timeout.func1", "github.com/go-chi/chi/v5/middleware.ThrottleWithOpts.func1", "github.com/go-chi/chi/v5/middleware.(*Compressor).Handler-fm"} {
		if Harmless(name) {
			t.Errorf("%s is harmless", name)
		}
	}
}
