package tests

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// notes collects the notifications a go-sdk client receives, as JSON.
type notes struct {
	mu       sync.Mutex
	progress []string
	logs     []string
	more     chan struct{} // gets a value when a notification arrives
}

func (n *notes) options() *mcp.ClientOptions {
	n.more = make(chan struct{}, 1)
	add := func(list *[]string, v any) {
		b, _ := json.Marshal(v)
		n.mu.Lock()
		*list = append(*list, string(b))
		n.mu.Unlock()
		select {
		case n.more <- struct{}{}:
		default:
		}
	}
	return &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			add(&n.progress, r.Params)
		},
		//lint:ignore SA1019 MCP logging, deprecated as of 2026-07-28, is still served
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			add(&n.logs, r.Params)
		},
	}
}

// wait returns what was received once there are at least the progress and
// log notifications wanted, or after a generous timeout.
func (n *notes) wait(progress, logs int) (p, l []string) {
	timeout := time.After(10 * time.Second)
	for {
		n.mu.Lock()
		p, l = slices.Clone(n.progress), slices.Clone(n.logs)
		done := len(n.progress) >= progress && len(n.logs) >= logs
		n.mu.Unlock()
		if done {
			return p, l
		}
		select {
		case <-n.more:
		case <-timeout:
			return p, l
		}
	}
}

// reset forgets what was received.
func (n *notes) reset() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.progress, n.logs = nil, nil
}

// TestProgressAndLog: a handler's autoexpose.Progress and autoexpose.Log
// reach the MCP client that made the call, through direct and replay
// dispatch, on each protocol the door serves; over HTTP they do nothing.
func TestProgressAndLog(t *testing.T) {
	const result = `{"content":[{"type":"text","text":"{\"done\":3}"}],"structuredContent":{"done":3}}`
	progress := []string{
		`{"progressToken":"tok-1","message":"step 1 of 3","progress":1,"total":3}`,
		`{"progressToken":"tok-1","message":"step 2 of 3","progress":2,"total":3}`,
		`{"progressToken":"tok-1","message":"step 3 of 3","progress":3,"total":3}`,
	}
	logs := []string{
		`{"data":{"step":1},"level":"info","logger":"steps"}`,
		`{"data":{"step":2},"level":"info","logger":"steps"}`,
		`{"data":{"step":3},"level":"info","logger":"steps"}`,
	}
	for _, dispatch := range []string{"auto", "replay"} {
		// The client asks for info and above: with logging/setLevel on
		// 2025-11-25 (which a stateless door forgets, logging info and above
		// anyway), in the call's _meta on 2026-07-28.
		for _, tc := range []struct {
			name     string
			stateful bool
			protocol string
		}{
			{"stateless 2025-11-25", false, "2025-11-25"},
			{"stateful 2025-11-25", true, "2025-11-25"},
			{"2026-07-28", false, ""},
		} {
			t.Run(dispatch+"/"+tc.name, func(t *testing.T) {
				cfg := fixtureConfig(t)
				cfg.MCP.Dispatch, cfg.MCP.Stateful = autoexpose.Dispatch(dispatch), tc.stateful
				h, door, _ := newFixture(t, cfg)
				if got := door.Report()[0].Verdict; dispatch == "replay" && got != "replay" {
					t.Fatalf("verdict %s, want replay", got)
				}
				s := inProcess(t, h, door)
				var n notes
				cs := s.connectSeeded(mcpOptions{protocol: tc.protocol, client: n.options()})
				params := &mcp.CallToolParams{Name: "steps", Arguments: map[string]any{"n": 3}}
				params.SetProgressToken("tok-1")
				// The test drives MCP logging, deprecated as of 2026-07-28 but
				// still served.
				if tc.protocol == "" {
					//lint:ignore SA1019 see above
					params.Meta[mcp.MetaKeyLogLevel] = "info"
				} else {
					//lint:ignore SA1019 see above
					level := &mcp.SetLoggingLevelParams{Level: "info"}
					//lint:ignore SA1019 see above
					if err := cs.SetLoggingLevel(t.Context(), level); err != nil {
						t.Fatal(err)
					}
				}
				res, err := cs.CallTool(t.Context(), params)
				if err != nil {
					t.Fatal(err)
				}
				if got := resultJSON(t, res); got != result {
					t.Errorf("result %s, want %s", got, result)
				}
				gotProgress, gotLogs := n.wait(3, 3)
				if diff := cmp.Diff(progress, gotProgress); diff != "" {
					t.Errorf("progress notifications (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(logs, gotLogs); diff != "" {
					t.Errorf("log notifications (-want +got):\n%s", diff)
				}

				// Without a progress token, no progress.
				n.reset()
				call(t, cs, "steps", map[string]any{"n": 2})
				if gotProgress, _ := n.wait(0, 0); len(gotProgress) != 0 {
					t.Errorf("progress without a token: %s", gotProgress)
				}
			})
		}
	}

	t.Run("HTTP door", func(t *testing.T) {
		h, door, _ := newFixture(t, fixtureConfig(t))
		s := inProcess(t, h, door)
		if r := s.post("/steps", `{"n":3}`); r.Status != http.StatusOK || string(r.Body) != `{"done":3}` {
			t.Errorf("POST /steps: %d %s", r.Status, r.Body)
		}
	})
}

// TestForecastProgress: the weather example's forecast reports a day at a
// time to an MCP client that asks for progress.
func TestForecastProgress(t *testing.T) {
	s := startExample(t, "weather", "name: example_mcp_weather\nexpose_tools_over_mcp: true\nmcp:\n  rollout:\n    allow_tokenless: true\n").server
	var n notes
	cs := s.connect(mcpOptions{client: n.options()})
	params := &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": "Paris", "days": 2}}
	params.SetProgressToken(42)
	res, err := cs.CallTool(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"content":[{"type":"text","text":"{\"days\":[\"Day 1 in Paris: sunny and 72 F.\",\"Day 2 in Paris: sunny and 72 F.\"]}"}],"structuredContent":{"days":["Day 1 in Paris: sunny and 72 F.","Day 2 in Paris: sunny and 72 F."]}}`
	if got := resultJSON(t, res); got != want {
		t.Errorf("result %s\nwant %s", got, want)
	}
	wantProgress := []string{
		`{"progressToken":42,"message":"day 1 of 2","progress":1,"total":2}`,
		`{"progressToken":42,"message":"day 2 of 2","progress":2,"total":2}`,
	}
	got, _ := n.wait(2, 0)
	if diff := cmp.Diff(wantProgress, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}
