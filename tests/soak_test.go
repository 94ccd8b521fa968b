package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// soakRollouts is how many whole rollouts BenchmarkSoakWorkplace plays per
// setup, and soakWorkers how many at once.
const (
	soakRollouts = 10000
	soakWorkers  = 8
	soakNotes    = 6 // the parallel crm_add_note calls of a parallel rollout
)

// BenchmarkSoakWorkplace plays whole rollouts of examples/workplace, as
// NeMo Gym's agents do, against one real Redis: 10,000 with one workplace
// process, then 10,000 with two sharing the Redis behind a round-robin
// proxy, 8 at a time. Each rollout seeds a scenario and plays its known
// solution, the calls alternating between MCP (the token, no cookie) and
// HTTP (the cookie), then posts /verify; every tenth makes its
// crm_add_note as 6 parallel calls, half over each door. It fails unless
// every reward is 1, no parallel note is lost, every Redis key has an
// expiry, and the key count comes back to its start once the ended
// rollouts' tombstones expire (mcp.session_idle_ttl 20s here). It reports
// each process's RSS per 1,000 rollouts, its growth, and the Redis
// commands of an MCP call. Long: run it with MCPDOOR_LONG=1 and
// -benchtime 1x.
//
//	MCPDOOR_LONG=1 go test -run '^$' -bench BenchmarkSoakWorkplace -benchtime 1x -timeout 60m
func BenchmarkSoakWorkplace(b *testing.B) {
	if os.Getenv("MCPDOOR_LONG") != "1" {
		b.Skip("a soak of 20,000 rollouts; set MCPDOOR_LONG=1 to run it")
	}
	rs := startRedis(b)
	start := redisKeys(b, rs)
	solutions := workplaceSolutions(b)
	config := exampleConfig("name: workplace_assistant\nexpose_tools_over_mcp: true\nmcp:\n  session_idle_ttl: 20s")
	for _, procs := range []int{1, 2} {
		b.Run(fmt.Sprintf("processes=%d", procs), func(b *testing.B) {
			for b.Loop() {
				var pids []int
				var backends []*url.URL
				for range procs {
					e := startExampleEnv(b, "workplace", config, []string{"MCPDOOR_REDIS_ADDR=" + rs.Addr})
					pids = append(pids, e.cmd.Process.Pid)
					u, _ := url.Parse(e.url)
					backends = append(backends, u)
				}
				base := roundRobin(b, backends)
				var played, mcpCalls atomic.Int64
				var rss [][]int // per 1,000 rollouts, per process, KiB
				var mu sync.Mutex
				next := make(chan int)
				var wg sync.WaitGroup
				for range soakWorkers {
					wg.Go(func() {
						for n := range next {
							soakRollout(b, base, n, solutions[n%len(solutions)], n%10 == 0, &mcpCalls)
							if done := played.Add(1); done%1000 == 0 {
								mu.Lock()
								rss = append(rss, processRSS(b, pids))
								mu.Unlock()
							}
						}
					})
				}
				for n := range soakRollouts {
					next <- n
				}
				close(next)
				wg.Wait()
				b.Logf("RSS (KiB, per process) after each 1,000 rollouts: %v", rss)
				for p := range pids {
					growth := float64(rss[len(rss)-1][p]-rss[0][p]) / float64(len(rss)-1)
					b.ReportMetric(growth, fmt.Sprintf("rss-KiB-per-1000-rollouts/process%d", p))
				}
				b.ReportMetric(float64(rss[len(rss)-1][0]), "final-rss-KiB/process0")
				b.ReportMetric(commandsPerMCPCall(b, rs, base, solutions), "redis-cmds/mcp-call")
				checkExpiries(b, rs)
				deadline := time.Now().Add(90 * time.Second)
				for redisKeys(b, rs) != start && time.Now().Before(deadline) {
					time.Sleep(time.Second)
				}
				if n := redisKeys(b, rs); n != start {
					b.Errorf("%d Redis keys once the rollouts' sessions expired, %d at the start", n, start)
				}
				b.Logf("%d rollouts on %d processes, %d MCP calls; Redis back to %d keys", played.Load(), procs, mcpCalls.Load(), start)
			}
		})
	}
}

// A soakAgent is one rollout's agent: its HTTP client, whose cookie jar
// keeps the session cookie, and the token its seed answered. It reports
// what fails with Errorf alone: it runs on goroutines of its own.
type soakAgent struct {
	b     testing.TB
	n     int
	base  string
	http  *http.Client
	token string
	mcp   *atomic.Int64 // MCP calls made
}

func newSoakAgent(b testing.TB, base string, n int, mcp *atomic.Int64) *soakAgent {
	jar, _ := cookiejar.New(nil)
	return &soakAgent{b: b, n: n, base: base, http: &http.Client{Jar: jar, Timeout: 30 * time.Second}, mcp: mcp}
}

// post posts body to path with the agent's cookies; ok is false, and b
// told, when the answer is not 200.
func (a *soakAgent) post(path string, body []byte, header ...string) (answer []byte, ok bool) {
	req, _ := http.NewRequest(http.MethodPost, a.base+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := a.http
	if path == "/mcp" {
		client = &http.Client{Timeout: a.http.Timeout} // the token, and no cookie
	}
	resp, err := client.Do(req)
	if err != nil {
		a.b.Errorf("rollout %d: POST %s: %v", a.n, path, err)
		return nil, false
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK || bytes.Contains(buf.Bytes(), []byte(`"isError":true`)) {
		a.b.Errorf("rollout %d: POST %s %.200s: %d %.300s", a.n, path, body, resp.StatusCode, buf.Bytes())
		return buf.Bytes(), false
	}
	return buf.Bytes(), true
}

func (a *soakAgent) seed(scenario string) bool {
	body, _ := json.Marshal(map[string]string{"scenario": scenario})
	answer, ok := a.post("/seed_session", body)
	var seeded struct{ MCP seedMetadata }
	json.Unmarshal(answer, &seeded)
	a.token = seeded.MCP.Headers[tokenHeader]
	return ok && a.token != ""
}

// call calls tool over MCP (tools/call with the token, no cookie) or over
// HTTP (the cookie), and returns its structured result.
func (a *soakAgent) call(overMCP bool, id int, tool string, args any) []byte {
	arguments, _ := json.Marshal(args)
	if !overMCP {
		answer, _ := a.post("/"+tool, arguments)
		return answer
	}
	a.mcp.Add(1)
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, arguments)
	answer, _ := a.post("/mcp", []byte(body), "Accept", "application/json, text/event-stream", tokenHeader, a.token)
	var rpc struct {
		Result struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	json.Unmarshal(answer, &rpc)
	return rpc.Result.StructuredContent
}

// soakRollout plays one rollout of sol through base, telling b of a call
// that fails, a lost note or a reward other than 1. A parallel rollout
// makes its crm_add_note as soakNotes calls at once, half over each door.
func soakRollout(b testing.TB, base string, n int, sol workplaceSolution, parallel bool, mcpCalls *atomic.Int64) {
	a := newSoakAgent(b, base, n, mcpCalls)
	if !a.seed(sol.Scenario) {
		return
	}
	for i, c := range sol.Calls {
		if !parallel || c.Tool != "crm_add_note" {
			a.call(i%2 == 1, i, c.Tool, c.Arguments)
			continue
		}
		id, _ := c.Arguments["id"].(string)
		var wg sync.WaitGroup
		for k := range soakNotes {
			args := map[string]any{"id": id, "note": fmt.Sprintf("parallel %d", k)}
			if k == 0 {
				args = c.Arguments
			}
			wg.Go(func() { a.call(k%2 == 0, 100+k, c.Tool, args) })
		}
		wg.Wait()
		var got struct{ Notes []string }
		json.Unmarshal(a.call(true, 200, "crm_get_customer", map[string]any{"id": id}), &got)
		if len(got.Notes) != 1+soakNotes {
			b.Errorf("rollout %d: %d parallel crm_add_note calls answered, the record has %d notes, want %d: %q", n, soakNotes, len(got.Notes), 1+soakNotes, got.Notes)
		}
	}
	answer, ok := a.post("/verify", []byte(`{}`))
	var v struct{ Reward float64 }
	if json.Unmarshal(answer, &v); ok && v.Reward != 1 {
		b.Errorf("rollout %d (%s): reward %v: %.300s", n, sol.Scenario, v.Reward, answer)
	}
}

// commandsPerMCPCall plays one rollout of each scenario with every tool
// call over MCP, one at a time, and returns the Redis commands its tool
// calls cost on average.
func commandsPerMCPCall(b testing.TB, rs *redisServer, base string, solutions []workplaceSolution) float64 {
	var cmds, calls int
	var mcp atomic.Int64
	all := map[string]int{}
	for n, sol := range solutions {
		a := newSoakAgent(b, base, n, &mcp)
		if !a.seed(sol.Scenario) {
			continue
		}
		resetCommands(b, rs)
		for i, c := range sol.Calls {
			a.call(true, i, c.Tool, c.Arguments)
		}
		got, by := redisCommands(b, rs)
		cmds, calls = cmds+got, calls+len(sol.Calls)
		for name, n := range by {
			all[name] += n
		}
		a.post("/verify", []byte(`{}`))
	}
	b.Logf("%d tool calls over MCP, one rollout of each scenario: %d Redis commands %v", calls, cmds, all)
	return float64(cmds) / float64(calls)
}

// roundRobin serves a plain round-robin proxy to backends on 127.0.0.1
// until b ends, and returns its URL.
func roundRobin(b testing.TB, backends []*url.URL) string {
	var next atomic.Uint64
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(backends[int(next.Add(1)-1)%len(backends)])
	}}
	srv := httptest.NewServer(proxy)
	b.Cleanup(srv.Close)
	return srv.URL
}

// processRSS returns each process's resident set size, in KiB.
func processRSS(b testing.TB, pids []int) []int {
	out := make([]int, len(pids))
	for i, pid := range pids {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				out[i], _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			}
		}
	}
	return out
}

// redisKeys returns how many keys rs holds.
func redisKeys(b testing.TB, rs *redisServer) int {
	n, err := rs.Client.DBSize(context.Background()).Result()
	if err != nil {
		b.Fatal(err)
	}
	return int(n)
}

// checkExpiries fails b for every key of rs without an expiry.
func checkExpiries(b testing.TB, rs *redisServer) {
	ctx := context.Background()
	iter := rs.Client.Scan(ctx, 0, "*", 1000).Iterator()
	n := 0
	for iter.Next(ctx) {
		n++
		// -1: no expiry (-2 is a key that expired since the scan saw it).
		if ttl, _ := rs.Client.PTTL(ctx, iter.Val()).Result(); ttl == -1 {
			b.Errorf("Redis key %s has no expiry", iter.Val())
		}
	}
	b.Logf("%d Redis keys after the rollouts, each with an expiry (the ended rollouts' tombstones)", n)
}
