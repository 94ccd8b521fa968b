package autoexpose

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"
)

// anything is a body or an answer with a member of any value: the JSON
// Schema true.
type anything struct {
	Data any    `json:"data"`
	Note string `json:"note,omitempty"`
}

// TestBooleanSubschemas: whichever source a tool's schemas come from
// (typed, declared, OpenAPI), tools/list sends each boolean subschema in
// its object form, true as {} and false as {"not":{}}, at every depth,
// and keeps additionalProperties: false; the door checks arguments as it
// did.
func TestBooleanSubschemas(t *testing.T) {
	r := chi.NewRouter()
	r.Method("POST", "/typed", Handler(func(ctx context.Context, r *http.Request, in anything) (anything, error) { return in, nil }))
	r.Post("/declared", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{}`)) })
	r.Post("/described", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{}`)) })
	cfg, err := ParseConfig([]byte("name: bools\nexpose_tools_over_mcp: true\nmcp:\n  rollout: {disable: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Declared = map[string]Declaration{"declared": {
		Input: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
			"any":    {},
			"never":  {Not: &jsonschema.Schema{}},
			"list":   {Type: "array", Items: &jsonschema.Schema{}},
			"either": {AnyOf: []*jsonschema.Schema{{}, {Type: "string"}}},
		}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}},
		Output: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"data": {}},
			Defs: map[string]*jsonschema.Schema{"x": {}}},
	}}
	cfg.OpenAPI = []byte(`openapi: 3.1.0
info: {title: bools, version: "1"}
paths:
  /described:
    post:
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {data: true, meta: {type: object, additionalProperties: true}}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {data: {}}, additionalProperties: false}
`)
	cfg.Logger = slog.New(slog.DiscardHandler)
	door, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	raw := rawToolsList(t, door)
	for _, c := range []struct{ tool, want string }{
		{"typed", `"inputSchema":{"type":"object","properties":{"data":{},"note":{"type":"string"}},"required":["data"],"additionalProperties":false}`},
		{"typed", `"outputSchema":{"type":"object","properties":{"data":{},"note":{"type":"string"}}`},
		{"declared", `"any":{}`},
		{"declared", `"never":{"not":{}}`},
		{"declared", `"list":{"type":"array","items":{}}`},
		{"declared", `"either":{"anyOf":[{},{"type":"string"}]}`},
		{"declared", `"additionalProperties":false`},
		{"declared", `"$defs":{"x":{}}`},
		{"described", `"meta":{"type":"object","additionalProperties":{}}`},
		{"described", `"outputSchema":{"type":"object","properties":{"data":{}},"additionalProperties":false}`},
	} {
		tool := raw[c.tool]
		if !strings.Contains(tool, c.want) {
			t.Errorf("tools/list sends %s as\n%s\nwant it to hold %s", c.tool, tool, c.want)
		}
		if strings.Contains(tool, ":true") {
			t.Errorf("tools/list sends %s with a boolean subschema:\n%s", c.tool, tool)
		}
	}
}

// rawToolsList returns each tool of a tools/list as the door sends it,
// by name.
func rawToolsList(t *testing.T, door http.Handler) map[string]string {
	t.Helper()
	srv := httptest.NewServer(door)
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Result struct{ Tools []json.RawMessage } `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, tl := range body.Result.Tools {
		var named struct{ Name string }
		json.Unmarshal(tl, &named)
		out[named.Name] = string(tl)
	}
	return out
}
