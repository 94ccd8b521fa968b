package toolset

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/harvest"
)

// A Dispatcher is the router's catch-all route, POST /{param}, which serves
// the tools of Config.CatchAll by name; for Wrap, the wrapped handler.
type Dispatcher struct {
	Route *detect.Route
	// Router is the router the dispatcher is a route of (nil for Wrap):
	// where Install looks for other routes a tool name would shadow.
	Router chi.Routes
}

// A Selection is what the config says of the tools to expose, as Select
// reads it.
type Selection struct {
	// Dispatcher is the catch-all dispatcher, or nil for none; CatchAll
	// its tools, Config.CatchAll's (harvested).
	Dispatcher *Dispatcher
	CatchAll   []harvest.Spec
	// CatchAllNames are Config.CatchAll's names, sorted; Declared are
	// Config.Declared's.
	CatchAllNames, Declared []string
	// Include and Exclude are mcp.include and mcp.exclude.
	Include, Exclude []string
	// Annotate holds mcp.annotations: by tool name, what the YAML's
	// annotations make of the tool's own.
	Annotate map[string]func(*mcp.ToolAnnotations) *mcp.ToolAnnotations
	// ExcludedByDocument reports whether the OpenAPI document's
	// x-mcp-exclude keeps a tool off MCP.
	ExcludedByDocument func(harvest.Spec) bool
	// REST is set under mcp.rest.
	REST bool
	// MCPPath is the MCP endpoint's path (mcp.path); Reserved, the tool
	// names that are not a tool's to take.
	MCPPath  string
	Reserved []string
	Log      *slog.Logger
}

// A selector is one Select: the selection, and what it refuses and
// reports.
type selector struct {
	*Selection
	errs   []error
	report []detector.Row
}

// Select decides the exposed tools: the harvested route tools and the
// catch-all tools of Config.CatchAll, less those mcp.exclude, the OpenAPI
// document's x-mcp-exclude or mcp.include keep off MCP, with the YAML's
// annotations over them. It refuses (in errs) every tool that cannot be
// served, and every entry of Config.Declared, Config.CatchAll,
// mcp.include, mcp.exclude and mcp.annotations that names no tool: a typo
// must not leave a tool exposed, or silently hide one. The report has a
// row for each tool it keeps off MCP.
func Select(harvested []harvest.Spec, sel *Selection) (kept []harvest.Spec, report []detector.Row, errs []error) {
	b := &selector{Selection: sel}
	tools := slices.Clone(harvested)
	switch disp := sel.Dispatcher; {
	case disp != nil:
		tools = append(tools, sel.CatchAll...)
		if len(sel.CatchAllNames) == 0 && disp.Router != nil {
			sel.Log.Warn("mcpdoor: the catch-all dispatcher serves no MCP tool; its tools stay HTTP-only (declare them in Config.CatchAll)",
				"route", "POST "+disp.Route.Pattern)
		}
	case len(sel.CatchAllNames) > 0:
		them := "them"
		if len(sel.CatchAllNames) == 1 {
			them = "it"
		}
		b.errs = append(b.errs, &detect.RefusedError{
			Reason: fmt.Sprintf("Config.CatchAll declares %s, but the router has no catch-all dispatcher (a POST /{tool} route) to serve %s",
				quoted(sel.CatchAllNames), them),
			Fix: "add the dispatcher route, or serve each tool at a route of its own (POST /<name>) and describe it in Config.Declared",
		})
	}
	b.unknownNames(harvested, tools)

	for _, t := range tools {
		switch {
		case slices.ContainsFunc(sel.Exclude, func(e string) bool { return Matches(t.Name, e) }):
			b.report = append(b.report, detector.Row{Tool: t.Name, Route: t.Route, Verdict: "excluded", Reason: "mcp.exclude"})
		case sel.ExcludedByDocument != nil && sel.ExcludedByDocument(t):
			b.report = append(b.report, detector.Row{Tool: t.Name, Route: t.Route, Verdict: "excluded", Reason: "x-mcp-exclude"})
		case len(sel.Include) > 0 && !slices.ContainsFunc(sel.Include, func(e string) bool { return Matches(t.Name, e) }):
			b.report = append(b.report, detector.Row{Tool: t.Name, Route: t.Route, Verdict: "excluded", Reason: "not in mcp.include"})
		default:
			if annotate, ok := sel.Annotate[t.Name]; ok {
				t.Annotations = annotate(t.Annotations)
			}
			kept = append(kept, t)
		}
	}
	return b.check(kept), b.report, b.errs
}

// unknownNames refuses each name in the config that names no tool: in
// Config.Declared (a route's tool), mcp.include, mcp.exclude and
// mcp.annotations (any tool). Config.CatchAll's names are the catch-all
// tools themselves. Install fails before it logs the startup report, so
// the error names the likely tool, or lists them.
func (b *selector) unknownNames(harvested, all []harvest.Spec) {
	names := func(ts []harvest.Spec) []string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = t.Name
		}
		slices.Sort(out)
		return out
	}
	routeTools, allTools := names(harvested), names(all)
	refuse := func(key, name string, known []string, kind, fix string) {
		reason := fmt.Sprintf("%s names %q, which is no tool of this server", key, name)
		switch near := Nearest(name, known); {
		case near != "":
			reason += fmt.Sprintf(" (did you mean %q?)", near)
		case len(known) == 0:
			reason += fmt.Sprintf(" (it has no %ss)", kind)
		case len(known) == 1:
			reason += fmt.Sprintf(" (its only %s is %q)", kind, known[0])
		default:
			reason += fmt.Sprintf(" (its %ss are %s)", kind, listed(known))
		}
		b.errs = append(b.errs, &detect.RefusedError{Reason: reason, Fix: fix})
	}
	for _, name := range b.Declared {
		if slices.Contains(routeTools, name) {
			continue
		}
		if i := slices.IndexFunc(all, func(t harvest.Spec) bool { return t.Name == name }); i >= 0 {
			b.errs = append(b.errs, &detect.RefusedError{
				Reason: fmt.Sprintf("Config.Declared names %q, a tool of the catch-all dispatcher %s, not a route of its own", name, all[i].Route),
				Fix:    "describe it in Config.CatchAll alone",
			})
			continue
		}
		fix := "name a tool the router serves as POST /<name>, or remove the entry"
		if b.REST {
			fix = "name a tool the router serves, or remove the entry"
		}
		refuse("Config.Declared", name, routeTools, "tool route", fix)
	}
	for _, list := range []struct {
		key     string
		entries []string
	}{{"mcp.include", b.Include}, {"mcp.exclude", b.Exclude}} {
		for _, e := range list.entries {
			if !slices.ContainsFunc(allTools, func(n string) bool { return Matches(n, e) }) {
				refuse(list.key, e, allTools, "tool", "correct the name, or remove the entry")
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b.Annotate)) {
		if !slices.Contains(allTools, name) {
			refuse("mcp.annotations", name, allTools, "tool", "correct the name, or remove the entry")
		}
	}
}

// check refuses (in b.errs) the tools that cannot be served: refused by the
// detector, outside the name rule, reserved, duplicated, or a catch-all
// tool whose name another route serves (or the MCP endpoint's). It returns
// the others.
func (b *selector) check(tools []harvest.Spec) (ok []harvest.Spec) {
	seen := make(map[string]string)
	refused := make(map[*detect.Route]bool) // report a refused route once
	for _, t := range tools {
		refuse := func(reason, fix string) {
			b.errs = append(b.errs, &detect.RefusedError{Route: t.Route, Reason: reason, Fix: fix})
		}
		byCatchAll := t.Detected.Kind == detect.CatchAll
		var shadowed []string // other routes at /<name>
		if byCatchAll && b.Dispatcher != nil && b.Dispatcher.Router != nil && detect.ValidName(t.Name) == nil {
			shadowed = detect.RoutesAt(b.Dispatcher.Router, "/"+t.Name)
		}
		switch first, dup := seen[t.Name]; {
		case t.Refusal != nil:
			b.errs = append(b.errs, t.Refusal)
		case t.Detected.Verdict == detect.Refused:
			if !refused[t.Detected] {
				b.errs = append(b.errs, t.Detected.Refusal())
			}
			refused[t.Detected] = true
		case detect.ValidName(t.Name) != nil:
			refuse(detect.ValidName(t.Name).Error(), "name the tool with letters, digits, '_' and '-' only, at most 64 characters")
		case byCatchAll && "/"+t.Name == b.MCPPath:
			refuse(fmt.Sprintf("tool name %q is the MCP endpoint's path (mcp.path: %s)", t.Name, b.MCPPath),
				"give the tool another name, or set mcp.path to another path")
		case slices.Contains(b.Reserved, t.Name):
			refuse(fmt.Sprintf("tool name %q is reserved (%s)", t.Name, strings.Join(b.Reserved, ", ")), "give the tool another name")
		case len(shadowed) > 0:
			routes, whose := "the route", "that route's"
			if len(shadowed) > 1 {
				routes, whose = "the routes", "those routes'"
			}
			refuse(fmt.Sprintf("catch-all tool %q has the path of %s %s, which the HTTP door serves with %s own middlewares; a call through the dispatcher would skip them",
				t.Name, routes, strings.Join(shadowed, ", "), whose),
				"give the catch-all tool another name in Config.CatchAll")
		case dup:
			refuse(fmt.Sprintf("tool name %q is also served by %s", t.Name, first), "give one of them another name, or keep one off MCP with mcp.exclude")
		default:
			seen[t.Name] = t.Route
			ok = append(ok, t)
		}
	}
	return ok
}

// quoted writes names as "a", "b" and "c".
func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// listed writes names as quoted does, up to ten of them:
// "a", "b", ... "j" and 5 more.
func listed(names []string) string {
	const most = 10
	if len(names) <= most {
		return quoted(names)
	}
	q := make([]string, most)
	for i, n := range names[:most] {
		q[i] = fmt.Sprintf("%q", n)
	}
	return fmt.Sprintf("%s and %d more", strings.Join(q, ", "), len(names)-most)
}

// Nearest returns the name of known closest to name by edit distance, when
// it is close enough to be a likely typo, or "".
func Nearest(name string, known []string) string {
	best, bestDist := "", len(name)/3+1
	for _, k := range known {
		if d := editDistance(name, k); d < bestDist || d == bestDist && best != "" && k < best {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
