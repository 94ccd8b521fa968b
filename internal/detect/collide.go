package detect

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Under the REST reading, two routes may get one name. Install serves
// both, with names told apart by a rule (collisions), rather than refusing
// them: a 100-route server whose names collide should not need a config
// entry per collision. The rule, for names the naming rule (RESTName)
// gave; a name from mcp.rest.names or an operationId is kept:
//
//  1. One handler on several paths of one name is one tool (aliases): the
//     same function, with the same method, path parameters and
//     middlewares, on /api/users/{id} and /api/v1/users/{id} is the tool
//     of the shortest path; the other routes are reported, not tools. A
//     handler on paths of different names (a generic handler that reads
//     its path) is a tool for each.
//  2. A route whose path ends in a parameter that is not an id is named
//     by it: GET /articles/{articleSlug} is get_article_by_slug beside GET
//     /articles/{articleID}, get_article (see paramWord).
//  3. Routes still alike keep the api and version prefixes that the others
//     of them do not share: GET /api/v1/users is list_v1_users beside GET
//     /api/users, list_users; GET /api/summary is get_api_summary beside
//     GET /summary.
//  4. Routes still alike are numbered in the order of their patterns, the
//     first keeping the name: get_note, get_note_2.
//
// When a name from the config or an operationId holds the plain name, no
// route of the rule keeps it: rules 3 and 4 go on to a prefix or _2. A name
// told apart is never another tool's.

// suggested stands, in a Fix, for the name Route.suggest holds; suggest
// puts the name in once it is one no other tool has.
const suggested = "\x00suggested\x00"

// aliases makes one tool of the routes that serve one handler the same
// way (rule 1).
func aliases(routes []Route) {
	type key struct{ name, method, params, mws string }
	groups := map[key][]int{}
	for i, rt := range routes {
		if rt.Kind != Tool || rt.Verdict == Refused || !ruled(rt.NameFrom) {
			continue
		}
		var params []string
		for _, p := range rt.Params {
			params = append(params, p.Name+":"+p.Regexp)
		}
		k := key{rt.Name, rt.Method, strings.Join(params, "/"), strings.Join(rt.MiddlewareNames, " ")}
		groups[k] = append(groups[k], i)
	}
	for _, k := range slices.SortedFunc(maps.Keys(groups), func(a, b key) int {
		return strings.Compare(a.name+" "+a.method+a.params+a.mws, b.name+" "+b.method+b.params+b.mws)
	}) {
		idx := groups[k]
		for len(idx) > 1 {
			var same, rest []int
			same = append(same, idx[0])
			for _, i := range idx[1:] {
				if sameHandler(routes[idx[0]].Endpoint, routes[i].Endpoint) && sameMounts(routes[idx[0]].mounts, routes[i].mounts) {
					same = append(same, i)
				} else {
					rest = append(rest, i)
				}
			}
			idx = rest
			if len(same) < 2 {
				continue
			}
			slices.SortFunc(same, func(a, b int) int { return shorter(routes[a].Pattern, routes[b].Pattern) })
			keep := &routes[same[0]]
			for _, i := range same[1:] {
				rt := &routes[i]
				rt.Kind, rt.Verdict, rt.Fix = Skipped, 0, ""
				rt.Reasons = []string{fmt.Sprintf("the same handler as %s %s, the tool %s: one handler on several paths is one tool; name this route in mcp.rest.names to make it a tool of its own",
					keep.Method, keep.Pattern, keep.Name)}
				rt.Name, rt.NameFrom, rt.Params, rt.Hints = "", "", nil, Hints{}
			}
		}
	}
}

// sameMounts reports whether two routes are under opaque mounts of the
// same types, in the same order: the same code runs before each.
func sameMounts(a, b []opaqueMount) bool {
	return slices.EqualFunc(a, b, func(x, y opaqueMount) bool { return x.typeName == y.typeName })
}

// shorter orders patterns by their number of segments, then their length,
// then as strings.
func shorter(a, b string) int {
	if c := strings.Count(strings.TrimSuffix(a, "/"), "/") - strings.Count(strings.TrimSuffix(b, "/"), "/"); c != 0 {
		return c
	}
	if c := len(a) - len(b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// sameHandler reports whether a and b are known to be one handler: one
// top-level function, or one comparable value (a pointer). Closures of one
// function literal and method values of one method share their code but
// may differ in what they hold, so they are never known to be the same.
func sameHandler(a, b http.Handler) bool {
	if a == nil || b == nil {
		return false
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() {
		return false
	}
	if va.Kind() == reflect.Func {
		if va.Pointer() != vb.Pointer() {
			return false
		}
		f := runtime.FuncForPC(va.Pointer())
		return f != nil && !isClosure(f.Name())
	}
	return va.Comparable() && vb.Comparable() && va.Equal(vb)
}

// isClosure reports whether the function Go calls name is a closure or a
// method value, whose code many values share.
func isClosure(name string) bool {
	last := name[strings.LastIndexByte(name, '/')+1:]
	return strings.Contains(last, ".func") || strings.HasSuffix(last, "-fm")
}

// ruled reports whether a name from from is the naming rule's, which
// collisions may change.
func ruled(from string) bool { return from == NameFromRule || from == NameFromPath }

// collisions tells apart the tools of one name (rules 2 to 4), and refuses
// the tools whose given names (mcp.rest.names, operationIds) are the same,
// each with a fix that names a name no other tool has.
func collisions(routes []Route) {
	taken := map[string]bool{}
	byName := map[string][]int{}
	for i, rt := range routes {
		if rt.Kind == Tool {
			byName[rt.Name] = append(byName[rt.Name], i)
			taken[rt.Name] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		idx := byName[name]
		if len(idx) < 2 {
			continue
		}
		var given, free []int
		for _, i := range idx {
			if ruled(routes[i].NameFrom) {
				free = append(free, i)
			} else {
				given = append(given, i)
			}
		}
		var holders [][]string // the prefixes of the routes that hold the name
		for _, i := range given {
			w, _ := readWords(routes[i].Method, routes[i].Pattern)
			holders = append(holders, w.prefixes)
		}
		for k, n := range tellApart(routes, free, holders, taken) {
			routes[free[k]].Name = n
		}
		if len(given) < 2 {
			continue
		}
		suggestions := ruleNames(routes, given, taken)
		for k, i := range given {
			rt := &routes[i]
			var others []string
			for _, j := range given {
				if j != i {
					others = append(others, routes[j].Method+" "+routes[j].Pattern)
				}
			}
			slices.Sort(others)
			if rt.Verdict != Refused {
				rt.Reasons = nil // the name is the refusal; how the route would dispatch is moot
			}
			rt.Verdict = Refused
			rt.Reasons = append(rt.Reasons, fmt.Sprintf("tool name %q is also the name of %s", name, strings.Join(others, ", ")))
			rt.Fix = fmt.Sprintf("give one of them another name in mcp.rest.names, e.g. %q: %s", rt.Method+" "+rt.Pattern, suggested)
			rt.suggest = suggestions[k]
		}
	}
}

// ruleNames returns the names the rule gives the routes idx, told apart
// and none of them taken: what a fix may suggest for them.
func ruleNames(routes []Route, idx []int, taken map[string]bool) []string {
	byName := map[string][]int{}
	tmp := make([]Route, len(idx))
	for k, i := range idx {
		tmp[k] = Route{Method: routes[i].Method, Pattern: routes[i].Pattern, Name: RESTName(routes[i].Method, routes[i].Pattern)}
		byName[tmp[k].Name] = append(byName[tmp[k].Name], k)
	}
	out := make([]string, len(idx))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		ks := byName[name]
		var holders [][]string
		if taken[name] {
			holders = [][]string{nil} // another tool has it
		}
		for j, n := range tellApart(tmp, ks, holders, taken) {
			out[ks[j]] = n
		}
	}
	return out
}

// tellApart returns names for the routes idx of one name (rules 2 to 4),
// none of them taken by another tool. holders are the prefixes of the
// tools that hold the name already (whose names are given): then none of
// idx keeps it. It marks the names it gives taken.
func tellApart(routes []Route, idx []int, holders [][]string, taken map[string]bool) []string {
	if len(idx) == 0 {
		return nil
	}
	base := routes[idx[0]].Name
	ws := make([]restWords, len(idx))
	names := make([]string, len(idx))
	for k, i := range idx {
		ws[k], _ = readWords(routes[i].Method, routes[i].Pattern)
		names[k] = base
		if ws[k].param != "" { // rule 2
			names[k] = ws[k].name(routes[i].Method, routes[i].Pattern, nil, ws[k].param)
		}
	}
	// Rule 3, for each set of routes still alike.
	held := len(holders) > 0
	for _, same := range alike(names, base, held) {
		var sets [][]string
		for _, k := range same {
			sets = append(sets, ws[k].prefixes)
		}
		if names[same[0]] == base {
			sets = append(sets, holders...)
		}
		for _, k := range same {
			var own []string
			for _, p := range ws[k].prefixes {
				if !slices.ContainsFunc(sets, func(s []string) bool { return !slices.Contains(s, p) }) {
					continue // every one of them has it
				}
				own = append(own, p)
			}
			if len(own) > 0 {
				i := idx[k]
				names[k] = ws[k].name(routes[i].Method, routes[i].Pattern, own, ws[k].param)
			}
		}
	}
	// Rule 4.
	order := make([]int, len(idx))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int {
		ra, rb := routes[idx[a]], routes[idx[b]]
		return strings.Compare(ra.Pattern+" "+ra.Method, rb.Pattern+" "+rb.Method)
	})
	used := map[string]bool{}
	for _, k := range order {
		n := names[k]
		if used[n] || n == base && held || n != base && taken[n] {
			n = numbered(n, func(c string) bool { return used[c] || taken[c] })
		}
		used[n], names[k] = true, n
	}
	for n := range used {
		taken[n] = true
	}
	return names
}

// alike returns the sets of positions of names that are the same, two or
// more, or when held (another tool holds base), that are base.
func alike(names []string, base string, held bool) [][]int {
	at := map[string][]int{}
	for k, n := range names {
		at[n] = append(at[n], k)
	}
	var out [][]int
	for _, n := range slices.Sorted(maps.Keys(at)) {
		if len(at[n]) > 1 || held && n == base {
			out = append(out, at[n])
		}
	}
	return out
}

// numbered returns name with the first suffix _2, _3... that is not in
// use, cut to stay within MaxNameLen.
func numbered(name string, inUse func(string) bool) string {
	for i := 2; ; i++ {
		suffix := "_" + strconv.Itoa(i)
		c := name
		if len(c)+len(suffix) > MaxNameLen {
			c = strings.TrimRight(c[:MaxNameLen-len(suffix)], "_")
		}
		if c += suffix; !inUse(c) {
			return c
		}
	}
}

// suggest puts into each refused route's Fix a name to give it that no
// tool has and no other fix suggests.
func suggest(routes []Route) {
	taken := map[string]bool{}
	for _, rt := range routes {
		if rt.Kind == Tool {
			taken[rt.Name] = true
		}
	}
	for i := range routes {
		rt := &routes[i]
		if !strings.Contains(rt.Fix, suggested) {
			continue
		}
		n := rt.suggest
		if n == "" || taken[n] || ValidName(n) != nil {
			n = numbered(suggestName(n), func(c string) bool { return taken[c] })
		}
		taken[n] = true
		rt.Fix, rt.suggest = strings.Replace(rt.Fix, suggested, n, 1), ""
	}
}
