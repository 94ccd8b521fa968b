package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
)

// catchAllRouter serves every tool from one POST /{tool} dispatcher that
// reports what it was called as. With guard, an unknown middleware sits in
// front of the dispatcher, so its tools replay.
func catchAllRouter(t *testing.T, guard bool) (http.Handler, *autoexpose.Door) {
	cfg := fixtureConfig(t)
	sessions, _ := cfg.UseSessions()
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) })
	r.Post("/verify", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) })
	r.Post("/static", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"static":true}`)) })
	dispatch := r
	if guard {
		dispatch = r.With(requireBearer).(*chi.Mux)
	}
	dispatch.Post("/{tool}", func(w http.ResponseWriter, r *http.Request) {
		var args map[string]any
		json.NewDecoder(r.Body).Decode(&args)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"tool":       chi.URLParam(r, "tool"),
			"path_value": r.PathValue("tool"),
			"pattern":    r.Pattern,
			"session":    session.ID(r) != "",
			"args":       args,
		})
	})
	cfg.CatchAll = map[string]autoexpose.Declaration{
		"send_email": {Description: "Send an email.", Input: autoexpose.SchemaFor[struct {
			To string `json:"to"`
		}]()},
		"list_inbox": {Description: "List the inbox."},
	}
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r, door
}

// TestCatchAllDispatch: catch-all tools reach the dispatcher with the path
// value set to their name, directly or replayed, like the HTTP door.
func TestCatchAllDispatch(t *testing.T) {
	for _, guard := range []bool{false, true} {
		t.Run(fmt.Sprintf("replay=%v", guard), func(t *testing.T) {
			h, door := catchAllRouter(t, guard)
			verdicts := map[string]string{}
			for _, row := range door.Report() {
				if row.Tool != "" {
					verdicts[row.Tool] = row.Verdict
				}
			}
			want := map[string]string{"list_inbox": "direct", "send_email": "direct", "static": "direct"}
			if guard {
				want = map[string]string{"list_inbox": "replay", "send_email": "replay", "static": "direct"}
			}
			if diff := cmp.Diff(want, verdicts); diff != "" {
				t.Errorf("tools' verdicts (-want +got):\n%s", diff)
			}
			s := inProcess(t, h, door)
			auth := []string{"Authorization", "Bearer s3cret"}
			cs := s.connectSeeded(mcpOptions{header: http.Header{"Authorization": {"Bearer s3cret"}}})
			for _, c := range []struct{ tool, args string }{
				{"send_email", `{"to":"cfo@example.com"}`},
				{"list_inbox", `{}`},
			} {
				hr := s.post("/"+c.tool, c.args, auth...)
				if hr.Status != 200 {
					t.Fatalf("HTTP door: %d %s", hr.Status, hr.Body)
				}
				if !strings.Contains(string(hr.Body), `"path_value":"`+c.tool+`","pattern":"/{tool}","session":true,"tool":"`+c.tool+`"`) {
					t.Errorf("HTTP door: %s", hr.Body)
				}
				sameJSON(t, call(t, cs, c.tool, rawArgs(c.args)), expectedResult(t, c.tool, hr, "", "", false))
			}
		})
	}
}

// TestToolNamesCannotEscape: a name outside the exposed set, however it is
// spelled, is an unknown tool: it never reaches a route.
func TestToolNamesCannotEscape(t *testing.T) {
	h, door := catchAllRouter(t, false)
	s := inProcess(t, h, door)
	cs := s.connectSeeded(mcpOptions{})
	for _, name := range []string{"../seed_session", "send_email/../verify", "%2e%2e%2fverify", "seed_session", "verify", "mcp",
		"send_email/x", "send_email?x=1", "send_email#x", "./send_email", "send_email ", "SEND_EMAIL", "", "static/../verify"} {
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		var werr *jsonrpc.Error
		switch {
		case err == nil:
			t.Errorf("%q was called", name)
		case strings.Contains(err.Error(), "rejected by transport"):
			// The SDK refuses a name its Mcp-Name header cannot carry
			// before it is dispatched at all.
		case !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams ||
			werr.Message != fmt.Sprintf("unknown tool %q; available tools: list_inbox, send_email, static", name):
			t.Errorf("%q: %v", name, err)
		}
	}
}
