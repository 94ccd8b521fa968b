package autoexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/argcheck"
	"github.com/mcpdoor/mcpdoor/internal/harvest"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
)

// arguments returns a call's arguments as the route's request (the body;
// for a REST tool, the path and query they fill in too), or the isError
// result that refuses them: over mcp.max_body_bytes, breaking the tool's
// input schema, or a path parameter's value the route cannot be sent. The
// route is then not called.
func (c *calls) arguments(t *toolset.Tool, raw json.RawMessage) (input, *mcp.CallToolResult) {
	args := []byte(raw)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}") // MCP clients omit the arguments of a tool that takes none
	}
	if int64(len(args)) > c.maxBody {
		return input{}, t.Fail(
			fmt.Sprintf("Arguments to %s are %d bytes, over the %d-byte limit (mcp.max_body_bytes).", t.Request, len(args), c.maxBody),
			toolset.ErrorInfo{
				Code:    toolset.CodeRequestTooLarge,
				Message: fmt.Sprintf("the arguments exceed %d bytes", c.maxBody),
				Status:  http.StatusRequestEntityTooLarge,
				Effect:  toolset.EffectNotApplied,
			})
	}
	if ae := validateArgs(t.Resolved, args); ae != nil {
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

// argError is what is wrong with arguments that break a tool's input
// schema. When several things are wrong, it names every missing required
// field first; failing that, every unknown field; then a value of the wrong
// type; then any other broken keyword, the first field in sorted order.
type argError struct {
	// Fields are the offending fields, as dotted paths ("city",
	// "address.zip", "tags[]" for an item of tags, "scores.ada" for a key of
	// the map scores); empty when the arguments as a whole are wrong.
	Fields []string `json:"fields"`
	// Detail says what is wrong, in words a model can act on.
	Detail string `json:"detail"`
}

// body is the JSON body of a typed handler's 422 response.
func (e *argError) body() []byte {
	fields := e.Fields
	if fields == nil {
		fields = []string{}
	}
	b, _ := json.Marshal(struct {
		Error  string   `json:"error"`
		Fields []string `json:"fields"`
		Detail string   `json:"detail"`
	}{"invalid arguments", fields, e.Detail})
	return b
}

// validateArgs checks JSON arguments against a compiled input schema.
func validateArgs(cs *argcheck.Schema, args []byte) *argError {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return notJSON(err)
	}
	return checkValue(cs, v)
}

// notJSON is the argError of arguments that do not decode.
func notJSON(err error) *argError {
	return &argError{Detail: "arguments are not valid JSON: " + err.Error()}
}

// checkValue checks decoded JSON arguments against a compiled input schema.
func checkValue(cs *argcheck.Schema, v any) *argError {
	if f := cs.Check(v); f != nil {
		return &argError{Fields: f.Fields, Detail: f.Detail}
	}
	return nil
}

// checked records, in a dispatched request's context, the arguments the
// door has validated and against which schema, so that a typed handler
// with that schema does not check the same bytes again.
type checked struct {
	schema *argcheck.Schema
	args   []byte
}

type checkedKey struct{}

func withChecked(ctx context.Context, cs *argcheck.Schema, args []byte) context.Context {
	return context.WithValue(ctx, checkedKey{}, &checked{cs, args})
}

// alreadyChecked reports whether body is what the door validated against
// cs for the request of ctx.
func alreadyChecked(ctx context.Context, cs *argcheck.Schema, body []byte) bool {
	c, _ := ctx.Value(checkedKey{}).(*checked)
	return c != nil && c.schema == cs && bytes.Equal(c.args, body)
}
