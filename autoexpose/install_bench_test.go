package autoexpose

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// generatedRouter has n POST tool routes: a third typed, spread over groups
// with a transparent middleware and groups with an unknown one.
func generatedRouter(n int) chi.Router {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Post("/seed_session", ok)
	r.Post("/verify", ok)
	for g := 0; g*100 < n; g++ {
		mw := middleware.NoCache
		if g%2 == 1 {
			mw = customMiddleware
		}
		r.Group(func(r chi.Router) {
			r.Use(mw)
			for i := g * 100; i < n && i < (g+1)*100; i++ {
				name := fmt.Sprintf("/tool_%04d", i)
				if i%3 == 0 {
					r.Method(http.MethodPost, name, Handler(func(context.Context, *http.Request, weatherIn) (weatherOut, error) { return weatherOut{}, nil }))
				} else {
					r.Post(name, ok)
				}
			}
		})
	}
	return r
}

// BenchmarkInstall measures startup: Install over a generated router of 100
// and of 1,000 tool routes (walk, verdicts, schemas, the MCP server). The
// time should grow in proportion to the route count.
func BenchmarkInstall(b *testing.B) {
	cfg := enabled(MCPConfig{SessionSecret: []string{"a benchmark secret of at least 32 bytes"}})
	cfg.Logger = slog.New(slog.DiscardHandler)
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				r := generatedRouter(n)
				b.StartTimer()
				door, err := Install(r, cfg)
				if err != nil || len(exposed(door)) != n {
					b.Fatal(err)
				}
			}
		})
	}
}
