// Package serve runs the examples' servers: the flags -addr and -config,
// the config (the example's own server.yaml unless -config names another),
// a log on stderr, and an HTTP server on a loopback address until SIGINT or
// SIGTERM.
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

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// An Example is one example server.
type Example struct {
	Name   string // for the log: "nethttp"
	Addr   string // the default listen address
	Config []byte // the example's server.yaml, embedded
	// Build returns the server's handler for cfg.
	Build func(cfg autoexpose.Config) (http.Handler, error)
}

// Main parses the flags and serves until interrupted, exiting 1 on error.
func (e Example) Main() {
	addr := flag.String("addr", e.Addr, "address to listen on")
	config := flag.String("config", "", "config file (default: the example's own server.yaml)")
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := e.run(*addr, *config, log); err != nil {
		log.Error(e.Name, "err", err)
		os.Exit(1)
	}
}

func (e Example) run(addr, configPath string, log *slog.Logger) error {
	cfg, err := autoexpose.ParseConfig(e.Config)
	if configPath != "" {
		cfg, err = autoexpose.LoadConfig(configPath)
	}
	if err != nil {
		return err
	}
	cfg.Logger = log
	if cfg.MCP.SessionSecretEnv != "" && os.Getenv(cfg.MCP.SessionSecretEnv) == "" {
		cfg.MCP.SessionSecretEnv = "" // an example runs without a secret; the log says so
	}
	h, err := e.Build(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if cfg.ExposeToolsOverMCP {
		path := cfg.MCP.Path
		if path == "" {
			path = autoexpose.DefaultPath
		}
		log.Info(e.Name+": MCP endpoint", "url", fmt.Sprintf("http://%s%s", ln.Addr(), path))
	}
	log.Info(e.Name+": serving HTTP", "addr", ln.Addr().String())

	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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
