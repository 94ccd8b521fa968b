package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdoor/mcpdoor/internal/store"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/session/redisstore"
)

// ledgerRecord is a record of a session's execution ledger, as the store
// holds it.
type ledgerRecord struct {
	IDs    []string        `json:"ids"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	Status string          `json:"status"`
	At     int64           `json:"at"`
}

// ledgerOf reads session sid's ledger from the store's lists.
func ledgerOf(t *testing.T, s session.Store, sid string) ([]ledgerRecord, error) {
	t.Helper()
	l, ok := s.(interface {
		List(ctx context.Context, sid, list string) ([][]byte, error)
	})
	if !ok {
		t.Fatalf("the store %T keeps no lists", s)
	}
	recs, err := l.List(context.Background(), sid, "mcpdoor.ledger")
	var out []ledgerRecord
	for _, r := range recs {
		var rec ledgerRecord
		if err := json.Unmarshal(r, &rec); err != nil {
			t.Fatalf("a ledger record %s: %v", r, err)
		}
		out = append(out, rec)
	}
	return out, err
}

// TestLedger: each tool call a rollout's session executes, over MCP, is
// recorded in the session store (in memory, and in a real Redis that
// another replica shares), with its canonical arguments, its result's
// status and its JSON-RPC id where the transport gives one; the ledger
// keeps the newest mcp.rollout.max_ledger calls, and goes when /verify
// ends the session.
func TestLedger(t *testing.T) {
	rs := startRedis(t)
	for _, backend := range []string{"memory", "redis"} {
		t.Run(backend, func(t *testing.T) {
			cfg := replicaConfig()
			cfg.MCP.Rollout.MaxLedger = 3
			var b session.Store
			if backend == "redis" {
				client := redis.NewClient(&redis.Options{Addr: rs.Addr})
				t.Cleanup(func() { client.Close() })
				cfg.Store = redisstore.New(client, "ledger")
			} else {
				cfg.Store = store.NewMemory(0, nil)
			}
			b = cfg.Store
			s := serve(t, newStoredNotebookDoor(t, cfg))
			c := s.newClient()
			seeded, meta := c.seedSession(`{}`)
			sid, err := cookieSID(t, seeded.Header.Get("Set-Cookie"))
			if err != nil {
				t.Fatal(err)
			}
			agent := s.cookieless()
			tok := meta.Headers[tokenHeader]
			// The third breaks the tool's schema: refused, not executed, not
			// recorded.
			for i, args := range []string{`{ "note" : "a" }`, `{"note":"b"}`, `{"note":"x","x":1}`, `{"note":"c"}`, `{"note":"d"}`} {
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"note","arguments":%s}}`, 10+i, args)
				if r := agent.rawMCP(t, body, raw{header: []string{tokenHeader, tok}}); r.Status != http.StatusOK {
					t.Fatalf("tools/call: %d %s", r.Status, r.Body)
				}
			}
			got, err := ledgerOf(t, b, sid)
			if err != nil {
				t.Fatal(err)
			}
			var summary []string
			for _, rec := range got {
				summary = append(summary, fmt.Sprintf("%s %s %s", rec.Tool, rec.Args, rec.Status))
				for _, id := range rec.IDs {
					if !strings.HasPrefix(id, "rpc:1") {
						t.Errorf("a record's id %q is not its JSON-RPC id", id)
					}
				}
				if rec.At == 0 {
					t.Errorf("a record without its time: %+v", rec)
				}
			}
			// The newest 3 of 4 (max_ledger 3), in canonical form.
			want := []string{`note {"note":"b"} ok`, `note {"note":"c"} ok`, `note {"note":"d"} ok`}
			if strings.Join(summary, "\n") != strings.Join(want, "\n") {
				t.Errorf("ledger:\n%s\nwant:\n%s", strings.Join(summary, "\n"), strings.Join(want, "\n"))
			}
			if r := c.post("/verify", `{"expected":["a","b","c","d"]}`); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"reward":1`) {
				t.Fatalf("verify: %d %s", r.Status, r.Body)
			}
			if got, err := ledgerOf(t, b, sid); got != nil || (err != nil && err != store.ErrEnded) {
				t.Errorf("the ledger once /verify ended the session: %v, %v", got, err)
			}
			if backend == "redis" {
				fields, _ := rs.Client.HGetAll(context.Background(), "ledger:session:"+sid).Result()
				if len(fields) > 0 {
					t.Errorf("the session's hash still holds %v", fields)
				}
			}
		})
	}
}
