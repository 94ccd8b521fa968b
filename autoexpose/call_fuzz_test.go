package autoexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzArguments drives the path from a tool call's arguments to the route's
// handler: the size limit, validation against the input schema, the
// dispatched request, the result. For any arguments:
//   - nothing panics;
//   - an echo route behind a permissive schema is called exactly when the
//     arguments are a JSON object, sees exactly those bytes, and its 2xx
//     answer comes back unchanged;
//   - anything else is refused before the route runs, saying what is
//     wrong;
//   - a typed route answers its result, or the same refusal.
func FuzzArguments(f *testing.F) {
	var (
		mu   sync.Mutex
		seen []byte // what /echo was sent; nil when it did not run
	)
	r := rolloutRouter(func(r chi.Router) {
		r.Post("/echo", func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			seen = b
			mu.Unlock()
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(b)
		})
		r.Method(http.MethodPost, "/typed", Handler(getWeather))
	})
	d, err := Install(r, enabled(MCPConfig{SessionSecret: []string{"a fuzzing secret of at least 32 bytes"}, Rollout: Rollout{AllowTokenless: true}}))
	if err != nil {
		f.Fatal(err)
	}
	echo, typed := d.tools["echo"], d.tools["typed"]
	callWith := func(tl *toolset.Tool, args []byte) *mcp.CallToolResult {
		return d.calls.callResult(context.Background(), tl, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tl.Name, Arguments: json.RawMessage(args)}})
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		sent := args
		if len(args) == 0 || string(args) == "null" {
			sent = []byte("{}") // as call does for a tool that takes none
		}
		var v any
		isObject := false
		if json.Unmarshal(sent, &v) == nil {
			_, isObject = v.(map[string]any)
		}

		mu.Lock()
		seen = nil
		mu.Unlock()
		res := callWith(echo, args)
		mu.Lock()
		got := seen
		mu.Unlock()
		if isObject {
			if res.IsError || got == nil {
				t.Fatalf("echo: arguments %q are an object but the call failed: %s", sent, text(res))
			}
			if !bytes.Equal(got, sent) {
				t.Fatalf("echo: the handler saw %q, want %q", got, sent)
			}
			if text(res) != string(sent) {
				t.Fatalf("echo: the result is %q, want %q", text(res), sent)
			}
		} else {
			if got != nil {
				t.Fatalf("echo: the handler ran for arguments %q, which are not an object", sent)
			}
			check422(t, "/echo", res)
		}

		res = callWith(typed, args)
		if !res.IsError {
			var out weatherOut
			b, _ := json.Marshal(res.StructuredContent)
			if json.Unmarshal(b, &out) != nil || !strings.HasPrefix(out.Weather, "sunny in ") {
				t.Fatalf("typed: result %s", b)
			}
			return
		}
		check422(t, "/typed", res)
	})
}

// check422 fails unless res is mcpdoor's refusal of arguments that fail
// the schema: the route was not called, and the result says what is wrong,
// for a model and for a program.
func check422(t *testing.T, path string, res *mcp.CallToolResult) {
	t.Helper()
	name := strings.TrimPrefix(path, "/")
	prefix := "HTTP 422 from POST " + path + ": Invalid arguments for " + name + " (checked against its input schema; the route was not called): "
	detail, ok := strings.CutPrefix(text(res), prefix)
	if !res.IsError || !ok || detail == "" {
		t.Fatalf("%s: want the refusal of invalid arguments, got %s", path, text(res))
	}
	var env struct{ Error toolset.ErrorInfo }
	b, _ := json.Marshal(res.StructuredContent)
	if meta, ok := res.Meta[ErrorMetaKey]; ok {
		b, _ = json.Marshal(meta)
	}
	if err := json.Unmarshal(b, &env); err != nil || env.Error.Code != toolset.CodeInvalidArguments || env.Error.Message != detail ||
		env.Error.Status != 422 || env.Error.Effect != toolset.EffectNotApplied {
		t.Fatalf("%s: the envelope %s does not say what is wrong", path, b)
	}
}

func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// callResult serves a tool call that no MCP call carries (calls.call with a
// nil mcpcall.Call), which has no protocol error: only a result.
func (c *calls) callResult(ctx context.Context, t *toolset.Tool, req *mcp.CallToolRequest) *mcp.CallToolResult {
	res, err := c.call(ctx, t, req, nil)
	if err != nil {
		panic("a call without an MCP call failed with a protocol error: " + err.Error())
	}
	return res
}
