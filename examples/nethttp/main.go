// Command nethttp serves the notes example — a plain http.ServeMux wrapped
// with autoexpose.Wrap — over HTTP and MCP:
//
//	go run ./examples/nethttp
//	claude mcp add --transport http notes http://127.0.0.1:8082/mcp
package main

import (
	_ "embed"
	"net/http"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/examples/internal/serve"
	"github.com/mcpdoor/mcpdoor/examples/nethttp/server"
)

//go:embed server.yaml
var config []byte

func main() {
	serve.Example{Name: "nethttp", Addr: "127.0.0.1:8082", Config: config, Build: func(cfg autoexpose.Config) (http.Handler, *autoexpose.Door, error) {
		door, err := server.New(cfg)
		return door, door, err
	}}.Main()
}
