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
// of the default stateless transport. SIGINT or SIGTERM closes the MCP
// door, then shuts the HTTP server down.
package main

import (
	"context"
	_ "embed"
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
	"github.com/mcpdoor/mcpdoor/examples/weather/server"
)

//go:embed server.yaml
var defaultConfig []byte

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	config := flag.String("config", "", "config file (default: the example's own server.yaml)")
	stdio := flag.Bool("stdio", false, "serve MCP over stdin/stdout for one local client, instead of HTTP")
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *stdio {
		err = serveStdio(ctx, *config, log)
	} else {
		err = run(ctx, *addr, *config, log)
	}
	if err != nil {
		log.Error("weather", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, addr, configPath string, log *slog.Logger) error {
	cfg, err := loadConfig(configPath, log)
	if err != nil {
		return err
	}
	h, door, err := server.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	// Shutdown waits for connections to go idle; closing the door ends the
	// MCP sessions' open streams, so that they can.
	srv.RegisterOnShutdown(func() { door.Close() })
	if door.Enabled() {
		log.Info("weather: MCP endpoint", "url", fmt.Sprintf("http://%s%s", ln.Addr(), "/mcp"))
	}
	log.Info("weather: serving HTTP", "addr", ln.Addr().String())

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
func serveStdio(ctx context.Context, configPath string, log *slog.Logger) error {
	cfg, err := loadConfig(configPath, log)
	if err != nil {
		return err
	}
	r, err := server.Router(&cfg)
	if err != nil {
		return err
	}
	if err := autoexpose.ServeStdio(ctx, r, cfg); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func loadConfig(path string, log *slog.Logger) (autoexpose.Config, error) {
	var cfg autoexpose.Config
	var err error
	if path == "" {
		cfg, err = autoexpose.ParseConfig(defaultConfig)
	} else {
		cfg, err = autoexpose.LoadConfig(path)
	}
	if err != nil {
		return cfg, err
	}
	cfg.Logger = log
	if cfg.MCP.SessionSecretEnv != "" && os.Getenv(cfg.MCP.SessionSecretEnv) == "" {
		cfg.MCP.SessionSecretEnv = "" // the example runs without a secret; the log says so
	}
	return cfg, nil
}
