package harvest

import (
	"log/slog"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/argcheck"
)

// TypedInfo is what a typed handler (autoexpose.Handler) carries for the
// harvest: what it tells MCP clients of its tool, and its schemas.
type TypedInfo struct {
	Description string
	Annotations *mcp.ToolAnnotations
	Input       *jsonschema.Schema
	Resolved    *argcheck.Schema
	Output      *jsonschema.Schema

	// What Install sets for the route it serves (Configure):
	// mcp.max_body_bytes and Config.Logger; 0 and nil before an Install.
	// Atomic, since a handler may serve before an Install. The handler
	// reads them itself, so that a call runs no code of this package.
	MaxBody atomic.Int64
	Log     atomic.Pointer[slog.Logger]
}

// Configure gives a typed handler the limit and logger of the door that
// serves its route.
func (t *TypedInfo) Configure(maxBody int64, log *slog.Logger) {
	t.MaxBody.Store(maxBody)
	t.Log.Store(log)
}

// Typed is implemented by the handlers autoexpose.Handler makes.
type Typed interface {
	TypedInfo() *TypedInfo
}

// typedInfo returns the typed handler's info of h, or nil when h is no
// typed handler.
func typedInfo(h any) *TypedInfo {
	if tt, ok := h.(Typed); ok {
		return tt.TypedInfo()
	}
	return nil
}
