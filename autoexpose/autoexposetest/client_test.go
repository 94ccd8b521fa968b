package autoexposetest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
)

// resultJSON is a tool result as a client reads it, minus what the
// protocol adds to every result.
func resultJSON(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	b, err := json.Marshal(&mcp.CallToolResult{Content: res.Content, StructuredContent: res.StructuredContent, IsError: res.IsError})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any, meta mcp.Meta) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// TestRollout runs a rollout as a harness does, with the go-sdk client over
// the kit's in-process transport, on each session policy and each protocol
// version the door serves: seed, connect with the token, call (with
// progress streamed back), share the session with the HTTP door, verify.
// A client that did not seed is refused.
func TestRollout(t *testing.T) {
	for _, policy := range []string{"stateless", "stateful"} {
		for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(policy+"/"+protocol, func(t *testing.T) {
				yaml := ""
				if policy == "stateful" {
					yaml = "  stateful: true\n"
				}
				h, door := newShop(t, yaml)
				ts := autoexposetest.NewServer(t, h, door)
				c := ts.Client()

				seed := c.Seed(t, `{}`)
				var meta struct {
					MCP struct {
						ServerName string            `json:"server_name"`
						URLPath    string            `json:"url_path"`
						Headers    map[string]string `json:"headers"`
					} `json:"mcp"`
				}
				json.Unmarshal(seed.Body, &meta)
				if tok := meta.MCP.Headers["X-NeMo-Gym-Session-Token"]; tok == "" || len(meta.MCP.Headers) != 1 {
					t.Errorf("seed: headers %v, want the token's alone", meta.MCP.Headers)
				}
				if got, want := fmt.Sprintf("%d %s %s %s", seed.Status, seed.Body[:14], meta.MCP.ServerName, meta.MCP.URLPath), `200 {"ready":true, shop /mcp`; got != want {
					t.Errorf("seed: %s, want %s", got, want)
				}

				progress := make(chan string, 8)
				cs := c.Connect(t, &autoexposetest.ConnectOptions{ProtocolVersion: protocol, Client: &mcp.ClientOptions{
					ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
						progress <- fmt.Sprintf("%v/%v %s", r.Params.Progress, r.Params.Total, r.Params.Message)
					},
				}})
				want := protocol
				if policy == "stateful" {
					want = "2025-11-25" // a stateful door serves the versions of initialize
				}
				if got := cs.InitializeResult().ProtocolVersion; got != want {
					t.Errorf("protocol %s, want %s", got, want)
				}
				list, err := cs.ListTools(t.Context(), nil)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, tl := range list.Tools {
					names = append(names, tl.Name)
				}
				if got := strings.Join(names, " "); got != "count greet note pack restock stock" {
					t.Errorf("tools/list: %s", got)
				}
				res := callTool(t, cs, "greet", map[string]any{"name": "Ana"}, nil)
				if got, want := resultJSON(t, res), `{"content":[{"type":"text","text":"{\"greeting\":\"bonjour, Ana\"}"}],"structuredContent":{"greeting":"bonjour, Ana"}}`; got != want {
					t.Errorf("greet: %s\nwant %s", got, want)
				}
				res = callTool(t, cs, "pack", map[string]any{"boxes": 2}, mcp.Meta{"progressToken": "p1"})
				if got, want := resultJSON(t, res), `{"content":[{"type":"text","text":"{\"packed\":2}"}],"structuredContent":{"packed":2}}`; got != want {
					t.Errorf("pack: %s\nwant %s", got, want)
				}
				// The client handles notifications on a goroutine of its own.
				for _, want := range []string{"1/2 box 1 of 2", "2/2 box 2 of 2"} {
					select {
					case got := <-progress:
						if got != want {
							t.Errorf("progress: %q, want %q", got, want)
						}
					case <-time.After(10 * time.Second):
						t.Fatalf("progress: no %q", want)
					}
				}

				// One session, both doors, in order.
				for i, door := range []string{"http", "mcp", "http"} {
					want := fmt.Sprintf(`{"count":%d}`, i+1)
					if door == "http" {
						if r := c.Post(t, "/count", `{}`); r.Status != http.StatusOK || string(r.Body) != want {
							t.Errorf("HTTP count: %d %s, want %s", r.Status, r.Body, want)
						}
					} else if res := callTool(t, cs, "count", nil, nil); res.Content[0].(*mcp.TextContent).Text != want {
						t.Errorf("MCP count: %s, want %s", resultJSON(t, res), want)
					}
				}
				if r := c.Verify(t, `{"response":{"output":[]}}`); r.Status != http.StatusOK || string(r.Body) != `{"reward":1}` {
					t.Errorf("verify: %d %s", r.Status, r.Body)
				}

				// Another client, no seed: no token.
				other := ts.Client().Connect(t, &autoexposetest.ConnectOptions{ProtocolVersion: protocol})
				res = callTool(t, other, "count", nil, nil)
				if got, want := resultJSON(t, res), `{"content":[{"type":"text","text":"Missing X-NeMo-Gym-Session-Token for Gym MCP tool call."}],"structuredContent":{"error":{"code":"missing_token","effect":"not_applied","message":"no session token","status":401}},"isError":true}`; got != want {
					t.Errorf("a call without a token: %s\nwant %s", got, want)
				}
			})
		}
	}
}
