// Package server serves the workplace environment (package env) over HTTP and
// MCP. The environment dispatches its 23 tools from one POST /{tool} route;
// Config.CatchAll declares one MCP tool per entry of its tool table, served by
// that route, so their schemas are declared once.
package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/examples/workplace/env"
)

// New builds the router and installs the MCP door. It returns what to
// serve, the door, which serves the router, and the door again, to close.
func New(cfg autoexpose.Config) (http.Handler, *autoexpose.Door, error) {
	sessions, err := cfg.UseSessions()
	if err != nil {
		return nil, nil, err
	}
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Use(sessions.Middleware)
	env.New().Routes(r)

	cfg.CatchAll = make(map[string]autoexpose.Declaration)
	for _, spec := range env.Tools() {
		d := autoexpose.Declaration{Description: spec.Description, Input: spec.Input}
		if spec.ReadOnly {
			d.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
		}
		cfg.CatchAll[spec.Name] = d
	}
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		return nil, nil, err
	}
	return door, door, nil
}
