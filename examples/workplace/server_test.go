package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestDoors: every scenario's solution, played through the HTTP door in one
// session and through the MCP door in another, seeded alike, gets the same
// answers call by call; so does every tool called with no arguments (the
// declared schemas refuse what the handlers refuse, with 422). Every tool is
// served by the one catch-all route, called directly.
func TestDoors(t *testing.T) {
	cfg, err := autoexpose.LoadConfig("server.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.MCP.SessionSecretEnv = ""
	cfg.Logger = slog.New(slog.DiscardHandler)
	door, err := newServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { door.Close() })
	ts := autoexposetest.NewServer(t, door, door)

	verdicts := map[string]string{"POST /seed_session": "reserved", "POST /verify": "reserved", "POST /{tool}": "catch-all"}
	var empty []autoexposetest.Call
	for _, spec := range Tools() {
		verdicts[spec.Name] = "direct"
		empty = append(empty, autoexposetest.Call{Tool: spec.Name})
	}
	autoexposetest.Verdicts(t, door, verdicts)

	for _, sc := range Scenarios() {
		t.Run(sc.ID, func(t *testing.T) {
			ts.Seed = fmt.Sprintf(`{"scenario":%q}`, sc.ID)
			var calls []autoexposetest.Call
			for _, c := range solution(t, sc.ID) {
				args, err := json.Marshal(c.Arguments)
				if err != nil {
					t.Fatal(err)
				}
				calls = append(calls, autoexposetest.Call{Tool: c.Tool, Arguments: string(args)})
			}
			ts.Parity(t, calls...)
		})
	}
	t.Run("no arguments", func(t *testing.T) {
		ts.Seed = ""
		ts.Parity(t, empty...)
	})
}
