package telemetry

import (
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolFailure: a tools/call result's error.type is "" for a success,
// the code FailureCode reads of an isError result, else tool_error; the
// message is the result's first text.
func TestToolFailure(t *testing.T) {
	code := func(res *mcp.CallToolResult) string {
		c, _ := res.Meta["code"].(string)
		return c
	}
	failed := func(meta mcp.Meta) *mcp.CallToolResult {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "it failed"}}, Meta: meta}
	}
	for _, c := range []struct {
		name        string
		code        func(*mcp.CallToolResult) string
		res         *mcp.CallToolResult
		errType     string
		wantMessage string
	}{
		{"no result", code, nil, "", ""},
		{"success", code, &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, "", ""},
		{"the door's code", code, failed(mcp.Meta{"code": "timeout"}), "timeout", "it failed"},
		{"no code", code, failed(nil), "tool_error", "it failed"},
		{"no FailureCode", nil, failed(mcp.Meta{"code": "timeout"}), "tool_error", "it failed"},
	} {
		tel := New(Options{FailureCode: c.code})
		errType, message := tel.ToolFailure(c.res)
		if errType != c.errType || message != c.wantMessage {
			t.Errorf("%s: ToolFailure = %q, %q; want %q, %q", c.name, errType, message, c.errType, c.wantMessage)
		}
	}
}

// TestRPCFailure: a JSON-RPC error's error.type is its code, and its
// message the error's; any other error's is _OTHER, with its text.
func TestRPCFailure(t *testing.T) {
	var op Operation
	op.span = noSpan
	if errType, message := RPCFailure(&op, &jsonrpc.Error{Code: -32602, Message: "bad params"}); errType != "-32602" || message != "bad params" {
		t.Errorf("a JSON-RPC error: %q, %q; want \"-32602\", \"bad params\"", errType, message)
	}
	if errType, message := RPCFailure(&op, errors.New("mcpdoor: gone")); errType != "_OTHER" || message != "mcpdoor: gone" {
		t.Errorf("another error: %q, %q; want \"_OTHER\", \"mcpdoor: gone\"", errType, message)
	}
}
