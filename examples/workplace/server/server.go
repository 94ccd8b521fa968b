// Package server serves the workplace environment (package env) over HTTP and
// MCP. The environment dispatches its 23 tools from one POST /{tool} route;
// the Tools hook appends one catch-all-backed MCP tool per entry of its tool
// table, so their schemas are declared once.
package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/examples/workplace/env"
)

// New builds the router and installs the MCP door.
func New(cfg autoexpose.Config) (http.Handler, *autoexpose.Door, error) {
	sessions, err := cfg.UseSessions()
	if err != nil {
		return nil, nil, err
	}
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Use(sessions.Middleware)
	env.New().Routes(r)

	cfg.Tools = func(harvested []autoexpose.Tool, dispatcher *autoexpose.CatchAll) []autoexpose.Tool {
		tools := harvested
		for _, spec := range env.Tools() {
			t := dispatcher.Tool(spec.Name, spec.Input, spec.Description)
			if spec.ReadOnly {
				t.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
			}
			tools = append(tools, t)
		}
		return tools
	}
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		return nil, nil, err
	}
	return r, door, nil
}
