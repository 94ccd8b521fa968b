// Command conformance serves the fixture tools of the official MCP
// conformance suite (@modelcontextprotocol/conformance) as plain chi routes,
// exposed over MCP by autoexpose.Install:
//
//	go run ./examples/conformance
//	scripts/conformance.sh http://127.0.0.1:8085/mcp
//
// -config stateful.yaml serves stateful sessions, which the suite's
// sampling and elicitation scenarios need: a stateless door cannot send the
// suite's client (protocol 2025-11-25) a request. The server itself is in
// package server; how it is run, in examples/internal/serve.
package main

import (
	_ "embed"

	"github.com/mcpdoor/mcpdoor/examples/conformance/server"
	"github.com/mcpdoor/mcpdoor/examples/internal/serve"
)

//go:embed server.yaml
var config []byte

func main() {
	serve.Example{Name: "conformance", Addr: "127.0.0.1:8085", Config: config, Build: server.New, Router: server.Router}.Main()
}
