package harvest

import (
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/detect"
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

// Route turns a tool route into a Spec (steps 2 to 6 above; toolset
// applies step 1); gens holds the generated facts of its handler.
func Route(rt *detect.Route, declared map[string]Declaration, doc *openapi.Document, gens *GenIndex) Spec {
	gen := gens.of(rt, rt.Name)
	t := Spec{
		Name:         rt.Name,
		Route:        rt.Method + " " + rt.Pattern,
		Verdict:      rt.Verdict,
		Reasons:      rt.Reasons,
		InputSchema:  permissiveSchema(),
		SchemaSource: SourcePermissive,
		Detected:     rt,
	}
	op := operationOf(doc, rt)
	if op != nil {
		fromOpenAPI(&t, op)
	}
	gen.fillTool(&t)
	if info := typedInfo(rt.Endpoint); info != nil {
		t.InputSchema, t.OutputSchema, t.SchemaSource = info.Input, info.Output, SourceTyped
		if info.Description != "" {
			t.Description = info.Description
		}
		if info.Annotations != nil {
			t.Annotations = info.Annotations
		}
	}
	if d, ok := declared[rt.Name]; ok {
		declare(&t, d)
	}
	finishTool(&t)
	if op != nil && op.NoInput != "" && t.SchemaSource == SourcePermissive {
		t.Note = "openapi: " + op.NoInput
	}
	return t
}

// CatchAll returns the tools Config.CatchAll declares, each served by
// the catch-all route rt, sorted by name.
func CatchAll(rt *detect.Route, decls map[string]Declaration) []Spec {
	var tools []Spec
	for _, name := range slices.Sorted(maps.Keys(decls)) {
		t := Spec{
			Name:         name,
			Route:        rt.Method + " " + rt.Pattern,
			Verdict:      rt.Verdict,
			Reasons:      rt.Reasons,
			InputSchema:  permissiveSchema(),
			SchemaSource: SourcePermissive,
			Detected:     rt,
		}
		declare(&t, decls[name])
		finishTool(&t)
		tools = append(tools, t)
	}
	return tools
}

// declare sets what a declaration gives over t.
func declare(t *Spec, d Declaration) {
	if d.Description != "" {
		t.Description = d.Description
	}
	if d.Input != nil {
		t.InputSchema, t.SchemaSource = d.Input, SourceDeclared
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
func finishTool(t *Spec) {
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

// Annotate returns base with the hints given set over it: a title that
// is not empty, a hint that is not nil.
func Annotate(base *mcp.ToolAnnotations, title string, readOnly, destructive, idempotent, openWorld *bool) *mcp.ToolAnnotations {
	var out mcp.ToolAnnotations
	if base != nil {
		out = *base
	}
	if title != "" {
		out.Title = title
	}
	if readOnly != nil {
		out.ReadOnlyHint = *readOnly
	}
	if destructive != nil {
		out.DestructiveHint = destructive
	}
	if idempotent != nil {
		out.IdempotentHint = *idempotent
	}
	if openWorld != nil {
		out.OpenWorldHint = openWorld
	}
	return &out
}
