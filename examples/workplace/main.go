// Command workplace serves the office-assistant environment over HTTP and
// MCP: one catch-all POST /{tool} dispatcher behind 23 tools, scenarios seeded
// at /seed_session and scored at /verify.
//
//	go run ./examples/workplace
package main

import (
	"context"
	_ "embed"
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
	addr := flag.String("addr", "127.0.0.1:8083", "address to listen on")
	file := flag.String("config", "", "config file (default: the example's own server.yaml)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(*addr, *file, log); err != nil {
		log.Error("workplace", "err", err)
		os.Exit(1)
	}
}

// run serves over HTTP on addr until SIGINT or SIGTERM.
func run(addr, file string, log *slog.Logger) error {
	cfg, err := loadConfig(file, log)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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
		log.Info("workplace: sessions in Redis", "addr", addr)
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
		log.Info("workplace: MCP endpoint", "url", "http://"+ln.Addr().String()+path)
	}
	log.Info("workplace: serving HTTP", "addr", ln.Addr().String())
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
