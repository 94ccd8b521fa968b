package tests

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

type shelfItem struct {
	Name   string   `json:"name"`
	Labels []string `json:"labels"`
}

type shelveIn struct {
	Tags  []string            `json:"tags" jsonschema:"at least one tag"`
	Maybe *[]string           `json:"maybe"`
	Items []shelfItem         `json:"items"`
	Index map[string][]string `json:"index"`
	Extra []string            `json:"extra,omitempty"`
}

type shelveOut struct {
	Count int      `json:"count"`
	Tags  []string `json:"tags"`            // the input's extra: null when it has none
	Names []string `json:"names,omitempty"` // never null: a nil slice is omitted
}

// shelfServer serves one typed tool, shelve, through both doors.
func shelfServer(t *testing.T) *server {
	t.Helper()
	cfg := fixtureConfig(t)
	sessions, _ := cfg.UseSessions()
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Method(http.MethodPost, "/shelve", autoexpose.Handler(func(_ context.Context, _ *http.Request, in shelveIn) (shelveOut, error) {
		return shelveOut{Count: len(in.Tags), Tags: in.Extra}, nil
	}, autoexpose.Describe("Shelve things.")))
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	r.Post("/verify", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	if _, err := autoexpose.Install(r, cfg); err != nil {
		t.Fatal(err)
	}
	return serve(t, r)
}

// TestTypedSchemaAdvertised: a typed handler's input schema declares a slice
// that is not behind a pointer as "array", at every depth (fields, slices of
// structs, map values), and a pointer to a slice as nullable. Its output
// schema declares null where encoding/json can write it: a nil slice field
// is null unless it is omitempty.
func TestTypedSchemaAdvertised(t *testing.T) {
	cs := shelfServer(t).connectSeeded(mcpOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := cs.ListTools(ctx, nil)
	if err != nil || len(list.Tools) != 1 {
		t.Fatalf("tools/list: %v %v", list, err)
	}
	for _, c := range []struct {
		name   string
		schema any
		want   string
	}{
		{"input", list.Tools[0].InputSchema, `{"type":"object","properties":{` +
			`"tags":{"type":"array","description":"at least one tag","items":{"type":"string"}},` +
			`"maybe":{"type":["null","array"],"items":{"type":"string"}},` +
			`"items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}}},"required":["name","labels"],"additionalProperties":false}},` +
			`"index":{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}},` +
			`"extra":{"type":"array","items":{"type":"string"}}},` +
			`"required":["tags","maybe","items","index"],"additionalProperties":false}`},
		{"output", list.Tools[0].OutputSchema, `{"type":"object","properties":{` +
			`"count":{"type":"integer"},` +
			`"tags":{"type":["null","array"],"items":{"type":"string"}},` +
			`"names":{"type":"array","items":{"type":"string"}}},` +
			`"required":["count","tags"],"additionalProperties":false}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The client holds the schema as a map: compare the documents.
			sameJSON(t, c.schema, json.RawMessage(c.want))
		})
	}
}

// TestTypedSchemaNull: null for a slice or map that is not behind a pointer
// is refused with a 422 on the HTTP door and the same invalid-arguments
// result on the MCP door; null for a pointer to a slice is accepted.
func TestTypedSchemaNull(t *testing.T) {
	s := shelfServer(t)
	cs := s.connectSeeded(mcpOptions{})
	const valid = `"tags":["a"],"maybe":["m"],"items":[{"name":"x","labels":["l"]}],"index":{"k":["v"]}`
	for _, c := range []struct {
		name, body string
		status     int
		want       string // the HTTP door's body
	}{
		{"all set", `{` + valid + `,"extra":["e"]}`, 200, `{"count":1,"tags":["e"]}`},
		{"required slice null", `{"tags":null,"maybe":null,"items":[],"index":{}}`, 422,
			`{"error":"invalid arguments","fields":["tags"],"detail":"tags: want array, got null"}`},
		{"pointer to a slice null", `{"tags":[],"maybe":null,"items":[],"index":{}}`, 200, `{"count":0,"tags":null}`},
		{"optional slice null", `{` + valid + `,"extra":null}`, 422,
			`{"error":"invalid arguments","fields":["extra"],"detail":"extra: want array, got null"}`},
		{"slice in a slice of structs null", `{"tags":["a"],"maybe":null,"items":[{"name":"x","labels":null}],"index":{}}`, 422,
			`{"error":"invalid arguments","fields":["items[].labels"],"detail":"items[].labels: want array, got null"}`},
		{"slice of structs null", `{"tags":["a"],"maybe":null,"items":null,"index":{}}`, 422,
			`{"error":"invalid arguments","fields":["items"],"detail":"items: want array, got null"}`},
		{"map value null", `{"tags":["a"],"maybe":null,"items":[],"index":{"k":null}}`, 422,
			`{"error":"invalid arguments","fields":["index.k"],"detail":"index.k: want array, got null"}`},
		{"map null", `{"tags":["a"],"maybe":null,"items":[],"index":null}`, 422,
			`{"error":"invalid arguments","fields":["index"],"detail":"index: want object, got null"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			hr := s.post("/shelve", c.body)
			if hr.Status != c.status || string(hr.Body) != c.want {
				t.Errorf("HTTP door: %d %s\nwant %d %s", hr.Status, hr.Body, c.status, c.want)
			}
			res := call(t, cs, "shelve", rawArgs(c.body))
			if c.status == 422 {
				sameJSON(t, res, refusedArguments(t, "shelve", hr, true))
				return
			}
			sameJSON(t, res, expectedResult(t, "shelve", hr, "", "not_applied", true))
		})
	}
}

// TestTypedOutputNull: a typed handler that returns a nil slice in a field
// that is not omitempty sends null, as encoding/json writes it, and its
// advertised output schema admits it: a client that checks structuredContent
// against the output schema (the TypeScript and Python SDKs do) accepts it.
func TestTypedOutputNull(t *testing.T) {
	cs := shelfServer(t).connectSeeded(mcpOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := cs.ListTools(ctx, nil)
	if err != nil || len(list.Tools) != 1 {
		t.Fatalf("tools/list: %v %v", list, err)
	}
	b, err := json.Marshal(list.Tools[0].OutputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	rs, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}

	res := call(t, cs, "shelve", rawArgs(`{"tags":["a"],"maybe":null,"items":[],"index":{}}`))
	if got := resultJSON(t, res); got != `{"content":[{"type":"text","text":"{\"count\":1,\"tags\":null}"}],"structuredContent":{"count":1,"tags":null}}` {
		t.Fatalf("result: %s", got)
	}
	var structured any
	b, _ = json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &structured); err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(structured); err != nil {
		t.Errorf("the structuredContent %s does not match the advertised output schema: %v", b, err)
	}
}

// TestTypedOutputNullTypeScript: the TypeScript SDK's client, which checks
// structuredContent against the tool's output schema, accepts a typed
// handler's result with a nil slice (null) and one with an omitted slice.
func TestTypedOutputNullTypeScript(t *testing.T) {
	t.Parallel()
	nodeclient.Node(t)
	s := shelfServer(t)
	connect := nodeclient.ConnectHeadersFrom(0, "mcp.headers")
	out := nodeclient.Run(t, nodeclient.Scenario{URL: s.url + "/mcp", Steps: []nodeclient.Step{
		nodeclient.HTTP("POST", "/seed_session", map[string]any{}),
		connect,
		nodeclient.List(),
		nodeclient.Call("shelve", json.RawMessage(`{"tags":["a"],"maybe":null,"items":[],"index":{}}`)),
		nodeclient.Call("shelve", json.RawMessage(`{"tags":["a"],"maybe":null,"items":[],"index":{},"extra":["e"]}`)),
	}})
	for i, want := range map[int]string{
		3: `{"content":[{"type":"text","text":"{\"count\":1,\"tags\":null}"}],"structuredContent":{"count":1,"tags":null}}`,
		4: `{"content":[{"type":"text","text":"{\"count\":1,\"tags\":[\"e\"]}"}],"structuredContent":{"count":1,"tags":["e"]}}`,
	} {
		var res json.RawMessage
		out.Decode(t, i, &res)
		if got := compactJSON(t, res); got != want {
			t.Errorf("step %d: %s\nwant %s", i, got, want)
		}
	}
}
