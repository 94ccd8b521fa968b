package autoexpose

import (
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/argcheck"
	"github.com/mcpdoor/mcpdoor/replay"
)

// A Tool is one MCP tool as mcpdoor serves it: what tools/list advertises,
// and the route a call is dispatched to.
type Tool struct {
	Name         string
	Description  string
	InputSchema  *jsonschema.Schema
	OutputSchema *jsonschema.Schema
	// SchemaSource says where the input schema came from.
	SchemaSource SchemaSource
	// Route is the route that serves the tool, e.g. "POST /get_weather".
	Route string
	// Annotations are the MCP tool annotations (readOnlyHint, ...); a
	// read-only tool's failures have effect not_applied.
	Annotations *mcp.ToolAnnotations
	// Verdict and Reasons say how calls reach the route (see package
	// detector).
	Verdict detector.Verdict
	Reasons []string

	route *detector.Route // the route that serves the tool
	note  string          // why the schema is what it is, for the report
}

// tool is a Tool ready to serve.
type tool struct {
	Tool
	path       string // the request path, "/<name>"
	resolved   *argcheck.Schema
	dispatcher replay.Dispatcher
	// fast reports whether the fast path may serve the tool's calls: not
	// when its input schema binds arguments to headers (x-mcp-header),
	// which the go-sdk checks.
	fast bool
}

// mcpTool is the tool as tools/list advertises it.
func (t *tool) mcpTool() *mcp.Tool {
	mt := &mcp.Tool{
		Name:        t.Name,
		Description: t.Description,
		InputSchema: t.InputSchema,
		Annotations: t.Annotations,
	}
	if t.OutputSchema != nil {
		mt.OutputSchema = t.OutputSchema
	}
	return mt
}

// readOnly reports whether the tool declares it changes nothing.
func (t *tool) readOnly() bool { return t.Annotations != nil && t.Annotations.ReadOnlyHint }

// matches reports whether a tool name matches an entry of mcp.include or
// mcp.exclude: in full, or by the name's suffix after its last "__" (the
// entry "get_quote" matches the tool "finance__get_quote").
func matches(name, entry string) bool {
	if entry == name {
		return true
	}
	i := strings.LastIndex(name, "__")
	return i >= 0 && name[i+2:] == entry
}
