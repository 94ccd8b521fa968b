package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
)

func install(t *testing.T) (*autoexpose.Door, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	door, err := autoexpose.Install(NewRouter(), autoexpose.Config{Name: "edge", ExposeToolsOverMCP: true, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	t.Cleanup(func() { door.Close() })
	return door, &log
}

// tools returns what a client on a real listener lists, by name.
func tools(t *testing.T, door *autoexpose.Door) map[string]*mcp.Tool {
	t.Helper()
	srv := httptest.NewServer(door)
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

// jsonOf returns v as JSON with its object keys sorted, as a client that
// decodes a schema sees it; "none" for nil.
func jsonOf(v any) string {
	if v == nil {
		return "none"
	}
	b, _ := json.Marshal(v)
	var m any
	json.Unmarshal(b, &m)
	b, _ = json.Marshal(m)
	return string(b)
}

// TestEdgeSchemas pins the exact schemas a client gets for each shape.
func TestEdgeSchemas(t *testing.T) {
	door, log := install(t)
	got := tools(t, door)
	const (
		thingIn  = `{"type":"object","required":["name","size","address","meta"],"properties":{"address":{"type":["null","object"],"required":["city"],"properties":{"city":{"type":["null","string"]},"street":{"type":["null","string"]}}},"count":{"type":["null","string"]},"meta":{"type":["null","object"],"required":["owner"],"properties":{"owner":{"type":["null","string"]}}},"name":{"type":["null","string"]},"size":{"type":["null","integer"]}}}`
		thingOut = `{"type":"object","properties":{"address":{"type":"object","properties":{"city":{"type":"string"},"street":{"type":"string"}}},"count":{"type":"string"},"meta":{"type":"object","properties":{"owner":{"type":"string"}}},"name":{"type":"string"},"size":{"type":"integer"}}}`
	)
	for _, c := range []struct{ tool, desc, input, output string }{
		{"create_thing", "CreateThing stores a thing, checked by its Validate method.", thingIn, thingOut},
		{"patch_thing", "PatchThing changes a stored thing: what the body leaves out stays.",
			`{"type":"object","properties":{"address":{"type":["null","object"],"properties":{"city":{"type":["null","string"]},"street":{"type":["null","string"]}}},"count":{"type":["null","string"]},"meta":{"type":["null","object"],"properties":{"owner":{"type":["null","string"]}}},"name":{"type":["null","string"]},"size":{"type":["null","integer"]}}}`, thingOut},
		{"rename", "Rename takes a name from either field.", `{"type":"object","properties":{"new":{"type":["null","string"]},"old":{"type":["null","string"]}}}`,
			`{"type":"object","properties":{"renamed":{"type":"boolean"},"to":{"type":"string"}}}`},
		{"find", "Find searches things; q is required, offset skips some.", `{"type":"object"}`,
			`{"type":"object","properties":{"fields":{"type":["null","array"],"items":{"type":"string"}},"offset":{"type":"integer"},"q":{"type":"string"}}}`},
		{"export", "Export answers the things as JSON, or as CSV when format=csv.", `{"type":"object"}`, "none"},
		{"either", "Either answers one of two types.", `{"type":"object"}`, "none"},
		{"bulk", "Bulk takes a JSON array of things.", `{"type":"object","required":["body"],"additionalProperties":false,"properties":{"body":{"description":"The request body: a JSON array.",` +
			`"type":["null","array"],"items":{"type":["null","object"],"properties":{"address":{"type":["null","object"],"properties":{"city":{"type":["null","string"]},"street":{"type":["null","string"]}}},` +
			`"count":{"type":["null","string"]},"meta":{"type":["null","object"],"properties":{"owner":{"type":["null","string"]}}},"name":{"type":["null","string"]},"size":{"type":["null","integer"]}}}}}}`, "none"},
		{"strict", "Strict refuses members it does not know, at any depth.",
			`{"type":"object","properties":{"city":{"type":["null","string"]},"street":{"type":["null","string"]}},"additionalProperties":false}`,
			`{"type":"object","properties":{"city":{"type":"string"},"street":{"type":"string"}}}`},
		// A boolean subschema goes out in its object form (true is {}).
		{"loose", "Loose takes any object.", `{"type":"object","additionalProperties":{}}`, `{"type":"object","additionalProperties":{}}`},
		{"taught", "Taught decodes with a decoder gen is taught.", `{"type":"object","properties":{"city":{"type":["null","string"]},"street":{"type":["null","string"]}}}`, "none"},
		{"report", "ServeHTTP answers the report.", `{"type":"object"}`, `{"type":"object","properties":{"owner":{"type":"string"}}}`},
		{"add", "Add decodes an item of the resource's type.", `{"type":"object"}`, "none"},
		{"ping", "Ping answers pong.", `{"type":"object"}`, "none"},
		{"inline", "Inline answers the time of day, in a closure of the router's.", `{"type":"object"}`, `{"type":"object","properties":{"time":{"type":"string"}}}`},
		{"twin_a", "POST /twin_a", `{"type":"object"}`, "none"},
		{"legacy_stats", "Stats answers the old API's hit count.", `{"type":"object"}`, `{"type":"object","properties":{"hits":{"type":"integer"}}}`},
	} {
		tl := got[c.tool]
		if tl == nil {
			t.Errorf("no tool %s", c.tool)
			continue
		}
		if tl.Description != c.desc {
			t.Errorf("%s: description %q, want %q", c.tool, tl.Description, c.desc)
		}
		if s := jsonOf(tl.InputSchema); s != jsonOf(json.RawMessage(c.input)) {
			t.Errorf("%s: input schema\n  %s\nwant\n  %s", c.tool, s, c.input)
		}
		if c.output != "none" {
			c.output = jsonOf(json.RawMessage(c.output))
		}
		if s := jsonOf(tl.OutputSchema); s != c.output {
			t.Errorf("%s: output schema\n  %s\nwant\n  %s", c.tool, s, c.output)
		}
	}
	if strings.Contains(log.String(), "stale") {
		t.Errorf("Install warns of a stale generated file:\n%s", log)
	}
}

// TestEdgeParity: the generated schemas refuse nothing the routes accept:
// extra members, omitted optional ones, nulls, a strict decoder's own
// members.
func TestEdgeParity(t *testing.T) {
	door, _ := install(t)
	srv := autoexposetest.NewServer(t, door, door)
	srv.Parity(t,
		autoexposetest.Call{Tool: "create_thing", Arguments: `{"name":"a","size":2,"address":{"city":"Oslo"},"meta":{"owner":"o"}}`},
		autoexposetest.Call{Tool: "create_thing", Arguments: `{"name":"a","size":2,"address":{"city":"Oslo","zip":"0150"},"meta":{"owner":"o"},"extra":[1,2],"count":"7"}`},
		autoexposetest.Call{Tool: "create_thing", Arguments: `{"name":"a","size":2,"address":{"city":"Oslo","street":null},"meta":{"owner":"o"},"count":null}`},
		autoexposetest.Call{Tool: "patch_thing", Arguments: `{}`},
		autoexposetest.Call{Tool: "patch_thing", Arguments: `{"size":3,"unknown":true}`},
		autoexposetest.Call{Tool: "rename", Arguments: `{"new":"b"}`},
		autoexposetest.Call{Tool: "rename", Arguments: `{"old":"a","new":null,"why":"typo"}`},
		autoexposetest.Call{Tool: "strict", Arguments: `{"city":"Oslo"}`},
		autoexposetest.Call{Tool: "strict", Arguments: `{}`},
		autoexposetest.Call{Tool: "loose", Arguments: `{"anything":{"goes":[1,"two"]}}`},
		autoexposetest.Call{Tool: "taught", Arguments: `{"street":"Main","more":1}`},
		autoexposetest.Call{Tool: "report", Arguments: `{}`},
		autoexposetest.Call{Tool: "add", Arguments: `{"city":"Oslo"}`},
		autoexposetest.Call{Tool: "export", Arguments: `{}`},
		autoexposetest.Call{Tool: "either", Arguments: `{}`},
		autoexposetest.Call{Tool: "inline", Arguments: `{"x":1}`},
		autoexposetest.Call{Tool: "ping", Arguments: `{}`},
	)
}
