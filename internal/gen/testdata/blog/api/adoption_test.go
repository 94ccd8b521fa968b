package api

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// adoptionYAML is the README's adoption path on a REST-shaped app, as the
// blog's command reads it: the flag, and mcp.rest (GET listed, so that
// reads are tools too).
const adoptionYAML = "../cmd/blog/blog.yaml"

// install installs the blog's router as the adoption path says, and
// returns the door, a client session on a real listener, and the log.
func install(t *testing.T) (*autoexpose.Door, *mcp.ClientSession, *bytes.Buffer) {
	t.Helper()
	cfg, err := autoexpose.LoadConfig(adoptionYAML)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	r := NewRouter(NewStore())
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	t.Cleanup(func() { door.Close() })
	srv := httptest.NewServer(door)
	t.Cleanup(srv.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return door, cs, &log
}

// listed returns the tools a client sees, by name, as JSON objects.
func listed(t *testing.T, cs *mcp.ClientSession) map[string]map[string]any {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, tl := range res.Tools {
		b, _ := json.Marshal(tl)
		var m map[string]any
		json.Unmarshal(b, &m)
		out[tl.Name] = m
	}
	return out
}

func propertyNames(schema any) []string {
	m, _ := schema.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	var names []string
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func requiredNames(schema any) []string {
	m, _ := schema.(map[string]any)
	var names []string
	list, _ := m["required"].([]any)
	for _, v := range list {
		names = append(names, v.(string))
	}
	slices.Sort(names)
	return names
}

// TestToolsCarrySchemas: with the flag, mcp.rest and the generated file,
// every tool carries its handler's doc comment, the body fields and query
// parameters it reads, and what it answers; and only the fields the
// handler enforces are required.
func TestToolsCarrySchemas(t *testing.T) {
	door, cs, _ := install(t)
	tools := listed(t, cs)
	byRoute := map[string]string{} // route → tool name, so that the naming rule is not what this test pins
	for _, row := range door.Report() {
		if row.Tool != "" {
			byRoute[row.Route] = row.Tool
		}
	}
	for _, c := range []struct {
		route    string
		desc     string   // a prefix of the description
		input    []string // the input schema's properties
		required []string
		output   []string // the output schema's properties; nil for none
	}{
		{"GET /articles/", "ListArticles lists the articles", []string{"limit", "tag"}, nil, nil},
		{"POST /articles/", "CreateArticle publishes", []string{"author", "draft", "id", "slug", "tags", "text", "title", "user_id"}, []string{"title"},
			[]string{"comments", "id", "slug", "tags", "text", "title", "user_id"}},
		{"GET /articles/{articleID}/", "GetArticle answers", []string{"articleID"}, []string{"articleID"}, []string{"comments", "id", "slug", "tags", "text", "title", "user_id"}},
		{"PUT /articles/{articleID}/", "UpdateArticle replaces", []string{"articleID", "author", "draft", "id", "slug", "tags", "text", "title", "user_id"}, []string{"articleID"},
			[]string{"comments", "id", "slug", "tags", "text", "title", "user_id"}},
		{"DELETE /articles/{articleID}/", "DeleteArticle removes", []string{"articleID"}, []string{"articleID"}, []string{"comments", "id", "slug", "tags", "text", "title", "user_id"}},
		{"POST /articles/{articleID}/comments", "NewCommentHandler returns", []string{"articleID", "author", "body", "notify"}, []string{"articleID", "body"}, []string{"at", "author", "body"}},
		{"GET /articles/{articleID}/comments", "ListComments returns", []string{"articleID", "author"}, []string{"articleID"}, nil},
		{"GET /users/", "List answers a page of users", []string{"active", "page", "q"}, nil, []string{"next", "users"}},
		{"POST /users/", "Create signs a new user up", []string{"bio", "email", "id", "name", "roles", "website"}, []string{"email", "name"},
			[]string{"bio", "email", "id", "name", "roles", "website"}},
		{"GET /users/{userID}", "Get answers one user", []string{"userID"}, []string{"userID"}, []string{"bio", "email", "id", "name", "roles", "website"}},
		{"POST /articles/search", "Search finds articles", []string{"exact", "in", "terms"}, nil, []string{"hits", "total"}},
	} {
		tool := byRoute[c.route]
		tl, ok := tools[tool]
		if !ok {
			t.Errorf("no tool serves %s; the tools are %v", c.route, slices.Sorted(mapsKeys(tools)))
			continue
		}
		if d, _ := tl["description"].(string); !strings.HasPrefix(d, c.desc) {
			t.Errorf("%s: description %q, want it to start with %q", tool, d, c.desc)
		}
		if got := propertyNames(tl["inputSchema"]); !slices.Equal(got, c.input) {
			t.Errorf("%s: input properties %v, want %v", tool, got, c.input)
		}
		if m, _ := tl["inputSchema"].(map[string]any); m["required"] != nil || c.required != nil {
			if got := requiredNames(tl["inputSchema"]); !slices.Equal(got, c.required) {
				t.Errorf("%s: required %v, want %v", tool, got, c.required)
			}
		}
		if got := propertyNames(tl["outputSchema"]); !slices.Equal(got, c.output) {
			t.Errorf("%s: output properties %v, want %v", tool, got, c.output)
		}
	}
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestNothingStale: the generated file describes every handler as it is,
// so Install warns of none.
func TestNothingStale(t *testing.T) {
	_, _, log := install(t)
	if strings.Contains(log.String(), "stale") {
		t.Errorf("Install warns of a stale generated file:\n%s", log)
	}
}
