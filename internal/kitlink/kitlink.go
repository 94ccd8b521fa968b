// Package kitlink hands package autoexposetest what an autoexpose.Door knows
// and does not export: where its endpoint is, whether the rollout contract is
// on, its session manager, how it maps a route's response to a tool result,
// and the _meta key of its error envelope. Package autoexpose sets Of when it is initialized.
package kitlink

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/sessions"
)

// ErrorMetaKey is the _meta key of a tool's error envelope when the tool
// advertises an output schema.
const ErrorMetaKey = "mcpdoor/error"

// Door is what package autoexposetest reads of an autoexpose.Door.
type Door struct {
	// Path is the MCP endpoint's path.
	Path string
	// Rollout reports whether the rollout contract is on, and TokenHeader
	// is then the header of its session token.
	Rollout     bool
	TokenHeader string
	// Sessions is the session manager the Door dispatches calls into.
	Sessions *sessions.Manager
	// Result maps a response of the route of tool, as the HTTP door
	// answered it, to the tool result the MCP door gives for it; ok is false
	// for a tool the Door does not serve.
	Result func(tool string, status int, header http.Header, body []byte) (res *mcp.CallToolResult, ok bool)
}

// Of returns what door, an *autoexpose.Door, knows; ok is false for a Door
// that serves nothing.
var Of func(door any) (d Door, ok bool)
