package autoexposetest_test

import (
	"slices"
	"testing"

	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
)

// TestParity runs Parity on the fixture as it stands, where every route
// that has a middleware replays through it and the doors agree, and with
// configs that make the MCP door answer differently: it must report each
// difference, and nothing else.
func TestParity(t *testing.T) {
	calls := []autoexposetest.Call{
		{Tool: "greet", Arguments: `{"name": "Ana"}`},
		{Tool: "greet", Arguments: `{"name":""}`},
		{Tool: "greet", Arguments: `{"name":5}`},
		{Tool: "count"},
		{Tool: "count", Arguments: `{}`},
		{Tool: "stock", Arguments: `{"item":"tea"}`},
		{Tool: "restock", Arguments: `{"item":"tea"}`},
		{Tool: "note"},
		{Tool: "pack", Arguments: `{"boxes":2}`},
	}
	cases := []struct {
		name  string
		yaml  string
		calls []autoexposetest.Call
		want  []string
		logs  []string
	}{
		{name: "the doors agree", calls: calls},
		{
			name:  "a middleware a handler needs, declared transparent",
			yaml:  "  transparent_middleware: [" + middlewareName(french) + "]\n",
			calls: calls,
			want: []string{`autoexposetest: parity: calls[0] greet {"name": "Ana"}: the doors answer differently
  HTTP door: 200 (application/json) {"greeting":"bonjour, Ana"}
  MCP door:  {"isError":false,"content":[{"type":"text","text":"{\"greeting\":\"hello, Ana\"}"}],"structuredContent":{"greeting":"hello, Ana"}}
  (- what the HTTP answer maps to, + what the MCP door answered)
  - content[0].text: "{\"greeting\":\"bonjour, Ana\"}"
  + content[0].text: "{\"greeting\":\"hello, Ana\"}"
  - structuredContent.greeting: "bonjour, Ana"
  + structuredContent.greeting: "hello, Ana"`},
		},
		{
			name:  "an auth check declared transparent",
			yaml:  "  transparent_middleware: [" + middlewareName(requireKey) + "]\n",
			calls: calls,
			want: []string{`autoexposetest: parity: calls[5] stock {"item":"tea"}: the doors answer differently
  HTTP door: 401 (application/json) {"error":"an API key is required"}
  MCP door:  {"isError":false,"content":[{"type":"text","text":"{\"restocked\":true}"}],"structuredContent":{"restocked":true}}
  (- what the HTTP answer maps to, + what the MCP door answered)
  - isError: true
  + isError: false
  - content[0].text: "HTTP 401 from POST /stock: {\"error\":\"an API key is required\"}"
  + content[0].text: "{\"restocked\":true}"
  - structuredContent.error: {"code":"unauthorized","effect":"not_applied","message":"an API key is required","status":401}
  + structuredContent.error: (none)
  - structuredContent.restocked: (none)
  + structuredContent.restocked: true`},
		},
		{
			name:  "a declared schema stricter than its route",
			calls: []autoexposetest.Call{{Tool: "restock", Arguments: `{}`}},
			want: []string{`autoexposetest: parity: calls[0] restock {}: the MCP door refused the arguments before calling the route (code invalid_arguments), but the HTTP door did not answer 422
  HTTP door: 200 (application/json) {"restocked":true}
  MCP door:  {"isError":true,"content":[{"type":"text","text":"HTTP 422 from POST /restock: Invalid arguments for restock (checked against its input schema; the route was not called): missing required field item"}],"structuredContent":{"error":{"code":"invalid_arguments","effect":"not_applied","fields":["item"],"message":"missing required field item","status":422}}}`},
			logs: []string{"autoexposetest: parity: no call of count, greet, note, pack, stock"},
		},
		{
			name: "no calls",
			want: []string{"autoexposetest: Parity needs calls: name each tool with arguments it accepts, e.g. autoexposetest.Call{Tool: \"count\", Arguments: `{...}`}; the tools are count, greet, note, pack, restock, stock"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, door := newShop(t, c.yaml)
			ts := autoexposetest.NewServer(t, h, door)
			rec := &recorder{TB: t}
			ts.Parity(rec, c.calls...)
			if !slices.Equal(rec.errors, c.want) {
				t.Errorf("Parity reported %d errors:\n%s\nwant %d:\n%s", len(rec.errors), join(rec.errors), len(c.want), join(c.want))
			}
			if !slices.Equal(rec.logs, c.logs) {
				t.Errorf("Parity logged %q, want %q", rec.logs, c.logs)
			}
		})
	}
}

func join(msgs []string) string {
	out := ""
	for _, m := range msgs {
		out += "---\n" + m + "\n"
	}
	return out
}
