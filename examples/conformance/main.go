// Command conformance serves the fixture tools of the official MCP
// conformance suite (@modelcontextprotocol/conformance) as plain chi routes,
// exposed over MCP by autoexpose.Install:
//
//	go run ./examples/conformance
//	scripts/conformance.sh http://127.0.0.1:8085/mcp
//
// -config stateful.yaml serves stateful sessions, which the suite's
// sampling and elicitation scenarios of protocol 2025-11-25 need: a
// stateless door cannot send that protocol's client a request. The
// scenarios of protocol 2026-07-28 (suite 0.2), whose input requests ask
// the client in the call's result, are the stateless door's: a stateful
// one does not serve that protocol. The server is in server.go, its
// 2026-07-28 fixtures in inputs.go; this file runs it.
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

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

//go:embed server.yaml
var config []byte

func main() {
	addr := flag.String("addr", "127.0.0.1:8085", "address to listen on")
	file := flag.String("config", "", "config file (default: the example's own server.yaml)")
	stdio := flag.Bool("stdio", false, "serve MCP over stdin/stdout for one local client, instead of HTTP")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(*addr, *file, *stdio, log); err != nil {
		log.Error("conformance", "err", err)
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
		log.Info("conformance: MCP endpoint", "url", "http://"+ln.Addr().String()+path)
	}
	log.Info("conformance: serving HTTP", "addr", ln.Addr().String())
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
