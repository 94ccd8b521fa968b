// Command shop serves the shop's API, over HTTP and, with
// expose_tools_over_mcp in its config, over MCP at /mcp.
package main

import (
	"flag"
	"log"
	"net/http"

	"github.com/mcpdoor/mcpdoor/autoexpose"

	"example.com/shop/server"
)

//go:generate go tool mcpdoor gen ./...

func main() {
	config := flag.String("config", "shop.yaml", "the server's config")
	addr := flag.String("addr", "127.0.0.1:8080", "the address to serve")
	flag.Parse()
	cfg, err := autoexpose.LoadConfig(*config)
	if err != nil {
		log.Fatal(err)
	}
	door, err := autoexpose.Install(server.NewRouter(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer door.Close()
	log.Fatal(http.ListenAndServe(*addr, door))
}
