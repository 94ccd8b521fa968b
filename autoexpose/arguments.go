package autoexpose

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// arguments returns a call's arguments as the route's request (the body;
// for a REST tool, the path and query they fill in too), or the isError
// result that refuses them: over mcp.max_body_bytes, breaking the tool's
// input schema, or a path parameter's value the route cannot be sent. The
// route is then not called.
func (c *calls) arguments(t *tool, raw json.RawMessage) (input, *mcp.CallToolResult) {
	args := []byte(raw)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}") // MCP clients omit the arguments of a tool that takes none
	}
	if int64(len(args)) > c.maxBody {
		return input{}, t.fail(
			fmt.Sprintf("Arguments to %s are %d bytes, over the %d-byte limit (mcp.max_body_bytes).", t.request, len(args), c.maxBody),
			errorInfo{
				Code:    codeRequestTooLarge,
				Message: fmt.Sprintf("the arguments exceed %d bytes", c.maxBody),
				Status:  http.StatusRequestEntityTooLarge,
				Effect:  effectNotApplied,
			})
	}
	if ae := t.resolved.Validate(args); ae != nil {
		return input{}, t.fail(
			fmt.Sprintf("HTTP 422 from %s: Invalid arguments for %s (checked against its input schema; the route was not called): %s", t.request, t.Name, ae.Detail),
			errorInfo{
				Code:    codeInvalidArguments,
				Message: ae.Detail,
				Fields:  ae.Fields,
				Status:  http.StatusUnprocessableEntity,
				Effect:  effectNotApplied,
			})
	}
	switch {
	case t.rest != nil:
		return t.restInput(args)
	case t.bodyArg != "":
		return input{body: bodyMember(args, t.bodyArg)}, nil
	}
	return input{body: args}, nil
}
