// Package toolset holds the tools a door serves: the Tool, ready to serve,
// made of a harvested spec; which of the harvested tools the door serves;
// and the isError result of a failed call.
package toolset

import (
	"encoding/json"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/argcheck"
	"github.com/mcpdoor/mcpdoor/internal/dispatch"
	"github.com/mcpdoor/mcpdoor/internal/harvest"
)

// A Tool is a harvest.Spec ready to serve.
type Tool struct {
	harvest.Spec
	Path     string // the request path, "/<name>"; a REST tool's pattern
	Request  string // the method and path that texts name: "POST /<name>", "GET /api/notes/{id}/"
	SpanName string // its calls' span's: "tools/call <name>"
	Resolved *argcheck.Schema
	// Input and Output are the input and output schemas as clients are
	// sent them (see harvest.Advertised); Output is nil for none.
	Input, Output json.RawMessage
	// Checked is the schema the route's typed handler checks its body
	// against, when the door's own check of the arguments covers it (see
	// argcheck.WithChecked); nil when it does not.
	Checked    *argcheck.Schema
	Dispatcher dispatch.Dispatcher
	// Fast reports whether the fast path may serve the tool's calls: not
	// when its input schema binds arguments to headers (x-mcp-header),
	// which the go-sdk checks.
	Fast bool
	// ImageBudget is the bytes of pixels an image the route answers may
	// decode to (see call.ImageBudget).
	ImageBudget int64
	// PageWarned is set once the route's answer of a page is warned of.
	PageWarned atomic.Bool
}

// MCPTool is the tool as tools/list advertises it.
func (t *Tool) MCPTool() *mcp.Tool {
	mt := &mcp.Tool{
		Name:        t.Name,
		Description: t.Description,
		InputSchema: t.Input,
		Annotations: t.Annotations,
	}
	if t.Output != nil {
		mt.OutputSchema = t.Output
	}
	return mt
}

// ReadOnly reports whether the tool declares it changes nothing.
func (t *Tool) ReadOnly() bool { return t.Annotations != nil && t.Annotations.ReadOnlyHint }

// Matches reports whether a tool name matches an entry of mcp.include or
// mcp.exclude: in full, or by the name's suffix after its last "__" (the
// entry "get_quote" matches the tool "finance__get_quote").
func Matches(name, entry string) bool {
	if entry == name {
		return true
	}
	i := strings.LastIndex(name, "__")
	return i >= 0 && name[i+2:] == entry
}
