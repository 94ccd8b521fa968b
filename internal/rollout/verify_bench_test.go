package rollout_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/store"
)

// BenchmarkVerifyClaims serves /verify for a rollout of 1,000 tool calls,
// each claimed in the trajectory with its output, with the claims checked
// against the session's ledger in memory (refuse, mark) and not (off): the
// cost of the checks. Side by side:
//
//	go test -run '^$' -bench BenchmarkVerifyClaims -count 6 ./internal/rollout > bench.txt
//	benchstat -col /claims bench.txt
func BenchmarkVerifyClaims(b *testing.B) {
	const calls = 1000
	var items []string
	for i := range calls {
		args, _ := json.Marshal(fmt.Sprintf(`{"city": "City %d", "days": %d}`, i, i%7))
		items = append(items,
			fmt.Sprintf(`{"type":"function_call","call_id":"call_%d","name":"mcp__weather__get_weather","arguments":%s}`, i, args),
			fmt.Sprintf(`{"type":"function_call_output","call_id":"call_%d","output":"{\"temp\": %d, \"sky\": \"clear\"}"}`, i, i%30))
	}
	trajectory := `{"responses_create_params":{"input":"plan the week"},"response":{"output":[` + strings.Join(items, ",") + `]}}`
	for _, claims := range []string{rollout.ClaimsOff, rollout.ClaimsRefuse, rollout.ClaimsMark} {
		b.Run("claims="+claims, func(b *testing.B) {
			backend := store.NewMemory(0, nil)
			mgr := sessions.New(testKeys(b, testSecret), &sessions.Options{Store: backend, Idle: time.Hour, Logger: slog.New(slog.DiscardHandler)})
			c := rollout.New(rollout.Config{Claims: claims}, rollout.Params{Server: "weather", Path: "/mcp", Sessions: mgr, Logger: slog.New(slog.DiscardHandler)})
			c.Expose([]string{"get_weather", "forecast"})
			h := c.Verify(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				w.Header().Set("Content-Type", "application/json")
				w.Write(body) // the echo Gym's verifiers answer
			}))
			// A rollout's session and ledger: the calls the trajectory claims.
			seed := func(n int) *http.Cookie {
				sid := fmt.Sprintf("bench-%d", n)
				ctx := context.Background()
				if _, _, err := backend.Open(ctx, sid, nil, time.Hour, true); err != nil {
					b.Fatal(err)
				}
				for i := range calls {
					args := fmt.Sprintf(`{"city":"City %d","days":%d}`, i, i%7)
					if err := c.Record(ctx, sid, rollout.Call{Tool: "get_weather", Arguments: rollout.Canonical([]byte(args)), Status: "ok"}); err != nil {
						b.Fatal(err)
					}
				}
				ck, err := mgr.RolloutCookie(sid)
				if err != nil {
					b.Fatal(err)
				}
				return ck
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(trajectory)))
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				ck := seed(i)
				req := httptest.NewRequest(http.MethodPost, "/verify", strings.NewReader(trajectory))
				req.AddCookie(ck)
				w := httptest.NewRecorder()
				b.StartTimer()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("verify: %d %.300s", w.Code, w.Body)
				}
			}
		})
	}
}
