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
	_ "embed"

	"github.com/mcpdoor/mcpdoor/examples/internal/serve"
	"github.com/mcpdoor/mcpdoor/examples/openapi/server"
)

//go:embed server.yaml
var config []byte

func main() {
	serve.Example{Name: "openapi", Addr: "127.0.0.1:8081", Config: config, Build: server.New}.Main()
}
