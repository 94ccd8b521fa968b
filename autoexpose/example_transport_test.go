package autoexpose_test

import (
	"context"
	"log"
	"net/http"
	"os"
	"os/signal"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// ServeStdio serves the router's tools to a client that starts the server
// itself (claude mcp add weather -- ./weather -stdio). The router is built
// as for Install, but not served over HTTP.
func ExampleServeStdio() {
	cfg, err := autoexpose.ParseConfig([]byte(`
name: weather
expose_tools_over_mcp: true
`))
	if err != nil {
		log.Fatal(err)
	}
	r := chi.NewRouter()
	r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(getWeather))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := autoexpose.ServeStdio(ctx, r, cfg); err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}

// Door.Close ends the MCP sessions with the HTTP server: registered with
// RegisterOnShutdown, it runs when Shutdown starts, so that Shutdown need
// not wait for session streams that would stay open.
func ExampleDoor_Close() {
	cfg, err := autoexpose.ParseConfig([]byte(`
name: weather
expose_tools_over_mcp: true
mcp:
  stateful: true
`))
	if err != nil {
		log.Fatal(err)
	}
	r := chi.NewRouter()
	r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(getWeather))
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}

	srv := &http.Server{Addr: "127.0.0.1:8080", Handler: door}
	srv.RegisterOnShutdown(func() { door.Close() })
	go func() {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		<-ctx.Done()
		srv.Shutdown(context.Background())
	}()
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
