package tests

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

type orderIn struct {
	Item  string   `json:"item"`
	Count int      `json:"count"`
	Notes []string `json:"notes,omitempty"`
}

// startArguments serves a declared tool whose schema uses enum, a $ref'd
// definition, a map and a pattern, and a typed tool, with no token needed.
func startArguments(t *testing.T) *server {
	t.Helper()
	var paint jsonschema.Schema
	if err := json.Unmarshal([]byte(`{"type":"object","required":["color"],"additionalProperties":false,
		"properties":{
			"color": {"enum":["red","green"]},
			"to": {"$ref":"#/$defs/address"},
			"layers": {"type":"object","additionalProperties":{"type":"integer","minimum":1}}
		},
		"$defs":{"address":{"type":"object","required":["zip"],"properties":{"zip":{"type":"string","pattern":"^[0-9]{5}$"}}}}}`), &paint); err != nil {
		t.Fatal(err)
	}
	cfg := autoexpose.Config{Name: "shop", ExposeToolsOverMCP: true, Logger: newLogger(io.Discard),
		Declared: map[string]autoexpose.Declaration{"paint": {Input: &paint}}}
	r := chi.NewRouter()
	r.Post("/paint", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"ok":true}`) })
	r.Method(http.MethodPost, "/order", autoexpose.Handler(func(context.Context, *http.Request, orderIn) (map[string]int, error) {
		return map[string]int{"ordered": 1}, nil
	}))
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return inProcess(t, r, door)
}

// TestArgumentErrors: an MCP client calling with bad arguments is refused
// before the route runs, with the offending fields named by their paths in
// the arguments and what is wrong; a typed tool answers the HTTP door with
// a 422 that says the same.
func TestArgumentErrors(t *testing.T) {
	s := startArguments(t)
	cs := s.connect(mcpOptions{})
	refused := func(body string, typed bool) *mcp422 {
		return &mcp422{body: body, typed: typed}
	}
	cases := []struct {
		name, tool, args string
		want             *mcp422
	}{
		{"enum", "paint", `{"color":"blue"}`,
			refused(`{"error":"invalid arguments","fields":["color"],"detail":"color: want one of \"red\", \"green\", got \"blue\""}`, false)},
		{"required behind a $ref", "paint", `{"color":"red","to":{}}`,
			refused(`{"error":"invalid arguments","fields":["to.zip"],"detail":"missing required field to.zip"}`, false)},
		{"pattern behind a $ref", "paint", `{"color":"red","to":{"zip":"1"}}`,
			refused(`{"error":"invalid arguments","fields":["to.zip"],"detail":"to.zip: pattern: \"1\" does not match regular expression \"^[0-9]{5}$\""}`, false)},
		{"a map's value", "paint", `{"color":"red","layers":{"base":0}}`,
			refused(`{"error":"invalid arguments","fields":["layers.base"],"detail":"layers.base: 0 is less than the minimum, 1"}`, false)},
		{"every missing field", "paint", `{"to":{}}`,
			refused(`{"error":"invalid arguments","fields":["color","to.zip"],"detail":"missing required field color, to.zip"}`, false)},
		{"typed: every unknown field", "order", `{"item":"tea","count":1,"size":"L","color":"red"}`,
			refused(`{"error":"invalid arguments","fields":["color","size"],"detail":"unknown field color, size"}`, true)},
		{"typed: an item's type", "order", `{"item":"tea","count":1,"notes":["hot",2]}`,
			refused(`{"error":"invalid arguments","fields":["notes[]"],"detail":"notes[]: want string, got integer"}`, true)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := refusedArguments(t, c.tool, httpResponse{Status: 422, Body: []byte(c.want.body)}, c.want.typed)
			sameJSON(t, call(t, cs, c.tool, rawArgs(c.args)), want)
			if c.want.typed {
				if hr := s.post("/"+c.tool, c.args); hr.Status != 422 || string(hr.Body) != c.want.body {
					t.Errorf("HTTP door: %d %s\nwant 422 %s", hr.Status, hr.Body, c.want.body)
				}
			}
		})
	}
}

// mcp422 is the 422 a tool call is refused with.
type mcp422 struct {
	body  string
	typed bool // a typed tool's result carries the envelope in _meta, not structuredContent
}
