package call

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/harvest"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
)

// arguments returns a call's arguments as the route's request (the body;
// for a REST tool, the path and query they fill in too), or the isError
// result that refuses them: over mcp.max_body_bytes, breaking the tool's
// input schema, or a path parameter's value the route cannot be sent. The
// route is then not called.
func (p *Pipeline) arguments(t *toolset.Tool, raw json.RawMessage) (input, *mcp.CallToolResult) {
	args := []byte(raw)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}") // MCP clients omit the arguments of a tool that takes none
	}
	if int64(len(args)) > p.MaxBody {
		return input{}, t.Fail(
			fmt.Sprintf("Arguments to %s are %d bytes, over the %d-byte limit (mcp.max_body_bytes).", t.Request, len(args), p.MaxBody),
			toolset.ErrorInfo{
				Code:    toolset.CodeRequestTooLarge,
				Message: fmt.Sprintf("the arguments exceed %d bytes", p.MaxBody),
				Status:  http.StatusRequestEntityTooLarge,
				Effect:  toolset.EffectNotApplied,
			})
	}
	if ae := t.Resolved.Validate(args); ae != nil {
		return input{}, t.Fail(
			fmt.Sprintf("HTTP 422 from %s: Invalid arguments for %s (checked against its input schema; the route was not called): %s", t.Request, t.Name, ae.Detail),
			toolset.ErrorInfo{
				Code:    toolset.CodeInvalidArguments,
				Message: ae.Detail,
				Fields:  ae.Fields,
				Status:  http.StatusUnprocessableEntity,
				Effect:  toolset.EffectNotApplied,
			})
	}
	switch {
	case t.REST != nil:
		return restInput(t, args)
	case t.BodyArg != "":
		return input{body: harvest.BodyMember(args, t.BodyArg)}, nil
	}
	return input{body: args}, nil
}
