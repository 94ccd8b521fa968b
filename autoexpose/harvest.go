package autoexpose

import (
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/harvest"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
)

// What a tool says of itself comes from several places. Each of its
// description, input schema, output schema and annotations is taken from
// the first of these that gives it:
//
//  1. for annotations only, the YAML's mcp.annotations, field by field;
//  2. Config.Declared (a route's tool) or Config.CatchAll (a catch-all
//     tool);
//  3. the route's typed handler (Handler, with Describe and Annotate);
//  4. the route's operation in the OpenAPI document (Config.OpenAPI);
//  5. the facts mcpdoor gen wrote for the route's handler (Generated);
//  6. the defaults: the description "POST /<name>", a permissive object
//     input schema, no output schema, no annotations.
//
// An output schema is advertised only when it describes an object, since
// structuredContent is always one: the output schema of a route that
// answers a JSON array (an OpenAPI list operation's) is not advertised,
// and its calls' results carry the array as text, without
// structuredContent.

// harvestRoute turns a tool route into a harvest.Spec (steps 2 to 6 above; toolset
// applies step 1); gen is the generated facts of its handler, or nil.
func harvestRoute(rt *detect.Route, declared map[string]Declaration, doc *openapi.Document, gen *genHandler) harvest.Spec {
	t := harvest.Spec{
		Name:         rt.Name,
		Route:        rt.Method + " " + rt.Pattern,
		Verdict:      rt.Verdict,
		Reasons:      rt.Reasons,
		InputSchema:  permissiveSchema(),
		SchemaSource: sourcePermissive,
		Detected:     rt,
	}
	op := operationOf(doc, rt)
	if op != nil {
		fromOpenAPI(&t, op)
	}
	gen.fillTool(&t)
	if tt, ok := rt.Endpoint.(typedTool); ok {
		info := tt.typedInfo()
		t.InputSchema, t.OutputSchema, t.SchemaSource = info.input, info.output, sourceTyped
		if info.description != "" {
			t.Description = info.description
		}
		if info.annotations != nil {
			t.Annotations = info.annotations
		}
	}
	if d, ok := declared[rt.Name]; ok {
		declare(&t, d)
	}
	finishTool(&t)
	if op != nil && op.NoInput != "" && t.SchemaSource == sourcePermissive {
		t.Note = "openapi: " + op.NoInput
	}
	return t
}

// catchAllTools returns the tools Config.CatchAll declares, each served by
// the catch-all route rt, sorted by name.
func catchAllTools(rt *detect.Route, decls map[string]Declaration) []harvest.Spec {
	var tools []harvest.Spec
	for _, name := range slices.Sorted(maps.Keys(decls)) {
		t := harvest.Spec{
			Name:         name,
			Route:        rt.Method + " " + rt.Pattern,
			Verdict:      rt.Verdict,
			Reasons:      rt.Reasons,
			InputSchema:  permissiveSchema(),
			SchemaSource: sourcePermissive,
			Detected:     rt,
		}
		declare(&t, decls[name])
		finishTool(&t)
		tools = append(tools, t)
	}
	return tools
}

// declare sets what a declaration gives over t.
func declare(t *harvest.Spec, d Declaration) {
	if d.Description != "" {
		t.Description = d.Description
	}
	if d.Input != nil {
		t.InputSchema, t.SchemaSource = d.Input, sourceDeclared
	}
	if d.Output != nil {
		t.OutputSchema = d.Output
	}
	if d.Annotations != nil {
		t.Annotations = d.Annotations
	}
}

// finishTool applies the defaults of what nothing gave, and makes a body
// that is not an object the argument "body" (see bodyInput).
func finishTool(t *harvest.Spec) {
	if t.InputSchema != nil && !objectBody(t.InputSchema) {
		t.InputSchema, t.BodyArg = bodyInput(t.InputSchema), bodyArgument
	}
	if t.OutputSchema != nil && t.OutputSchema.Type != "object" {
		t.OutputSchema = nil // structuredContent is always an object
	}
	if t.Description == "" {
		t.Description = "POST /" + t.Name
	}
}

// apply returns base with a's fields set over it.
func (a Annotations) apply(base *mcp.ToolAnnotations) *mcp.ToolAnnotations {
	var out mcp.ToolAnnotations
	if base != nil {
		out = *base
	}
	if a.Title != "" {
		out.Title = a.Title
	}
	if a.ReadOnly != nil {
		out.ReadOnlyHint = *a.ReadOnly
	}
	if a.Destructive != nil {
		out.DestructiveHint = a.Destructive
	}
	if a.Idempotent != nil {
		out.IdempotentHint = *a.Idempotent
	}
	if a.OpenWorld != nil {
		out.OpenWorldHint = a.OpenWorld
	}
	return &out
}
