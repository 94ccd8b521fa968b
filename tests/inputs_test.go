package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// The 2026-07-28 protocol's questions to the client (SEP-2322 input
// requests) on a stateless door, and the protocol errors around them, the
// same through the fast path and the go-sdk.

// inputServer serves, on a stateless door with the fast path on or off,
// /confirm, which elicits and fails (409) when it cannot; /cope, which
// elicits and goes on without an answer it cannot get; /summarize, which
// samples and fails when it cannot.
func inputServer(t *testing.T, fast bool) *server {
	t.Helper()
	r := chi.NewRouter()
	r.Post("/confirm", func(w http.ResponseWriter, r *http.Request) {
		res, err := autoexpose.Elicit(r.Context(), "Delete 3 files?", nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		fmt.Fprintf(w, "action=%s", res.Action)
	})
	r.Post("/cope", func(w http.ResponseWriter, r *http.Request) {
		res, err := autoexpose.Elicit(r.Context(), "Delete 3 files?", nil)
		switch {
		case errors.Is(err, errors.ErrUnsupported):
			fmt.Fprint(w, "kept the files: no one to ask")
		case err != nil:
			http.Error(w, err.Error(), http.StatusConflict)
		default:
			fmt.Fprintf(w, "action=%s", res.Action)
		}
	})
	r.Post("/summarize", func(w http.ResponseWriter, r *http.Request) {
		//lint:ignore SA1019 sampling, deprecated as of 2026-07-28, is still served
		res, err := autoexpose.Sample(r.Context(), &mcp.CreateMessageParams{
			//lint:ignore SA1019 see above
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarize."}}},
			MaxTokens: 10,
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		fmt.Fprintf(w, "model=%s", res.Model)
	})
	cfg := autoexpose.Config{Name: "inputs", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler)}
	cfg.MCP.SessionSecret = []string{testSecret}
	cfg.MCP.DisableFastPath = !fast
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { door.Close() })
	return serve(t, r)
}

// toolCall is a 2026-07-28 tools/call of tool from a client that declares
// capabilities (a JSON object), with the params members more (raw, "" for
// none).
func toolCall(tool, capabilities, more string) string {
	if more != "" {
		more = "," + more
	}
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":` + capabilities + `,"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}},` +
		`"name":"` + tool + `","arguments":{}` + more + `}}`
}

// callRaw posts a tools/call body of tool at 2026-07-28 and returns the
// status, the Content-Type and the JSON-RPC response.
func callRaw(t *testing.T, s *server, tool, body string) (int, string, string) {
	t.Helper()
	r := s.rawMCP(t, body, raw{protocol: "2026-07-28", header: []string{"Mcp-Method", "tools/call", "Mcp-Name", tool}})
	return r.Status, r.Header.Get("Content-Type"), string(r.Body)
}

// TestMissingClientCapability: on protocol 2026-07-28 a call that needs a
// capability the client did not declare, and fails for want of it, is
// answered with the protocol's MissingRequiredClientCapabilityError
// (-32021, HTTP 400) naming the capability, in place of the route's failure;
// a route that goes on without the answer keeps its answer. Through the
// fast path and the go-sdk alike.
func TestMissingClientCapability(t *testing.T) {
	for _, fast := range []bool{true, false} {
		t.Run(fmt.Sprintf("fast path %t", fast), func(t *testing.T) {
			s := inputServer(t, fast)
			for _, c := range []struct {
				tool, capability string
			}{{"confirm", "elicitation"}, {"summarize", "sampling"}} {
				status, ct, body := callRaw(t, s, c.tool, toolCall(c.tool, `{"roots":{}}`, ""))
				want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"mcpdoor: tool ` + c.tool + ` needs the client's ` + c.capability +
					` capability, which the request does not declare","data":{"requiredCapabilities":{"` + c.capability + `":{}}}}}`
				if status != http.StatusBadRequest || ct != "application/json" || body != want {
					t.Errorf("%s: %d %s %s\nwant 400 application/json %s", c.tool, status, ct, body, want)
				}
			}
			status, _, body := callRaw(t, s, "cope", toolCall("cope", `{}`, ""))
			if status != http.StatusOK || !strings.Contains(body, `"text":"kept the files: no one to ask"`) || strings.Contains(body, `"isError"`) {
				t.Errorf("cope: %d %s, want its answer", status, body)
			}
		})
	}
}

// TestRequestStateSigned: the request state of an input-required result is
// signed with the door's secret and bound to its tool, so a client that
// echoes a state it changed, or one of another tool, gets a JSON-RPC error
// (-32602, HTTP 400) and the route does not run; the state it was given
// carries its answers on. Through the fast path and the go-sdk alike.
func TestRequestStateSigned(t *testing.T) {
	const asking = `{"elicitation":{"form":{}}}`
	for _, fast := range []bool{true, false} {
		t.Run(fmt.Sprintf("fast path %t", fast), func(t *testing.T) {
			s := inputServer(t, fast)
			first := func(tool string) (key, state string) {
				t.Helper()
				_, _, body := callRaw(t, s, tool, toolCall(tool, asking, ""))
				var r struct {
					Result struct {
						ResultType    string                     `json:"resultType"`
						InputRequests map[string]json.RawMessage `json:"inputRequests"`
						RequestState  string                     `json:"requestState"`
					} `json:"result"`
				}
				if err := json.Unmarshal([]byte(body), &r); err != nil || r.Result.ResultType != "input_required" || len(r.Result.InputRequests) != 1 || r.Result.RequestState == "" {
					t.Fatalf("%s: %s, want an input-required result with a state", tool, body)
				}
				for k := range r.Result.InputRequests {
					key = k
				}
				return key, r.Result.RequestState
			}
			key, state := first("confirm")
			answer := func(state string) string {
				return `"inputResponses":{"` + key + `":{"action":"accept"}},"requestState":"` + state + `"`
			}
			_, copeState := first("cope")
			for name, bad := range map[string]string{
				"changed":        state + "-TAMPERED",
				"not a state":    "e30",
				"another tool's": copeState,
			} {
				status, ct, body := callRaw(t, s, "confirm", toolCall("confirm", asking, answer(bad)))
				want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"mcpdoor: tool confirm: the requestState does not verify: it was changed, or not made by this server for this tool"}}`
				if status != http.StatusBadRequest || ct != "application/json" || body != want {
					t.Errorf("%s state: %d %s %s\nwant 400 application/json %s", name, status, ct, body, want)
				}
			}
			status, _, body := callRaw(t, s, "confirm", toolCall("confirm", asking, answer(state)))
			if status != http.StatusOK || !strings.Contains(body, `"text":"action=accept"`) {
				t.Errorf("the state as given: %d %s, want the answered call's result", status, body)
			}
		})
	}
}
