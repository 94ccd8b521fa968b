// Command weather serves the weather example over HTTP and MCP:
//
//	go run ./examples/weather
//
// then point an MCP client at the URL it logs, e.g.
//
//	claude mcp add --transport http weather http://127.0.0.1:8080/mcp
//
// or let the client start it and speak MCP over stdin/stdout:
//
//	claude mcp add weather -- go run ./examples/weather -stdio
//
// -config stateful.yaml serves stateful sessions (Mcp-Session-Id) instead
// of the default stateless transport. With OTEL_EXPORTER_OTLP_ENDPOINT set,
// it exports traces and metrics over OTLP/HTTP (telemetry.go). SIGINT or SIGTERM closes the MCP
// door, then shuts the HTTP server down. The server is in server.go; this
// file runs it.
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session/redisstore"
)

//go:embed server.yaml
var config []byte

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	file := flag.String("config", "", "config file (default: the example's own server.yaml)")
	stdio := flag.Bool("stdio", false, "serve MCP over stdin/stdout for one local client, instead of HTTP")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(*addr, *file, *stdio, log); err != nil {
		log.Error("weather", "err", err)
		os.Exit(1)
	}
}

// run serves until SIGINT or SIGTERM: over stdio, or over HTTP on addr.
func run(addr, file string, stdio bool, log *slog.Logger) error {
	cfg, err := loadConfig(file, log)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopTelemetry, err := startTelemetry(ctx)
	if err != nil {
		return err
	}
	defer func() {
		flush, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stopTelemetry(flush); err != nil {
			log.Warn("weather: flushing telemetry", "err", err)
		}
	}()
	if stdio {
		r, err := newRouter(&cfg)
		if err != nil {
			return err
		}
		if err := autoexpose.ServeStdio(ctx, r, cfg); err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	}
	door, err := newServer(cfg)
	if err != nil {
		return err
	}
	return serveHTTP(ctx, addr, door, log)
}

// loadConfig reads the config file, or the example's own server.yaml. An
// example runs without a secret when the environment names none: the log
// then says so.
func loadConfig(file string, log *slog.Logger) (autoexpose.Config, error) {
	cfg, err := autoexpose.ParseConfig(config)
	if file != "" {
		cfg, err = autoexpose.LoadConfig(file)
	}
	if err != nil {
		return cfg, err
	}
	cfg.Logger = log
	if env := cfg.MCP.SessionSecretEnv; env != "" && os.Getenv(env) == "" {
		cfg.MCP.SessionSecretEnv = ""
	}
	// With MCPDOOR_REDIS_ADDR (host:port), the sessions and their state
	// are in that Redis, which every replica shares; else in memory.
	if addr := os.Getenv("MCPDOOR_REDIS_ADDR"); addr != "" {
		cfg.Store = redisstore.New(redis.NewClient(&redis.Options{Addr: addr}), cfg.Name)
		log.Info("weather: sessions in Redis", "addr", addr)
	}
	return cfg, nil
}

// serveHTTP serves door on addr until ctx ends, then closes the door and
// shuts the server down.
func serveHTTP(ctx context.Context, addr string, door *autoexpose.Door, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: door, ReadHeaderTimeout: 10 * time.Second}
	// Shutdown waits for connections to go idle; closing the door ends the
	// MCP sessions' open streams, so that they can.
	srv.RegisterOnShutdown(func() { door.Close() })
	if path, _ := door.Endpoint(); path != "" {
		log.Info("weather: MCP endpoint", "url", "http://"+ln.Addr().String()+path)
	}
	log.Info("weather: serving HTTP", "addr", ln.Addr().String())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}
