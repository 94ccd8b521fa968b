package main

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func testServer(t *testing.T) (*autoexposetest.Server, *autoexpose.Door) {
	t.Helper()
	cfg, err := autoexpose.LoadConfig("server.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	door, err := newServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return autoexposetest.NewServer(t, door, door), door // the Door is the handler
}

// TestDoors: the wrapped mux's tools, every one replayed through it, answer
// alike over HTTP and over MCP. add_note with a text is not among the calls:
// a note's id comes from a counter every session shares, so the second door
// to add a note gets the next id (TestNotes follows one note instead).
func TestDoors(t *testing.T) {
	ts, door := testServer(t)
	autoexposetest.Verdicts(t, door, map[string]string{"add_note": "replay", "delete_note": "replay", "list_notes": "replay"})
	ts.Parity(t,
		autoexposetest.Call{Tool: "list_notes"},
		autoexposetest.Call{Tool: "list_notes", Arguments: `{"tag":"home"}`},
		autoexposetest.Call{Tool: "add_note", Arguments: `{"text":""}`}, // the handler's 422
		autoexposetest.Call{Tool: "add_note", Arguments: `{}`},          // the schema's 422
		autoexposetest.Call{Tool: "delete_note", Arguments: `{"id":7}`}, // 404
	)
}

// TestNotes: one client's note, added over HTTP, is listed and deleted over
// MCP, in the client's session; another client does not see it.
func TestNotes(t *testing.T) {
	ts, _ := testServer(t)
	c := ts.Client()
	r := c.Post(t, "/add_note", `{"text":"buy milk","tags":["home"]}`)
	var note struct{ ID int }
	if err := json.Unmarshal(r.Body, &note); err != nil || r.Status != 200 {
		t.Fatalf("add_note: %d %s", r.Status, r.Body)
	}
	cs := c.Connect(t, nil)
	text := func(cs *mcp.ClientSession, tool string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	want := `{"notes":[{"id":` + jsonInt(note.ID) + `,"text":"buy milk","tags":["home"]}]}`
	if got := text(cs, "list_notes", map[string]any{"tag": "home"}); got != want {
		t.Errorf("list_notes over MCP: %s, want %s", got, want)
	}
	if got := text(ts.Client().Connect(t, nil), "list_notes", nil); got != `{"notes":[]}` {
		t.Errorf("another client's list_notes: %s", got)
	}
	if got := text(cs, "delete_note", map[string]any{"id": note.ID}); got != `{"deleted":`+jsonInt(note.ID)+`}` {
		t.Errorf("delete_note: %s", got)
	}
	if r := c.Post(t, "/list_notes", `{}`); string(r.Body) != "{\"notes\":[]}\n" {
		t.Errorf("list_notes over HTTP after the delete: %s", r.Body)
	}
}

func jsonInt(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
