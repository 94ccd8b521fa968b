package autoexpose

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/cputime"
)

// BenchmarkRESTCallCPU compares, in CPU time, a whole tool call
// (Door.calls.call) to a REST route with one to a tool route doing the
// same work (see BenchmarkRESTCall), in batches taken in turn: its
// rest/tool metric is the ratio. route=nested has the REST routes in a
// Route sub-router, which routing descends into; route=flat at the top of
// the router, as the tool routes are.
func BenchmarkRESTCallCPU(b *testing.B) {
	for _, dispatch := range []string{"direct", "replay"} {
		tools, nested, flat := benchRouters(dispatch)
		toolDoor, err := Install(tools, benchToolConfig())
		if err != nil {
			b.Fatal(err)
		}
		restDoors := map[string]*Door{}
		for name, r := range map[string]chi.Router{"nested": nested, "flat": flat} {
			if restDoors[name], err = Install(r, enabled(MCPConfig{REST: &REST{Methods: []string{"PATCH", "GET"}}})); err != nil {
				b.Fatal(err)
			}
		}
		for _, pair := range []struct{ name, tool, args, route string }{
			{"body", "update_note", `{"id":"42","text":"x"}`, "nested"},
			{"query", "get_note", `{"id":"42","tag":"a"}`, "nested"},
			{"body", "update_note", `{"id":"42","text":"x"}`, "flat"},
			{"query", "get_note", `{"id":"42","tag":"a"}`, "flat"},
		} {
			restDoor := restDoors[pair.route]
			b.Run("dispatch="+dispatch+"/args="+pair.name+"/route="+pair.route, func(b *testing.B) {
				req := &mcp.CallToolRequest{
					Params: &mcp.CallToolParamsRaw{Name: pair.tool, Arguments: json.RawMessage(pair.args)},
					Extra:  &mcp.RequestExtra{Header: http.Header{"Authorization": {"Bearer b"}}},
				}
				ctx := context.Background()
				call := func(d *Door) func() {
					tl := d.tools[pair.tool]
					if res := d.calls.callResult(ctx, tl, req); res.IsError {
						b.Fatalf("call: %s", res.Content[0].(*mcp.TextContent).Text)
					}
					return func() { d.calls.callResult(ctx, tl, req) }
				}
				cputime.Pair(b, "tool", "rest", call(toolDoor), call(restDoor))
			})
		}
	}
}
