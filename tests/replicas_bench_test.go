package tests

import (
	"net/http"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdoor/mcpdoor/session/redisstore"
)

// BenchmarkStoreCall serves a rollout's tool call over MCP (tools/call
// with the token, the fast path) and over HTTP (with the cookie) on a
// notebook replica whose sessions are in memory or in a real Redis on
// 127.0.0.1: the cost of holding sessions, and their state, outside the
// process. Each call loads the session's notes and saves them. With Redis
// it also reports the Redis commands of a call (INFO commandstats, a
// MULTI and an EXEC counted one each, a script's commands each beside its
// EVALSHA). Its names are benchstat keys; side by side:
//
//	go test -run '^$' -bench BenchmarkStoreCall -count 6 > bench.txt
//	benchstat -col /store bench.txt
func BenchmarkStoreCall(b *testing.B) {
	rs := startRedis(b)
	for _, store := range []string{"memory", "redis"} {
		cfg := replicaConfig()
		if store == "redis" {
			client := redis.NewClient(&redis.Options{Addr: rs.Addr})
			b.Cleanup(func() { client.Close() })
			cfg.Store = redisstore.New(client, "bench")
		}
		s := serve(b, newStoredNotebookDoor(b, cfg))
		seeded, meta := s.seedSession(`{}`)
		tok, cookie := meta.Headers[tokenHeader], strings.Split(seeded.Header.Get("Set-Cookie"), ";")[0]
		const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","arguments":{"note":"n"}}}`
		// The notes grow with each call; a seed of the same session now and
		// then keeps them short, its time and its commands left out.
		var seedCmds int
		reseed := func(b *testing.B, i int) {
			if i%32 == 31 {
				b.StopTimer()
				before, _ := redisCommands(b, rs)
				s.seedSession(`{}`)
				after, _ := redisCommands(b, rs)
				seedCmds += after - before
				b.StartTimer()
			}
		}
		run := func(b *testing.B, do func() httpResponse) {
			b.ReportAllocs()
			resetCommands(b, rs)
			seedCmds = 0
			n := 0
			for i := 0; b.Loop(); i++ {
				reseed(b, i)
				if r := do(); r.Status != http.StatusOK {
					b.Fatalf("%d %s", r.Status, r.Body)
				}
				n++
			}
			if store == "redis" {
				total, _ := redisCommands(b, rs)
				b.ReportMetric(float64(total-seedCmds)/float64(n), "redis-cmds/op")
			}
		}
		b.Run("door=mcp/store="+store, func(b *testing.B) {
			run(b, func() httpResponse { return s.rawMCP(b, call, raw{header: []string{tokenHeader, tok}}) })
		})
		b.Run("door=http/store="+store, func(b *testing.B) {
			run(b, func() httpResponse { return s.post("/note", `{"note":"n"}`, "Cookie", cookie) })
		})
	}
}
