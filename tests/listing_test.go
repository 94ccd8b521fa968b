package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// The fixture apps of mcpdoor gen (internal/gen/testdata), each a module
// of its own with a command that serves it: name, the command's package
// and its config, from the fixture's directory.
var genFixtures = []struct{ name, dir, cmd, config string }{
	{"blog", "internal/gen/testdata/blog", "./cmd/blog", "cmd/blog/blog.yaml"},
	{"shop", "internal/gen/testdata/shop", "./cmd/shop", "cmd/shop/shop.yaml"},
	{"untuned", "internal/gen/testdata/untuned", "./cmd/untuned", "cmd/untuned/untuned.yaml"},
}

// buildFixture builds a fixture's command, as the fixture's own module
// builds it (outside the workspace; untuned reads JSON with
// encoding/json/v2, which Go 1.26 has under GOEXPERIMENT=jsonv2).
func buildFixture(t *testing.T, dir, cmd string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(cmd))
	build := exec.Command("go", "build", "-o", bin, cmd)
	build.Dir = filepath.Join(nodeclient.RepoRoot(t), dir)
	build.Env = append(os.Environ(), "GOWORK=off", "GOEXPERIMENT=jsonv2")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %s in %s: %v\n%s", cmd, dir, err, out)
	}
	return bin
}

// TestEveryToolListed: every example and every fixture app of the
// generator, started as its users start it, lists the same tools to the
// official TypeScript SDK client (which refuses the whole listing when
// one tool's schema is not what it takes) as to the go-sdk client, and
// every tool's schemas are what a client's validator takes: an object at
// the root, a schema object for every property, no boolean subschema but
// additionalProperties: false, and a schema the go-sdk's validator
// resolves.
func TestEveryToolListed(t *testing.T) {
	nodeclient.Node(t)
	type app struct {
		name  string
		start func(t *testing.T) *example
	}
	var apps []app
	for _, name := range []string{"conformance", "nethttp", "openapi", "rest", "weather", "workplace"} {
		apps = append(apps, app{"examples/" + name, func(t *testing.T) *example { return startExample(t, name, "") }})
	}
	for _, f := range genFixtures {
		apps = append(apps, app{f.dir, func(t *testing.T) *example {
			bin := buildFixture(t, f.dir, f.cmd)
			return startBinary(t, f.name, bin, "", nil, "-config", filepath.Join(nodeclient.RepoRoot(t), f.dir, f.config))
		}})
	}
	for _, a := range apps {
		t.Run(strings.ReplaceAll(a.name, "/", "_"), func(t *testing.T) {
			s := a.start(t)
			want := everyTool(t, s.connect(mcpOptions{}))
			if len(want) == 0 {
				t.Fatal("the go-sdk client lists no tools")
			}
			out := nodeclient.Run(t, nodeclient.Scenario{URL: s.url + "/mcp", Steps: []nodeclient.Step{nodeclient.List()}})
			if err := out.Err(0); err != nil {
				t.Fatalf("the TypeScript SDK client's tools/list failed: %s", out.Results[0])
			}
			var list struct {
				Tools      []json.RawMessage `json:"tools"`
				NextCursor string            `json:"nextCursor"`
			}
			out.Decode(t, 0, &list)
			var names []string
			for _, raw := range list.Tools {
				var tl struct {
					Name         string          `json:"name"`
					InputSchema  json.RawMessage `json:"inputSchema"`
					OutputSchema json.RawMessage `json:"outputSchema"`
				}
				if err := json.Unmarshal(raw, &tl); err != nil {
					t.Fatal(err)
				}
				names = append(names, tl.Name)
				for _, p := range schemaProblems(tl.InputSchema, "inputSchema") {
					t.Errorf("%s: %s", tl.Name, p)
				}
				if tl.OutputSchema != nil {
					for _, p := range schemaProblems(tl.OutputSchema, "outputSchema") {
						t.Errorf("%s: %s", tl.Name, p)
					}
				}
			}
			if list.NextCursor != "" {
				t.Errorf("the TypeScript client got a page of %d tools and a cursor; the server pages at fewer tools than this app has", len(names))
			}
			if !slices.Equal(names, want) {
				t.Errorf("the TypeScript SDK client lists %d tools %v\nthe go-sdk client %d %v", len(names), names, len(want), want)
			}
		})
	}
}

// everyTool returns the names of every tool the go-sdk client lists,
// page after page.
func everyTool(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tl, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatalf("the go-sdk client's tools/list: %v", err)
		}
		names = append(names, tl.Name)
	}
	return names
}

// schemaProblems returns what a client's validator refuses of a tool's
// schema, as tools/list sent it: a root that is not an object's schema,
// a property whose schema is not an object (the TypeScript SDK's check),
// a boolean where a schema goes (but false for "no more members"), a
// schema the go-sdk's validator does not resolve.
func schemaProblems(raw json.RawMessage, where string) []string {
	var out []string
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return []string{where + ": not JSON: " + err.Error()}
	}
	root, ok := v.(map[string]any)
	if !ok || root["type"] != "object" {
		return []string{fmt.Sprintf("%s: %s is not an object's schema", where, raw)}
	}
	var walk func(s any, path string)
	walk = func(s any, path string) {
		m, ok := s.(map[string]any)
		if !ok {
			if b, isBool := s.(bool); !isBool || b || !closesMembers(path) {
				out = append(out, fmt.Sprintf("%s: %v is not a schema object", path, s))
			}
			return
		}
		for key, val := range m {
			switch key {
			case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
				members, ok := val.(map[string]any)
				if !ok {
					out = append(out, fmt.Sprintf("%s.%s: %v is not an object", path, key, val))
					continue
				}
				for name, sub := range members {
					walk(sub, path+"."+key+"."+name)
				}
			case "items", "additionalProperties", "additionalItems", "not", "if", "then", "else", "contains",
				"propertyNames", "unevaluatedProperties", "unevaluatedItems":
				if list, ok := val.([]any); ok {
					for i, sub := range list {
						walk(sub, fmt.Sprintf("%s.%s[%d]", path, key, i))
					}
				} else {
					walk(val, path+"."+key)
				}
			case "allOf", "anyOf", "oneOf", "prefixItems":
				list, _ := val.([]any)
				for i, sub := range list {
					walk(sub, fmt.Sprintf("%s.%s[%d]", path, key, i))
				}
			}
		}
	}
	walk(v, where)
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		out = append(out, where+": the go-sdk's jsonschema does not read it: "+err.Error())
	} else if _, err := s.Resolve(nil); err != nil {
		out = append(out, where+": the go-sdk's jsonschema does not resolve it: "+err.Error())
	}
	return out
}

// closesMembers reports whether a schema at path is one whose false says
// "no more members" (or items), the one boolean every validator takes.
func closesMembers(path string) bool {
	for _, k := range []string{".additionalProperties", ".unevaluatedProperties", ".additionalItems", ".unevaluatedItems"} {
		if strings.HasSuffix(path, k) {
			return true
		}
	}
	return false
}
