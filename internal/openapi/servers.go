package openapi

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// An operation is served at its document's base path, then its own path.
// The base is Swagger 2.0's basePath, or the path of an OpenAPI 3 server's
// url: "/api", or "https://shop.example.com/api/v1" (its path, /api/v1;
// the host is the deployment's, not the router's), with its {variables}
// set to their defaults. A path item's servers, then an operation's,
// replace the document's for what they hold.
//
// Servers are alternatives, one of which serves the API. When their paths
// disagree, the operations are read under the first one (the one a client
// takes by default), and a warning names the others: the router serves one
// path, and the operations that match no route are warned about at
// Install, naming the route the router has instead.

// base returns the base path of the document whose top-level pairs are ps:
// "" for none.
func (r *reader) base(ps []pair, top *pointer) (string, error) {
	if !r.v2 {
		if v := get(ps, "servers"); v != nil {
			return r.servers(v, top.child("servers"))
		}
		return "", nil
	}
	var err error
	if v := get(ps, "consumes"); v != nil {
		if r.consumes, err = r.mediaTypes(v, top.child("consumes")); err != nil {
			return "", err
		}
	}
	if v := get(ps, "produces"); v != nil {
		if r.produces, err = r.mediaTypes(v, top.child("produces")); err != nil {
			return "", err
		}
	}
	v := get(ps, "basePath")
	if v == nil {
		return "", nil
	}
	b, err := str(v, top.child("basePath"))
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(b, "/") {
		return "", errorf(v, top.child("basePath"), "the basePath %q must start with /", b)
	}
	return strings.TrimSuffix(b, "/"), nil
}

// serverVariable matches a {variable} of a server url.
var serverVariable = regexp.MustCompile(`\{[^{}]*\}`)

// servers returns the base path of a servers list at where: its first
// server's path, warning when another's differs.
func (r *reader) servers(n *yaml.Node, where *pointer) (string, error) {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return "", errorf(n, where, "want a list of servers, got %s", describe(n))
	}
	if err := r.readKeys(len(n.Content), n, where); err != nil {
		return "", err
	}
	var paths []string
	for i, s := range n.Content {
		p, err := r.server(s, where.elem(i))
		if err != nil {
			return "", err
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		return "", nil
	}
	if others := slices.Compact(slices.Sorted(slices.Values(paths))); len(others) > 1 {
		quoted := make([]string, len(paths))
		for i, p := range paths {
			quoted[i] = fmt.Sprintf("%q", orRoot(p))
		}
		r.doc.Warnings = append(r.doc.Warnings, errorf(n, where,
			"the servers' paths disagree (%s); mcpdoor reads the operations under the first, %q, as a client does by default; list the server this router is first",
			strings.Join(quoted, ", "), orRoot(paths[0])).Error())
	}
	return paths[0], nil
}

// server returns the path of the Server Object n at where, without a
// trailing slash: "" for the root.
func (r *reader) server(n *yaml.Node, where *pointer) (string, error) {
	n, where, err := r.follow(n, where, 0)
	if err != nil {
		return "", err
	}
	ps, err := r.pairs(n, where)
	if err != nil {
		return "", err
	}
	v := get(ps, "url")
	if v == nil {
		return "", errorf(n, where, "a server needs a url")
	}
	raw, err := str(v, where.child("url"))
	if err != nil {
		return "", err
	}
	defaults := map[string]string{}
	if vars := get(ps, "variables"); vars != nil {
		vps, err := r.pairs(vars, where.child("variables"))
		if err != nil {
			return "", err
		}
		if err := r.readKeys(len(vps), vars, where.child("variables")); err != nil {
			return "", err
		}
		for _, vp := range vps {
			at := where.child("variables").child(vp.key)
			vvs, err := r.pairs(vp.value, at)
			if err != nil {
				return "", err
			}
			if d := get(vvs, "default"); d != nil {
				if defaults[vp.key], err = str(d, at.child("default")); err != nil {
					return "", err
				}
			}
		}
	}
	var missing string
	u := serverVariable.ReplaceAllStringFunc(raw, func(m string) string {
		name := m[1 : len(m)-1]
		d, ok := defaults[name]
		if !ok && missing == "" {
			missing = name
		}
		return d
	})
	if missing != "" {
		return "", errorf(v, where.child("url"), "the server url %q names the variable {%s}, which its variables give no default", raw, missing)
	}
	p := u
	if !strings.HasPrefix(u, "/") {
		parsed, err := url.Parse(u)
		if err != nil {
			return "", errorf(v, where.child("url"), "the server url %q is not a URL: %v", raw, err)
		}
		p = parsed.Path
		if parsed.Scheme == "" && parsed.Host == "" && p != "" {
			p = "/" + p // relative to the document: mcpdoor reads it from the root
		}
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	return strings.TrimSuffix(p, "/"), nil
}

// orRoot returns a base path as a warning names it: "/" for the root.
func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// join returns the full path of the document's path p under base.
func join(base, p string) string {
	if base == "" {
		return p
	}
	return base + p
}
