package autoexpose

import (
	"encoding/json"
	"strings"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/argcheck"
	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/dispatch"
)

// A toolSpec is one MCP tool as the harvest finds it: what tools/list
// advertises, the route a call is dispatched to, and how, for the
// operator's report; the catalog a client reads shows less (see
// catalogTool).
type toolSpec struct {
	Name         string
	Description  string
	InputSchema  *jsonschema.Schema
	OutputSchema *jsonschema.Schema
	// Annotations are the MCP tool annotations (readOnlyHint, ...); a
	// read-only tool's failures have effect not_applied.
	Annotations *mcp.ToolAnnotations
	// Route is the route that serves the tool, e.g. "POST /get_weather".
	Route string
	// Verdict and Reasons say how calls reach the route (see package
	// internal/detect).
	Verdict detect.Verdict
	Reasons []string
	// SchemaSource says where the input schema came from: one of the
	// source constants (schema.go), the report's Schema column.
	SchemaSource string

	route *detect.Route // the route that serves the tool
	note  string        // why the schema is what it is, for the report
	rest  *restTool     // a REST tool's request plan (see rest.go); nil for a tool route
	// bodyArg, when set, is the argument that holds the route's body,
	// which is not a JSON object (see bodyInput).
	bodyArg string
	// refusal is why the tool cannot be served as it stands (a REST tool
	// whose arguments cannot be one object); reported if the tool is kept.
	refusal error
}

// tool is a toolSpec ready to serve.
type tool struct {
	toolSpec
	path     string // the request path, "/<name>"; a REST tool's pattern
	request  string // the method and path that texts name: "POST /<name>", "GET /api/notes/{id}/"
	spanName string // its calls' span's: "tools/call <name>"
	resolved *argcheck.Schema
	// input and output are the input and output schemas as clients are
	// sent them (see advertised); output is nil for none.
	input, output json.RawMessage
	// checked is the schema the route's typed handler checks its body
	// against, when the door's own check of the arguments covers it (see
	// withChecked); nil when it does not.
	checked    *argcheck.Schema
	dispatcher dispatch.Dispatcher
	// fast reports whether the fast path may serve the tool's calls: not
	// when its input schema binds arguments to headers (x-mcp-header),
	// which the go-sdk checks.
	fast bool
	// imageBudget is the bytes of pixels an image the route answers may
	// decode to (see imageBudget).
	imageBudget int64
	// pageWarned is set once the route's answer of a page is warned of.
	pageWarned atomic.Bool
}

// mcpTool is the tool as tools/list advertises it.
func (t *tool) mcpTool() *mcp.Tool {
	mt := &mcp.Tool{
		Name:        t.Name,
		Description: t.Description,
		InputSchema: t.input,
		Annotations: t.Annotations,
	}
	if t.output != nil {
		mt.OutputSchema = t.output
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
