// Command workplace serves the office-assistant environment over HTTP and
// MCP: one catch-all POST /{tool} dispatcher behind 23 tools, scenarios seeded
// at /seed_session and scored at /verify.
//
//	go run ./examples/workplace
package main

import (
	_ "embed"

	"github.com/mcpdoor/mcpdoor/examples/internal/serve"
	"github.com/mcpdoor/mcpdoor/examples/workplace/server"
)

//go:embed server.yaml
var config []byte

func main() {
	serve.Example{Name: "workplace", Addr: "127.0.0.1:8083", Config: config, Build: server.New}.Main()
}
