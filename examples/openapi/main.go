// Command openapi serves the OpenAPI example, a bookstore's inventory, over
// HTTP and MCP; every tool's schema comes from its OpenAPI document:
//
//	go run ./examples/openapi
//
// then point an MCP client at the URL it logs, e.g.
//
//	claude mcp add --transport http bookstore http://127.0.0.1:8081/mcp
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
	"github.com/mcpdoor/mcpdoor/examples/openapi/server"
)

//go:embed server.yaml
var defaultConfig []byte

func main() {
	addr := flag.String("addr", "127.0.0.1:8081", "address to listen on")
	config := flag.String("config", "", "config file (default: the example's own server.yaml)")
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(*addr, *config, log); err != nil {
		log.Error("openapi", "err", err)
		os.Exit(1)
	}
}

func run(addr, configPath string, log *slog.Logger) error {
	cfg, err := loadConfig(configPath)
	if err != nil {
		return err
	}
	cfg.Logger = log
	h, door, err := server.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if door.Enabled() {
		log.Info("openapi: MCP endpoint", "url", fmt.Sprintf("http://%s%s", ln.Addr(), "/mcp"))
	}
	log.Info("openapi: serving HTTP", "addr", ln.Addr().String())

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

func loadConfig(path string) (autoexpose.Config, error) {
	if path == "" {
		return autoexpose.ParseConfig(defaultConfig)
	}
	return autoexpose.LoadConfig(path)
}
