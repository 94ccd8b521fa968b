// Command shop serves the shop's API, over HTTP and, with
// expose_tools_over_mcp in its config, over MCP at /mcp.
package main

import (
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"

	"github.com/mcpdoor/mcpdoor/autoexpose"

	"example.com/shop/server"
)

//go:generate go tool mcpdoor gen ./...

func main() {
	config := flag.String("config", "shop.yaml", "the server's config")
	addr := flag.String("addr", "127.0.0.1:8080", "the address to serve")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg, err := autoexpose.LoadConfig(*config)
	if err != nil {
		log.Error("shop: config", "err", err)
		os.Exit(1)
	}
	door, err := autoexpose.Install(server.NewRouter(), cfg)
	if err != nil {
		log.Error("shop: install", "err", err)
		os.Exit(1)
	}
	defer door.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Error("shop: listen", "err", err)
		os.Exit(1)
	}
	log.Info("shop: serving HTTP", "addr", ln.Addr().String())
	log.Error("shop: serve", "err", http.Serve(ln, door))
}
