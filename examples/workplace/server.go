package main

// The workplace server: the environment (env.go) over HTTP and MCP. The
// environment dispatches its 23 tools from one POST /{tool} route;
// Config.CatchAll declares one MCP tool per entry of its tool table, served
// by that route, so their schemas are declared once.

import (
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// newServer builds the router and installs the MCP door: what to serve (it
// serves the router), and what to close.
func newServer(cfg autoexpose.Config) (*autoexpose.Door, error) {
	sessions, err := cfg.UseSessions()
	if err != nil {
		return nil, err
	}
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Use(sessions.Middleware)
	newStoredEnv().Routes(r) // the offices in cfg.Store: Redis, or memory

	cfg.CatchAll = make(map[string]autoexpose.Declaration)
	for _, spec := range Tools() {
		d := autoexpose.Declaration{Description: spec.Description, Input: spec.Input}
		if spec.ReadOnly {
			d.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
		}
		cfg.CatchAll[spec.Name] = d
	}
	return autoexpose.Install(r, cfg)
}
