package autoexpose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
)

// CatchAll is the router's catch-all dispatcher, a POST /{param} route that
// serves many tools by name. It is not a tool itself: the Tools hook appends
// the tools it backs with Tool.
type CatchAll struct {
	route *detector.Route
	// wrapped: the whole handler given to Wrap, rather than a route.
	wrapped bool
	// router is the router the dispatcher is a route of (nil for Wrap):
	// where Install looks for other routes a tool name would shadow.
	router chi.Routes
}

// Pattern returns the dispatcher's route pattern, such as "/{tool}".
func (c *CatchAll) Pattern() string { return c.route.Pattern }

// Tool returns a tool that the catch-all serves: a call is dispatched as
// POST /<name> to the dispatcher's route, with its path parameter set to name,
// directly or through the router like any other route. name must satisfy
// the tool name rule (Install checks), so it can never reach another route.
// A nil CatchAll (the router has none) returns a tool that Install refuses.
func (c *CatchAll) Tool(name string, input *jsonschema.Schema, description string) Tool {
	t := Tool{Name: name, Description: description, InputSchema: input, SchemaSource: SourceDeclared}
	if c == nil {
		return t
	}
	t.route = c.route
	t.Route, t.Verdict, t.Reasons = c.route.Method+" "+c.route.Pattern, c.route.Verdict, c.route.Reasons
	if input == nil {
		t.InputSchema, t.SchemaSource = permissiveSchema(), SourcePermissive
	}
	return t
}

// toolset decides the exposed tools: the harvested ones, through the Tools
// hook, narrowed by mcp.exclude, the OpenAPI document's x-mcp-exclude and
// mcp.tools, with the YAML's annotations; then checks the result. It returns
// the tools that passed, and every refusal.
func (d *Door) toolset(harvested []Tool, catchall *CatchAll, cfg *Config, doc *openapi.Document) ([]Tool, []error) {
	tools := harvested
	if cfg.Tools != nil {
		tools = cfg.Tools(slices.Clone(harvested), catchall)
		for _, h := range harvested {
			if !slices.ContainsFunc(tools, func(t Tool) bool { return t.route == h.route && t.Name == h.Name }) {
				d.report = append(d.report, ReportRow{Tool: h.Name, Route: h.Route, Verdict: "excluded", Reason: "dropped by the Tools hook"})
			}
		}
	}

	m := &cfg.MCP
	var kept []Tool
	for _, t := range tools {
		switch {
		case matches(t.Name, m.Exclude):
			d.report = append(d.report, ReportRow{Tool: t.Name, Route: t.Route, Verdict: "excluded", Reason: "mcp.exclude"})
		case excludedByOpenAPI(doc, t):
			d.report = append(d.report, ReportRow{Tool: t.Name, Route: t.Route, Verdict: "excluded", Reason: "x-mcp-exclude"})
		case len(m.Tools) > 0 && !matches(t.Name, m.Tools):
			d.report = append(d.report, ReportRow{Tool: t.Name, Route: t.Route, Verdict: "excluded", Reason: "not in mcp.tools"})
		default:
			if a, ok := m.Annotations[t.Name]; ok {
				t.Annotations = a.apply(t.Annotations)
			}
			kept = append(kept, t)
		}
	}
	kept, errs := checkTools(kept, catchall, m.path())
	if catchall != nil && !catchall.wrapped && !slices.ContainsFunc(kept, func(t Tool) bool { return t.route == catchall.route }) {
		d.log.Warn("mcpdoor: a catch-all dispatcher backs no MCP tool; its tools stay HTTP-only (append them in the Tools hook with catchall.Tool)",
			"route", "POST "+catchall.route.Pattern)
	}
	return kept, errs
}

// checkTools refuses tools that cannot be served: without a route, refused by
// the detector, outside the name rule, reserved, duplicated, or — for a
// catch-all tool — named like the MCP endpoint (mcpPath) or like another
// route of the router. It returns the others.
func checkTools(tools []Tool, catchall *CatchAll, mcpPath string) (ok []Tool, errs []error) {
	seen := make(map[string]string)
	refused := make(map[*detector.Route]bool) // report a refused route once
	for _, t := range tools {
		route := t.Route
		if route == "" {
			route = "tool " + t.Name
		}
		refuse := func(reason, fix string) {
			errs = append(errs, &detector.RefusedError{Route: route, Reason: reason, Fix: fix})
		}
		byCatchAll := t.route != nil && t.route.Kind == detector.CatchAll
		var shadowed []string // other routes at /<name>
		if byCatchAll && catchall != nil && catchall.router != nil && detector.ValidName(t.Name) == nil {
			shadowed = detector.RoutesAt(catchall.router, "/"+t.Name)
		}
		switch first, dup := seen[t.Name]; {
		case t.route == nil:
			refuse(fmt.Sprintf("tool %q has no route to serve it", t.Name),
				"return a harvested tool, or make it with catchall.Tool (the router needs a POST /{tool} route)")
		case t.route.Kind == detector.Tool && t.Name != t.route.Name:
			refuse(fmt.Sprintf("the Tools hook renamed the tool %q to %q; a route's tool keeps the route's name", t.route.Name, t.Name),
				"keep the name, or serve the tool at a route of that name")
		case t.route.Verdict == detector.Refused:
			if !refused[t.route] {
				errs = append(errs, t.route.Refusal())
			}
			refused[t.route] = true
		case detector.ValidName(t.Name) != nil:
			refuse(detector.ValidName(t.Name).Error(), "name the tool with letters, digits, '_' and '-' only, at most 64 characters")
		case detector.IsReserved(t.Name):
			refuse(fmt.Sprintf("tool name %q is reserved (%v are the rollout contract's routes and the MCP endpoint)", t.Name, detector.Reserved),
				"give the tool another name")
		case byCatchAll && "/"+t.Name == mcpPath:
			refuse(fmt.Sprintf("tool name %q is the MCP endpoint's path (mcp.path: %s)", t.Name, mcpPath),
				"give the tool another name, or set mcp.path to another path")
		case dup:
			refuse(fmt.Sprintf("tool name %q is also served by %s", t.Name, first), "give one of them another name, or drop one in the Tools hook")
		case len(shadowed) > 0:
			routes, whose := "the route", "that route's"
			if len(shadowed) > 1 {
				routes, whose = "the routes", "those routes'"
			}
			refuse(fmt.Sprintf("catch-all tool %q has the path of %s %s, which the HTTP door serves with %s own middlewares; a call through the dispatcher would skip them",
				t.Name, routes, strings.Join(shadowed, ", "), whose),
				"give the catch-all tool another name, or drop it in the Tools hook")
		default:
			seen[t.Name] = route
			ok = append(ok, t)
		}
	}
	return ok, errs
}

// Annotations are the MCP tool annotations the YAML sets for one tool
// (mcp.annotations). Unset fields keep what the code said.
type Annotations struct {
	Title       string `yaml:"title"`
	ReadOnly    *bool  `yaml:"read_only"`
	Destructive *bool  `yaml:"destructive"`
	Idempotent  *bool  `yaml:"idempotent"`
	OpenWorld   *bool  `yaml:"open_world"`
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
