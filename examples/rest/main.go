// Command rest serves the rest example — a REST-shaped chi notes API
// whose every route is a tool, URL and query parameters included — over
// HTTP and MCP:
//
//	go run ./examples/rest
//	claude mcp add --transport http notes http://127.0.0.1:8084/mcp \
//		--header "Authorization: Bearer demo-token"
//
// Every call's HTTP request carries the MCP request's Authorization
// header, so the API's own bearer-token checks hold over MCP too
// (demo-token for the notes, admin-token for /api/admin). The API itself
// is in package server, unchanged by MCP; how it is run, in
// examples/internal/serve.
package main

import (
	_ "embed"

	"github.com/mcpdoor/mcpdoor/examples/internal/serve"
	"github.com/mcpdoor/mcpdoor/examples/rest/server"
)

//go:embed server.yaml
var config []byte

func main() {
	serve.Example{Name: "rest", Addr: "127.0.0.1:8084", Config: config, Build: server.Serve}.Main()
}
