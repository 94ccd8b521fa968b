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
// door, then shuts the HTTP server down. The server itself is in package
// server; how it is run, in examples/internal/serve.
package main

import (
	_ "embed"

	"github.com/mcpdoor/mcpdoor/examples/internal/serve"
	"github.com/mcpdoor/mcpdoor/examples/weather/server"
)

//go:embed server.yaml
var config []byte

func main() {
	serve.Example{Name: "weather", Addr: "127.0.0.1:8080", Config: config, Build: server.New, Router: server.Router}.Main()
}
