package harvest

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
	"github.com/mcpdoor/mcpdoor/internal/pattern"
)

// PostOperation returns the document's POST operation on path, or nil.
func PostOperation(doc *openapi.Document, path string) *openapi.Operation {
	if doc == nil {
		return nil
	}
	return doc.Operation(http.MethodPost, path)
}

// operationOf returns the document's operation of the route rt (see
// describes), or nil.
func operationOf(doc *openapi.Document, rt *detect.Route) *openapi.Operation {
	if doc == nil {
		return nil
	}
	for _, op := range doc.Operations {
		if describes(op, rt) {
			return op
		}
	}
	return nil
}

// describes reports whether op is the operation of the route rt: the same
// method, and a full path (the document's base, then its path) that the
// router serves the route at, chi regexps aside: the route's pattern, or
// for a sub-router's "/" route (rt.Bare) the pattern without its trailing
// slash. A trailing slash makes another route: the operation of /summary
// does not describe GET /summary/.
func describes(op *openapi.Operation, rt *detect.Route) bool {
	if op.Method != rt.Method {
		return false
	}
	want, got := pattern.Shape(op.Path), pattern.Shape(rt.Pattern)
	return want == got || rt.Bare && want == strings.TrimSuffix(got, "/")
}

// serves reports whether the route rt of the report serves op: describes
// it, or is the row of a route that serves every method (Handle, Mount)
// at its path.
func serves(rt *detect.Route, op *openapi.Operation) bool {
	if rt.Method == "ANY" {
		any := *rt
		any.Method = op.Method
		return describes(op, &any)
	}
	return describes(op, rt)
}

// fromOpenAPI sets what an operation says of its tool: the input schema
// (when the operation has one), the output schema, the description and
// the annotations.
func fromOpenAPI(t *Spec, op *openapi.Operation) {
	switch {
	case op.Input != nil:
		t.InputSchema, t.SchemaSource = op.Input, SourceOpenAPI
	case op.Body != nil: // an array: finishTool makes it the argument "body"
		t.InputSchema, t.SchemaSource = op.Body, SourceOpenAPI
	}
	t.OutputSchema = op.Output
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
	return Annotate(nil, a.Title, a.ReadOnly, a.Destructive, a.Idempotent, a.OpenWorld)
}

// ExcludedByDocument reports whether the document marks the operation of a
// harvested tool's route x-mcp-exclude.
func ExcludedByDocument(doc *openapi.Document, t Spec) bool {
	if t.REST != nil {
		return t.REST.Op != nil && t.REST.Op.Exclude
	}
	if t.Detected == nil || t.Detected.Kind != detect.Tool {
		return false
	}
	op := PostOperation(doc, t.Detected.Pattern)
	return op != nil && op.Exclude
}

// Unserved returns a report row for each POST operation of the document
// (under mcp.rest, each operation of a REST method) that no route of the
// router serves, and logs a warning for each (and for each of the
// document's own warnings): the document and the router disagree. The
// warning names the routes the router has at about that path, of another
// method, with or without a trailing slash, or with other parameter names,
// which the operation may have meant.
// rest is set under mcp.rest.
func Unserved(doc *openapi.Document, rep *detect.Report, rest bool, log *slog.Logger) (rows []detector.Row) {
	if doc == nil {
		return nil
	}
	for _, w := range doc.Warnings {
		log.Warn("mcpdoor: " + w)
	}
	for _, op := range doc.Operations {
		if op.Exclude {
			continue
		}
		if rest {
			if !slices.Contains(detect.RESTMethods(), op.Method) || slices.ContainsFunc(rep.Routes, func(rt detect.Route) bool { return serves(&rt, op) }) {
				continue
			}
		} else if op.Method != http.MethodPost || rep.Route(op.Path) != nil {
			continue
		}
		route := op.Method + " " + op.Path
		reason := fmt.Sprintf("the OpenAPI document describes it (line %d), but no route serves it", op.Line)
		if near := nearRoutes(rep, op); len(near) > 0 {
			reason += "; the router has " + strings.Join(near, ", ") + " (a method, a trailing slash or a parameter's name makes another route)"
		}
		rows = append(rows, detector.Row{Route: route, Verdict: "unserved", Reason: reason})
		log.Warn("mcpdoor: "+reason, "route", route)
	}
	return rows
}

// nearRoutes returns the routes of rep at op's path but for its method, a
// trailing slash and the names of its parameters, "METHOD pattern", sorted.
func nearRoutes(rep *detect.Report, op *openapi.Operation) []string {
	key := anyParams(pattern.Key(op.Path))
	var out []string
	for _, rt := range rep.Routes {
		if anyParams(pattern.Key(rt.Pattern)) == key {
			out = append(out, rt.Method+" "+rt.Pattern)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// anyParams returns a pattern key (see pattern.Key) with its parameters'
// names left out: "/notes/{}".
func anyParams(key string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(key, '{')
		j := strings.IndexByte(key[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(key)
			return b.String()
		}
		b.WriteString(key[:i] + "{}")
		key = key[i+j+1:]
	}
}

// DocumentTools returns a tool for each POST operation of doc that is not
// marked x-mcp-exclude, in the document's order; none for a nil doc.
//
// Each tool is named after its path without the leading slash ("/add_book"
// gives add_book; a path that breaks the tool name rule, such as
// /books/{id}, gives a name that checkTools refuses, naming the route), and
// has Route "POST <path>", Verdict Replay, the operation's input schema
// (SchemaSource openapi; permissive, when the operation has none, e.g. a
// form body, with the reason for the report), description and annotations.
// Its route is unset: the caller gives each tool what dispatches it.
func DocumentTools(doc *openapi.Document) []Spec {
	if doc == nil {
		return nil
	}
	var tools []Spec
	for _, op := range doc.Operations {
		if op.Method != http.MethodPost || op.Exclude {
			continue
		}
		t := Spec{
			Name:         strings.TrimPrefix(op.Path, "/"),
			Route:        "POST " + op.Path,
			InputSchema:  permissiveSchema(),
			SchemaSource: SourcePermissive,
			Verdict:      detect.Replay,
		}
		fromOpenAPI(&t, op)
		finishTool(&t)
		if op.NoInput != "" {
			t.Note = "openapi: " + op.NoInput
		}
		tools = append(tools, t)
	}
	return tools
}
