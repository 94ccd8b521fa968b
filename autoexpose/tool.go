package autoexpose

import (
	"net/http"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/argcheck"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
	"github.com/mcpdoor/mcpdoor/replay"
)

// A Tool is one MCP tool as mcpdoor serves it: what tools/list advertises,
// and the route a call is dispatched to.
type Tool struct {
	Name         string
	Description  string
	InputSchema  *jsonschema.Schema
	OutputSchema *jsonschema.Schema
	// SchemaSource says where the schemas came from: SourceDeclared,
	// SourceTyped, SourceOpenAPI or SourcePermissive.
	SchemaSource string
	// Route is the route that serves the tool, e.g. "POST /get_weather".
	Route string
	// Annotations are the MCP tool annotations (readOnlyHint, ...); a
	// read-only tool's failures have effect not_applied.
	Annotations *mcp.ToolAnnotations
	// Verdict and Reasons say how calls reach the route (see detector).
	Verdict detector.Verdict
	Reasons []string

	route *detector.Route // the route that serves the tool
	note  string          // why the schema is what it is, for the report
}

// tool is a Tool ready to serve: resolved schema, dispatcher.
type tool struct {
	Tool
	path   string // the request path, "/<name>"
	direct bool
	// selfChecking: the route's typed handler validates the arguments
	// itself, answering as the MCP door would.
	selfChecking bool
	resolved     *argcheck.Schema
	dispatcher   replay.Dispatcher
}

// harvest turns a tool route into a Tool. Its input schema comes from the
// declaration, the typed handler, the OpenAPI document's operation, or the
// permissive fallback, in that order; so do its description and its
// annotations, each on its own.
func harvest(rt *detector.Route, declared map[string]Declaration, doc *openapi.Document) Tool {
	t := Tool{
		Name:         rt.Name,
		Route:        rt.Method + " " + rt.Pattern,
		Verdict:      rt.Verdict,
		Reasons:      rt.Reasons,
		InputSchema:  permissiveSchema(),
		SchemaSource: SourcePermissive,
		route:        rt,
	}
	op := postOperation(doc, rt.Pattern)
	if op != nil {
		fromOpenAPI(&t, op)
	}
	if tt, ok := rt.Endpoint.(typedTool); ok {
		info := tt.typedInfo()
		t.InputSchema, t.OutputSchema, t.SchemaSource = info.input, info.output, SourceTyped
		if info.description != "" {
			t.Description = info.description
		}
		if info.annotations != nil {
			t.Annotations = info.annotations
		}
	}
	if d, ok := declared[rt.Name]; ok {
		if d.Description != "" {
			t.Description = d.Description
		}
		if d.Input != nil {
			t.InputSchema = d.Input
			t.SchemaSource = SourceDeclared
		}
		if d.Output != nil {
			t.OutputSchema = d.Output
		}
		if d.Annotations != nil {
			t.Annotations = d.Annotations
		}
	}
	if t.OutputSchema != nil && t.OutputSchema.Type != "object" {
		t.OutputSchema = nil // structuredContent is always an object
	}
	if t.Description == "" {
		t.Description = "POST " + rt.Pattern
	}
	if op != nil && op.NoInput != "" && t.SchemaSource == SourcePermissive {
		t.note = "openapi: " + op.NoInput
	}
	return t
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

// matches reports whether a tool name matches an entry of an allow-list or
// exclude list: in full, or by the name's suffix after its last "__" (the
// entry "get_quote" matches the tool "finance__get_quote").
func matches(name string, list []string) bool {
	suffix := name
	if i := strings.LastIndex(name, "__"); i >= 0 {
		suffix = name[i+2:]
	}
	for _, entry := range list {
		if entry == name || entry == suffix {
			return true
		}
	}
	return false
}

// forward copies the configured headers of the MCP request into h.
func forward(h, from http.Header, names []string) {
	for _, name := range names {
		if v := from.Values(name); len(v) > 0 {
			h[name] = v
		}
	}
}
