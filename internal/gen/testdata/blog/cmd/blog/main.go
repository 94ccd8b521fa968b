// Command blog serves the blog, over HTTP and, with expose_tools_over_mcp
// in blog.yaml, over MCP at /mcp: the README's adoption path, as written.
package main

import (
	"flag"
	"log"
	"net/http"

	"github.com/mcpdoor/mcpdoor/autoexpose"

	"example.com/blog/api"
)

func main() {
	config := flag.String("config", "blog.yaml", "the server's config")
	addr := flag.String("addr", "127.0.0.1:8080", "the address to serve")
	flag.Parse()
	cfg, err := autoexpose.LoadConfig(*config)
	if err != nil {
		log.Fatal(err)
	}
	door, err := autoexpose.Install(api.NewRouter(api.NewStore()), cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer door.Close()
	log.Fatal(http.ListenAndServe(*addr, door))
}
