package autoexpose

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
)

// A dispatcher is the router's catch-all route, POST /{param}, which serves
// the tools of Config.CatchAll by name; for Wrap, the wrapped handler.
type dispatcher struct {
	route *detect.Route
	// router is the router the dispatcher is a route of (nil for Wrap):
	// where Install looks for other routes a tool name would shadow.
	router chi.Routes
}

// toolset decides the exposed tools: the harvested route tools and the
// catch-all tools of Config.CatchAll, less those mcp.exclude, the OpenAPI
// document's x-mcp-exclude or mcp.include keep off MCP, with the YAML's
// annotations over them. It refuses (in b.errs) every tool that cannot be
// served, and every entry of Config.Declared, Config.CatchAll,
// mcp.include, mcp.exclude and mcp.annotations that names no tool: a typo
// must not leave a tool exposed, or silently hide one.
func (b *builder) toolset(harvested []toolSpec, disp *dispatcher, doc *openapi.Document) []toolSpec {
	cfg, m := b.cfg, &b.cfg.MCP
	tools := slices.Clone(harvested)
	switch {
	case disp != nil:
		tools = append(tools, catchAllTools(disp.route, cfg.CatchAll)...)
		if len(cfg.CatchAll) == 0 && disp.router != nil {
			b.log.Warn("mcpdoor: the catch-all dispatcher serves no MCP tool; its tools stay HTTP-only (declare them in Config.CatchAll)",
				"route", "POST "+disp.route.Pattern)
		}
	case len(cfg.CatchAll) > 0:
		them := "them"
		if len(cfg.CatchAll) == 1 {
			them = "it"
		}
		b.errs = append(b.errs, &detect.RefusedError{
			Reason: fmt.Sprintf("Config.CatchAll declares %s, but the router has no catch-all dispatcher (a POST /{tool} route) to serve %s",
				quoted(slices.Sorted(maps.Keys(cfg.CatchAll))), them),
			Fix: "add the dispatcher route, or serve each tool at a route of its own (POST /<name>) and describe it in Config.Declared",
		})
	}
	b.unknownNames(harvested, tools)

	var kept []toolSpec
	for _, t := range tools {
		switch {
		case slices.ContainsFunc(m.Exclude, func(e string) bool { return matches(t.Name, e) }):
			b.report = append(b.report, detector.Row{Tool: t.Name, Route: t.Route, Verdict: "excluded", Reason: "mcp.exclude"})
		case excludedByOpenAPI(doc, t):
			b.report = append(b.report, detector.Row{Tool: t.Name, Route: t.Route, Verdict: "excluded", Reason: "x-mcp-exclude"})
		case len(m.Include) > 0 && !slices.ContainsFunc(m.Include, func(e string) bool { return matches(t.Name, e) }):
			b.report = append(b.report, detector.Row{Tool: t.Name, Route: t.Route, Verdict: "excluded", Reason: "not in mcp.include"})
		default:
			if a, ok := m.Annotations[t.Name]; ok {
				t.Annotations = a.apply(t.Annotations)
			}
			kept = append(kept, t)
		}
	}
	return b.check(kept, disp)
}

// unknownNames refuses each name in the config that names no tool: in
// Config.Declared (a route's tool), mcp.include, mcp.exclude and
// mcp.annotations (any tool). Config.CatchAll's names are the catch-all
// tools themselves. Install fails before it logs the startup report, so
// the error names the likely tool, or lists them.
func (b *builder) unknownNames(harvested, all []toolSpec) {
	names := func(ts []toolSpec) []string {
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
		switch near := nearest(name, known); {
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
	cfg, m := b.cfg, &b.cfg.MCP
	for _, name := range slices.Sorted(maps.Keys(cfg.Declared)) {
		if slices.Contains(routeTools, name) {
			continue
		}
		if i := slices.IndexFunc(all, func(t toolSpec) bool { return t.Name == name }); i >= 0 {
			b.errs = append(b.errs, &detect.RefusedError{
				Reason: fmt.Sprintf("Config.Declared names %q, a tool of the catch-all dispatcher %s, not a route of its own", name, all[i].Route),
				Fix:    "describe it in Config.CatchAll alone",
			})
			continue
		}
		fix := "name a tool the router serves as POST /<name>, or remove the entry"
		if m.REST != nil {
			fix = "name a tool the router serves, or remove the entry"
		}
		refuse("Config.Declared", name, routeTools, "tool route", fix)
	}
	for _, list := range []struct {
		key     string
		entries []string
	}{{"mcp.include", m.Include}, {"mcp.exclude", m.Exclude}} {
		for _, e := range list.entries {
			if !slices.ContainsFunc(allTools, func(n string) bool { return matches(n, e) }) {
				refuse(list.key, e, allTools, "tool", "correct the name, or remove the entry")
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.Annotations)) {
		if !slices.Contains(allTools, name) {
			refuse("mcp.annotations", name, allTools, "tool", "correct the name, or remove the entry")
		}
	}
}

// check refuses (in b.errs) the tools that cannot be served: refused by the
// detector, outside the name rule, reserved, duplicated, or a catch-all
// tool whose name another route serves (or the MCP endpoint's). It returns
// the others.
func (b *builder) check(tools []toolSpec, disp *dispatcher) (ok []toolSpec) {
	seen := make(map[string]string)
	refused := make(map[*detect.Route]bool) // report a refused route once
	mcpPath := b.cfg.MCP.path()
	for _, t := range tools {
		refuse := func(reason, fix string) {
			b.errs = append(b.errs, &detect.RefusedError{Route: t.Route, Reason: reason, Fix: fix})
		}
		byCatchAll := t.route.Kind == detect.CatchAll
		var shadowed []string // other routes at /<name>
		if byCatchAll && disp != nil && disp.router != nil && detect.ValidName(t.Name) == nil {
			shadowed = detect.RoutesAt(disp.router, "/"+t.Name)
		}
		switch first, dup := seen[t.Name]; {
		case t.refusal != nil:
			b.errs = append(b.errs, t.refusal)
		case t.route.Verdict == detect.Refused:
			if !refused[t.route] {
				b.errs = append(b.errs, t.route.Refusal())
			}
			refused[t.route] = true
		case detect.ValidName(t.Name) != nil:
			refuse(detect.ValidName(t.Name).Error(), "name the tool with letters, digits, '_' and '-' only, at most 64 characters")
		case byCatchAll && "/"+t.Name == mcpPath:
			refuse(fmt.Sprintf("tool name %q is the MCP endpoint's path (mcp.path: %s)", t.Name, mcpPath),
				"give the tool another name, or set mcp.path to another path")
		case slices.Contains(b.reserved, t.Name):
			refuse(fmt.Sprintf("tool name %q is reserved (%s)", t.Name, strings.Join(b.reserved, ", ")), "give the tool another name")
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

// nearest returns the name of known closest to name by edit distance, when
// it is close enough to be a likely typo, or "".
func nearest(name string, known []string) string {
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
