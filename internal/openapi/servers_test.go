package openapi

import (
	"slices"
	"testing"
)

// TestLoadServers: an operation's path is its server's path, then its
// own: the document's servers, or its path item's or its own, the first
// of each list, a full URL's path, variables set to their defaults.
func TestLoadServers(t *testing.T) {
	const paths = "paths:\n  /summary:\n    get: {summary: the summary}\n  /books/{id}:\n    get: {}\n"
	for _, tc := range []struct {
		name, doc string
		want      []string // the operations' paths
		warnings  []string
	}{
		{"a path", "openapi: 3.0.3\nservers: [{url: /api}]\n" + paths,
			[]string{"/api/summary", "/api/books/{id}"}, nil},
		{"a full URL", "openapi: 3.1.0\nservers: [{url: 'https://shop.example.com/api/v1/'}]\n" + paths,
			[]string{"/api/v1/summary", "/api/v1/books/{id}"}, nil},
		{"the root", "openapi: 3.1.0\nservers: [{url: 'http://localhost:8080'}]\n" + paths,
			[]string{"/summary", "/books/{id}"}, nil},
		{"variables", "openapi: 3.0.3\nservers:\n  - url: '{scheme}://shop.example.com/{base}'\n    variables:\n      scheme: {default: https}\n      base: {default: v2, enum: [v1, v2]}\n" + paths,
			[]string{"/v2/summary", "/v2/books/{id}"}, nil},
		{"servers that agree", "openapi: 3.0.3\nservers: [{url: 'https://shop.example.com/api'}, {url: 'http://localhost:8080/api'}]\n" + paths,
			[]string{"/api/summary", "/api/books/{id}"}, nil},
		{"servers that disagree: the first", "openapi: 3.0.3\nservers: [{url: /api}, {url: /}]\n" + paths,
			[]string{"/api/summary", "/api/books/{id}"},
			[]string{`openapi: line 2: #/servers: the servers' paths disagree ("/api", "/"); mcpdoor reads the operations under the first, "/api", as a client does by default; list the server this router is first`}},
		{"a path item's and an operation's servers", "openapi: 3.1.0\nservers: [{url: /api}]\npaths:\n" +
			"  /summary:\n    servers: [{url: /reports}]\n    get: {}\n    post: {servers: [{url: /admin}]}\n  /books:\n    get: {}\n",
			[]string{"/reports/summary", "/admin/summary", "/api/books"}, nil},
		{"a relative URL", "openapi: 3.0.3\nservers: [{url: api}]\n" + paths,
			[]string{"/api/summary", "/api/books/{id}"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := load(t, tc.doc)
			var got []string
			for _, op := range doc.Operations {
				got = append(got, op.Path)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("paths %q, want %q", got, tc.want)
			}
			if !slices.Equal(doc.Warnings, tc.warnings) {
				t.Errorf("warnings %q, want %q", doc.Warnings, tc.warnings)
			}
		})
	}
	if _, err := Load([]byte("openapi: 3.0.3\nservers: [{url: '/{base}'}]\n" + paths)); err == nil || err.Error() != `openapi: line 2: #/servers/0/url: the server url "/{base}" names the variable {base}, which its variables give no default` {
		t.Errorf("a variable without a default: %v", err)
	}
}
