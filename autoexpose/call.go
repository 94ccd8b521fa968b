package autoexpose

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/call"
	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
)

// calls is what a door's endpoint and transports share of its tool calls:
// the pipeline that serves each one (internal/call), and what the endpoint
// and the transports read besides.
type calls struct {
	pipe *call.Pipeline
	// contract is the rollout contract, the admission point of tokens; nil
	// when it is off, and every call is tokenless.
	contract  *rollout.Contract
	sessions  *sessions.Manager
	inflight  edge.Inflight // the HTTP requests carrying calls
	maxBody   int64         // mcp.max_body_bytes
	stateless bool          // the transport is stateless Streamable HTTP
	slots     *callSlots    // mcp.max_concurrent_calls, for the go-sdk's calls
}

// call serves one tools/call of t (see call.Pipeline.Call): mc is the MCP
// call as the transport that carried it made it (mcpcall.New for the
// go-sdk's, fastpath.go for the fast path's); nil for none.
func (c *calls) call(ctx context.Context, t *toolset.Tool, req *mcp.CallToolRequest, mc *mcpcall.Call) (*mcp.CallToolResult, error) {
	return c.pipe.Call(ctx, t, req, mc)
}

// identity returns who a request that may open an MCP session comes from,
// for the exclusive slot (see call.Pipeline.Identity).
func (c *calls) identity(r *http.Request) (who string, token bool) { return c.pipe.Identity(r) }

// liveSessions returns the ids of the live MCP sessions.
func (c *calls) liveSessions() map[string]bool { return c.pipe.LiveSessions() }
