// Command untuned serves the app, over HTTP and, with
// expose_tools_over_mcp in its config, over MCP at /mcp.
package main

import (
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"

	"github.com/mcpdoor/mcpdoor/autoexpose"

	"example.com/untuned/server"
)

//go:generate go run github.com/mcpdoor/mcpdoor/cmd/mcpdoor gen ./...

func main() {
	config := flag.String("config", "untuned.yaml", "the server's config")
	addr := flag.String("addr", "127.0.0.1:8080", "the address to serve")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg, err := autoexpose.LoadConfig(*config)
	if err != nil {
		log.Error("untuned: config", "err", err)
		os.Exit(1)
	}
	cfg.Logger = log
	door, err := autoexpose.Install(server.NewRouter(log), cfg)
	if err != nil {
		log.Error("untuned: install", "err", err)
		os.Exit(1)
	}
	defer door.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Error("untuned: listen", "err", err)
		os.Exit(1)
	}
	log.Info("untuned: serving HTTP", "addr", ln.Addr().String())
	log.Error("untuned: serve", "err", http.Serve(ln, door))
}
