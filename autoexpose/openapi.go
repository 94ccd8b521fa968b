package autoexpose

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
)

// loadOpenAPI reads Config.OpenAPI. It returns nil without one.
func loadOpenAPI(cfg *Config) (*openapi.Document, error) {
	if cfg.OpenAPI == nil {
		return nil, nil
	}
	doc, err := openapi.Load(cfg.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("mcpdoor: Config.OpenAPI: %w", err)
	}
	return doc, nil
}

// postOperation returns the document's POST operation on path, or nil.
func postOperation(doc *openapi.Document, path string) *openapi.Operation {
	if doc == nil {
		return nil
	}
	return doc.Operation(http.MethodPost, path)
}

// fromOpenAPI sets what an operation says of its tool: the input schema
// (when the operation has one), the description and the annotations.
func fromOpenAPI(t *toolSpec, op *openapi.Operation) {
	if op.Input != nil {
		t.InputSchema, t.SchemaSource = op.Input, sourceOpenAPI
	}
	t.Description = operationDescription(op)
	t.Annotations = operationAnnotations(op)
}

// operationDescription is an operation's summary, then its description.
func operationDescription(op *openapi.Operation) string {
	switch {
	case op.Summary == "":
		return op.Description
	case op.Description == "" || op.Description == op.Summary:
		return op.Summary
	}
	return op.Summary + "\n\n" + op.Description
}

// operationAnnotations are an operation's x-mcp- hints as MCP annotations,
// or nil when it gives none.
func operationAnnotations(op *openapi.Operation) *mcp.ToolAnnotations {
	a := op.Annotations
	if a.IsZero() {
		return nil
	}
	return Annotations{Title: a.Title, ReadOnly: a.ReadOnly, Destructive: a.Destructive, Idempotent: a.Idempotent, OpenWorld: a.OpenWorld}.apply(nil)
}

// excludedByOpenAPI reports whether the document marks the operation of a
// harvested tool's route x-mcp-exclude.
func excludedByOpenAPI(doc *openapi.Document, t toolSpec) bool {
	if t.rest != nil {
		return t.rest.op != nil && t.rest.op.Exclude
	}
	if t.route == nil || t.route.Kind != detect.Tool {
		return false
	}
	op := postOperation(doc, t.route.Pattern)
	return op != nil && op.Exclude
}

// unserved returns a report row for each POST operation of the document
// (under mcp.rest, each operation of a REST method) that no route of the
// router serves, and logs a warning for each (and for each of the
// document's own warnings): the document and the router disagree.
func (b *builder) unserved(doc *openapi.Document, rep *detect.Report) {
	if doc == nil {
		return
	}
	for _, w := range doc.Warnings {
		b.log.Warn("mcpdoor: " + w)
	}
	for _, op := range doc.Operations {
		if b.cfg.MCP.REST != nil {
			if op.Exclude || !slices.Contains(detect.RESTMethods(), op.Method) || restServed(rep, op) {
				continue
			}
		} else if op.Method != http.MethodPost || op.Exclude || rep.Route(op.Path) != nil {
			continue
		}
		route := op.Method + " " + op.Path
		reason := fmt.Sprintf("the OpenAPI document describes it (line %d), but no route serves it", op.Line)
		b.report = append(b.report, detector.Row{Route: route, Verdict: "unserved", Reason: reason})
		b.log.Warn("mcpdoor: "+reason, "route", route)
	}
}

// documentTools returns a tool for each POST operation of doc that is not
// marked x-mcp-exclude, in the document's order; none for a nil doc.
//
// Each tool is named after its path without the leading slash ("/add_book"
// gives add_book; a path that breaks the tool name rule, such as
// /books/{id}, gives a name that checkTools refuses, naming the route), and
// has Route "POST <path>", Verdict Replay, the operation's input schema
// (SchemaSource openapi; permissive, when the operation has none, e.g. a
// form body, with the reason for the report), description and annotations.
// Its route is unset: the caller gives each tool what dispatches it.
func documentTools(doc *openapi.Document) []toolSpec {
	if doc == nil {
		return nil
	}
	var tools []toolSpec
	for _, op := range doc.Operations {
		if op.Method != http.MethodPost || op.Exclude {
			continue
		}
		t := toolSpec{
			Name:         strings.TrimPrefix(op.Path, "/"),
			Route:        "POST " + op.Path,
			InputSchema:  permissiveSchema(),
			SchemaSource: sourcePermissive,
			Verdict:      detect.Replay,
		}
		fromOpenAPI(&t, op)
		finishTool(&t)
		if op.NoInput != "" {
			t.note = "openapi: " + op.NoInput
		}
		tools = append(tools, t)
	}
	return tools
}
