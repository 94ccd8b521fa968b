// Command blog serves the blog, over HTTP and, with expose_tools_over_mcp
// in blog.yaml, over MCP at /mcp: the README's adoption path, as written.
package main

import (
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"

	"github.com/mcpdoor/mcpdoor/autoexpose"

	"example.com/blog/api"
)

func main() {
	config := flag.String("config", "blog.yaml", "the server's config")
	addr := flag.String("addr", "127.0.0.1:8080", "the address to serve")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg, err := autoexpose.LoadConfig(*config)
	if err != nil {
		log.Error("blog: config", "err", err)
		os.Exit(1)
	}
	door, err := autoexpose.Install(api.NewRouter(api.NewStore()), cfg)
	if err != nil {
		log.Error("blog: install", "err", err)
		os.Exit(1)
	}
	defer door.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Error("blog: listen", "err", err)
		os.Exit(1)
	}
	log.Info("blog: serving HTTP", "addr", ln.Addr().String())
	log.Error("blog: serve", "err", http.Serve(ln, door))
}
