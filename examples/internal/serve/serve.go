// Package serve runs the examples' servers: the flags -addr, -config and
// (for examples that can) -stdio, the config (the example's own server.yaml
// unless -config names another), a log on stderr, and an HTTP server on a
// loopback address until SIGINT or SIGTERM, which closes the MCP door and
// then shuts the server down.
package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// An Example is one example server.
type Example struct {
	Name   string // for the log: "weather"
	Addr   string // the default listen address
	Config []byte // the example's server.yaml, embedded
	// Build returns what the server serves for cfg — its MCP door, which
	// serves the router behind NeMo Gym's prefix, for a server with one —
	// and that door (nil for none), closed when the server shuts down.
	Build func(cfg autoexpose.Config) (http.Handler, *autoexpose.Door, error)
	// Router, when set, returns the server's routes without the door, so
	// that -stdio can serve them with autoexpose.ServeStdio.
	Router func(cfg *autoexpose.Config) (chi.Router, error)
}

// Main parses the flags and serves until interrupted, exiting 1 on error.
func (e Example) Main() {
	addr := flag.String("addr", e.Addr, "address to listen on")
	config := flag.String("config", "", "config file (default: the example's own server.yaml)")
	stdio := new(bool)
	if e.Router != nil {
		stdio = flag.Bool("stdio", false, "serve MCP over stdin/stdout for one local client, instead of HTTP")
	}
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := e.load(*config, log, func(cfg autoexpose.Config) error {
		if *stdio {
			return e.serveStdio(ctx, cfg)
		}
		return e.serveHTTP(ctx, *addr, cfg, log)
	})
	if err != nil {
		log.Error(e.Name, "err", err)
		os.Exit(1)
	}
}

// load reads the config and runs serve with it.
func (e Example) load(path string, log *slog.Logger, serve func(autoexpose.Config) error) error {
	cfg, err := autoexpose.ParseConfig(e.Config)
	if path != "" {
		cfg, err = autoexpose.LoadConfig(path)
	}
	if err != nil {
		return err
	}
	cfg.Logger = log
	if cfg.MCP.SessionSecretEnv != "" && os.Getenv(cfg.MCP.SessionSecretEnv) == "" {
		cfg.MCP.SessionSecretEnv = "" // an example runs without a secret; the log says so
	}
	return serve(cfg)
}

func (e Example) serveHTTP(ctx context.Context, addr string, cfg autoexpose.Config, log *slog.Logger) error {
	h, door, err := e.Build(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if door != nil {
		// Shutdown waits for connections to go idle; closing the door ends
		// the MCP sessions' open streams, so that they can.
		srv.RegisterOnShutdown(func() { door.Close() })
	}
	if cfg.ExposeToolsOverMCP && door != nil && door.Degraded() == nil {
		path := cfg.MCP.Path
		if path == "" {
			path = "/mcp"
		}
		log.Info(e.Name+": MCP endpoint", "url", fmt.Sprintf("http://%s%s", ln.Addr(), path))
	}
	log.Info(e.Name+": serving HTTP", "addr", ln.Addr().String())

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// serveStdio serves the tools over stdin/stdout until the client closes
// stdin or a signal comes.
func (e Example) serveStdio(ctx context.Context, cfg autoexpose.Config) error {
	r, err := e.Router(&cfg)
	if err != nil {
		return err
	}
	if err := autoexpose.ServeStdio(ctx, r, cfg); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
