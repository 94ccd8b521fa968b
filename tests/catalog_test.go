package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// catalogURI is the weather example's catalog: its name,
// example_mcp_weather, as a URI scheme.
const catalogURI = "example-mcp-weather://catalog"

// catalogResource is how resources/list shows the catalog.
const catalogResource = `{"description":"What this server offers: every tool you may call, with its schemas, annotations and route, and the server's session policy and limits.","mimeType":"application/json","name":"catalog","title":"example_mcp_weather catalog","uri":"example-mcp-weather://catalog"}`

// goldenCatalog returns the weather example's catalog as
// testdata/catalog_weather.json holds it, compacted, and the same catalog
// narrowed to get_weather.
func goldenCatalog(t *testing.T) (full, narrowed string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "catalog_weather.json"))
	if err != nil {
		t.Fatal(err)
	}
	full = compactJSON(t, data)
	var c map[string]json.RawMessage
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	var tools []json.RawMessage
	json.Unmarshal(c["tools"], &tools)
	for _, tl := range tools {
		var named struct{ Name string }
		json.Unmarshal(tl, &named)
		if named.Name == "get_weather" {
			// The golden file lists the keys in the order the server writes
			// them; only the tools change.
			i := bytes.Index([]byte(full), []byte(`"tools":[`))
			narrowed = full[:i] + `"tools":[` + compactJSON(t, tl) + `]}`
		}
	}
	return full, narrowed
}

// TestCatalog reads the weather example's catalog resource with two real
// clients, the go-sdk's and the TypeScript SDK's, over a loopback listener:
// the whole catalog without a token, the refusal with one that does not
// verify, and
// only the tools a seeded rollout's allow-list names with its token. The
// conformance suite's resources-list scenario passes.
func TestCatalog(t *testing.T) {
	s := startExample(t, "weather", exampleConfig("name: example_mcp_weather\nexpose_tools_over_mcp: true\nmcp:\n  catalog: true\n  rollout:\n    allow_tokenless: true")).server
	full, narrowed := goldenCatalog(t)

	// seedToken seeds a rollout allowed get_weather alone.
	seedToken := func(c *server) string {
		r, meta := c.seedSession(`{"allowed_tools":["get_weather"]}`)
		if meta.Headers[tokenHeader] == "" {
			t.Fatalf("seed: %d %s", r.Status, r.Body)
		}
		return meta.Headers[tokenHeader]
	}

	t.Run("go-sdk", func(t *testing.T) {
		read := func(t *testing.T, cs *mcp.ClientSession) string {
			t.Helper()
			res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: catalogURI})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Contents) != 1 || res.Contents[0].URI != catalogURI || res.Contents[0].MIMEType != "application/json" {
				b, _ := json.Marshal(res.Contents)
				t.Fatalf("resources/read: %s", b)
			}
			return res.Contents[0].Text
		}
		for _, proto := range []string{"2025-11-25", ""} {
			t.Run("protocol="+proto, func(t *testing.T) {
				cs := s.newClient().connect(mcpOptions{protocol: proto})
				list, err := cs.ListResources(t.Context(), nil)
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := json.Marshal(list.Resources); string(b) != "["+catalogResource+"]" {
					t.Errorf("resources/list: %s\nwant [%s]", b, catalogResource)
				}
				if got := read(t, cs); got != full {
					t.Errorf("catalog:\n%s\nwant (testdata/catalog_weather.json):\n%s", got, full)
				}

				c := s.newClient()
				cs = c.connect(mcpOptions{protocol: proto, header: http.Header{tokenHeader: {seedToken(c)}}})
				if got := read(t, cs); got != narrowed {
					t.Errorf("catalog for a token allowed get_weather:\n%s\nwant:\n%s", got, narrowed)
				}
				tools, err := cs.ListTools(t.Context(), nil)
				if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "get_weather" {
					t.Errorf("tools/list for the same token: %v %v", tools, err)
				}

				// A token that does not verify sees the refusal, not the catalog.
				cs = s.newClient().connect(mcpOptions{protocol: proto, header: http.Header{tokenHeader: {"garbage"}}})
				_, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: catalogURI})
				var werr *jsonrpc.Error
				if !errors.As(err, &werr) || werr.Code != -32001 || werr.Message != "Invalid Gym MCP session token." {
					t.Errorf("catalog for a token that does not verify: %v", err)
				}
			})
		}
	})

	t.Run("TypeScript", func(t *testing.T) {
		out := nodeclient.Run(t, nodeclient.Scenario{
			URL: s.url + "/mcp",
			Steps: []nodeclient.Step{
				nodeclient.Resources(),
				nodeclient.Read(catalogURI),
				nodeclient.HTTP(http.MethodPost, "/seed_session", map[string]any{"allowed_tools": []string{"get_weather"}}),
				nodeclient.ConnectHeadersFrom(2, "mcp.headers"),
				nodeclient.Read(catalogURI),
				nodeclient.Resources(),
			},
		})
		var list struct{ Resources []json.RawMessage }
		out.Decode(t, 0, &list)
		if len(list.Resources) != 1 {
			t.Fatalf("resources/list: %s", out.Results[0])
		}
		sameJSON(t, list.Resources[0], json.RawMessage(catalogResource))
		for i, want := range map[int]string{1: full, 4: narrowed} {
			var res struct {
				Contents []struct{ URI, MimeType, Text string }
			}
			out.Decode(t, i, &res)
			if len(res.Contents) != 1 || res.Contents[0].URI != catalogURI || res.Contents[0].MimeType != "application/json" || res.Contents[0].Text != want {
				t.Errorf("step %d, resources/read: %s\nwant the text:\n%s", i, out.Results[i], want)
			}
		}
	})

	t.Run("conformance resources-list", func(t *testing.T) {
		rep := nodeclient.RequireConformance(t, s.url+"/mcp", "resources-list")
		if sc := rep.Scenario("resources-list"); sc == nil || sc.Result != "PASS" {
			t.Errorf("resources-list: %+v", sc)
		}
	})
}

// TestCatalogOffered: a rollout server offers its model the server's tools
// and nothing else: by default initialize advertises no resources, which
// Claude Code would turn into three more tools for the model, and
// resources/list is method not found; with mcp.catalog: true, the catalog
// is offered and listed.
func TestCatalogOffered(t *testing.T) {
	const resource = `{"description":"What this server offers: every tool you may call, with its schemas, annotations and route, and the server's session policy and limits.","mimeType":"application/json","name":"catalog","title":"fixture catalog","uri":"fixture://catalog"}`
	for _, c := range []struct {
		name, yaml, capabilities, resources string
	}{
		{"default", "", `{"logging":{},"tools":{}}`, ""},
		{"mcp.catalog: true", "\n  catalog: true", `{"logging":{},"resources":{},"tools":{}}`, `[` + resource + `]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := autoexpose.ParseConfig([]byte("name: fixture\nexpose_tools_over_mcp: true\nmcp:\n  session_secret: \"" + testSecret + "\"" + c.yaml + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			cfg.Logger = slog.New(slog.DiscardHandler)
			h, door, _ := newFixture(t, cfg)
			t.Cleanup(func() { door.Close() })
			s := serve(t, h)
			for _, proto := range []string{"2025-11-25", ""} {
				cs := s.newClient().connect(mcpOptions{protocol: proto})
				if b, _ := json.Marshal(cs.InitializeResult().Capabilities); string(b) != c.capabilities {
					t.Errorf("protocol %q: capabilities %s\nwant %s", proto, b, c.capabilities)
				}
				list, err := cs.ListResources(t.Context(), nil)
				if c.resources == "" {
					var rpcErr *jsonrpc.Error
					if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeMethodNotFound {
						t.Errorf("protocol %q: resources/list: %+v, %v; want method not found", proto, list, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("protocol %q: resources/list: %v", proto, err)
				}
				if b, _ := json.Marshal(list.Resources); string(b) != c.resources {
					t.Errorf("protocol %q: resources/list %s\nwant %s", proto, b, c.resources)
				}
			}
		})
	}
}
