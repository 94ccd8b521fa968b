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
